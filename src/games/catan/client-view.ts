import type { ServerMessage, WireBuilding, WireMap } from './protocol.js';
import { CORNER_COUNT, EDGE_COUNT } from './rules/geometry.js';
import { NO_DEV_CARDS } from './rules/resources.js';
import {
  BANK_START,
  DECK,
  RESOURCES,
  canonical,
  parseCorner,
  parseEdge,
  type Colour,
  type DevCards,
  type ResourceCounts,
  type Resources,
  type Status,
} from './rules/index.js';

/**
 * What a client knows, built only from the messages it received (never from a server's
 * internals): the Karte and every Bauvorgang, the robber, each player's last Statusupdate (own
 * hand and cards in full, others' as counts), open trade offers, award holders, and what the
 * client can work out itself (whose turn it is, the turn order from the first Statusupdates after
 * `Spiel gestartet`, cards bought this turn, whether a card was played this turn, how many cards
 * it must discard, the bank's and the deck's card counts).
 */

export interface ClientPlayer {
  readonly id: number;
  readonly name: string | null;
  readonly colour: Colour | null;
  readonly status: Status;
  /** As the last Statusupdate showed them (others: without hidden Siegpunkt cards). */
  readonly points: number;
  /** Resource cards in hand. */
  readonly cards: number;
  /** Unplayed development cards. */
  readonly devCards: number;
  readonly knights: number;
  /** Own hand by type; null for the others. */
  readonly resources: Resources | null;
  /** Own development cards by type; null for the others. */
  readonly devHand: DevCards | null;
}

export interface ClientTrade {
  readonly id: number;
  readonly player: number;
  readonly offer: ResourceCounts;
  readonly request: ResourceCounts;
  readonly acceptedBy: readonly number[];
}

export interface Pieces {
  readonly corners: readonly number[];
  readonly cities: readonly boolean[];
  readonly roads: readonly number[];
}

const NO_PIECES: Pieces = { corners: Array<number>(CORNER_COUNT).fill(-1), cities: Array<boolean>(CORNER_COUNT).fill(false), roads: Array<number>(EDGE_COUNT).fill(-1) };

export type ClientStage = 'connecting' | 'lobby' | 'game' | 'over';

export interface ClientView {
  readonly me: number | null;
  readonly stage: ClientStage;
  /** Lobby order; turn order once the game has started. */
  readonly players: readonly ClientPlayer[];
  /** The Karte of `Spiel gestartet` (its `buildings` as they were then). */
  readonly map: WireMap | null;
  readonly robber: string | null;
  /** Every placement so far (a Stadt replaces its Dorf), `Ort` canonical. */
  readonly buildings: readonly WireBuilding[];
  /** The same by the rules' corner and edge ids: the owner's id or −1, and which corners hold a Stadt. */
  readonly pieces: Pieces;
  /** The player whose turn it is. */
  readonly active: number | null;
  readonly dice: readonly [number, number] | null;
  readonly trades: readonly ClientTrade[];
  readonly longestRoad: number | null;
  readonly largestArmy: number | null;
  /** Own turn: a card was played already. */
  readonly devCardPlayed: boolean;
  /** Own cards bought this turn (not playable yet). */
  readonly boughtThisTurn: DevCards;
  /** The corner of the own setup Dorf just placed (its road must touch it). */
  readonly setupCorner: string | null;
  /** Cards to discard now (after a 7). */
  readonly discard: number;
  readonly bankCards: number;
  readonly deckCards: number;
  readonly result: { readonly message: string; readonly winner: number | null } | null;
  readonly chat: readonly { readonly sender: number | null; readonly text: string }[];
}

const ACTIVE: ReadonlySet<Status> = new Set<Status>(['Dorf bauen', 'Strasse bauen', 'Wuerfeln', 'Raeuber versetzen', 'Handeln oder Bauen']);
const BANK_TOTAL = RESOURCES.reduce((n, r) => n + BANK_START[r], 0);
const KEEP_CHAT = 20;

const sum = (r: Readonly<Record<string, number | undefined>>): number => Object.values(r).reduce<number>((n, v) => n + (v ?? 0), 0);

type MutablePlayer = { -readonly [K in keyof ClientPlayer]: ClientPlayer[K] };

export class ClientGame {
  me: number | null = null;
  private stage: ClientStage = 'connecting';
  private players: MutablePlayer[] = [];
  private order: number[] | null = null;
  private map: WireMap | null = null;
  private robber: string | null = null;
  private readonly buildings = new Map<string, WireBuilding>();
  /** Replaced, never changed, so views can share it. */
  private pieces: Pieces = NO_PIECES;
  private active: number | null = null;
  private dice: readonly [number, number] | null = null;
  private readonly trades = new Map<number, ClientTrade>();
  private longestRoad: number | null = null;
  private largestArmy: number | null = null;
  private devCardPlayed = false;
  private boughtThisTurn: DevCards = NO_DEV_CARDS;
  private setupCorner: string | null = null;
  private discard = 0;
  private played = 0;
  private result: ClientView['result'] = null;
  private chat: { sender: number | null; text: string }[] = [];

  view(): ClientView {
    return {
      me: this.me,
      stage: this.stage,
      players: this.players.map((p) => ({ ...p })),
      map: this.map,
      robber: this.robber,
      buildings: [...this.buildings.values()],
      pieces: this.pieces,
      active: this.active,
      dice: this.dice,
      trades: [...this.trades.values()],
      longestRoad: this.longestRoad,
      largestArmy: this.largestArmy,
      devCardPlayed: this.devCardPlayed,
      boughtThisTurn: this.boughtThisTurn,
      setupCorner: this.setupCorner,
      discard: this.discard,
      bankCards: BANK_TOTAL - this.players.reduce((n, p) => n + p.cards, 0),
      deckCards: DECK.length - this.played - this.players.reduce((n, p) => n + p.devCards, 0),
      result: this.result,
      chat: [...this.chat],
    };
  }

  /** The own player, once known. */
  get self(): ClientPlayer | undefined {
    return this.players.find((p) => p.id === this.me);
  }

  get inGame(): boolean {
    return this.stage === 'game';
  }

  /** Ids of open offers by others (cheaper than a whole view). */
  offersByOthers(): number[] {
    const out: number[] = [];
    for (const t of this.trades.values()) if (t.player !== this.me) out.push(t.id);
    return out;
  }

  apply(m: ServerMessage): void {
    switch (m.type) {
      case 'welcome':
        this.me = m.id;
        this.stage = 'lobby';
        return;
      case 'gameStarted':
        this.stage = 'game';
        this.map = m.map;
        this.robber = m.map.robber;
        this.buildings.clear();
        this.pieces = NO_PIECES;
        for (const b of m.map.buildings) this.place(b);
        this.order = [];
        return;
      case 'gameOver':
        this.stage = 'over';
        this.result = { message: m.message, winner: m.winner ?? null };
        return;
      case 'chat':
        this.chat.push({ sender: m.sender ?? null, text: m.text });
        if (this.chat.length > KEEP_CHAT) this.chat.shift();
        return;
      case 'status':
        this.status(m.player);
        return;
      case 'rolled':
        this.dice = m.dice;
        return;
      case 'gained':
      case 'paid':
        this.transfer(m.player, m.resources, m.type === 'gained' ? 1 : -1);
        return;
      case 'robberMoved':
        this.robber = m.hex;
        return;
      case 'built':
        this.built(m.player, { owner: m.player, piece: m.piece, at: canonical(m.at) });
        return;
      case 'devCardBought':
        if (m.player === this.me && m.card !== 'Unbekannt') this.boughtThisTurn = { ...this.boughtThisTurn, [m.card]: this.boughtThisTurn[m.card] + 1 };
        return;
      case 'knightPlayed':
        this.robber = m.hex;
        this.cardPlayed(m.player);
        return;
      case 'roadBuildingPlayed':
      case 'monopolyPlayed':
      case 'yearOfPlentyPlayed':
        this.cardPlayed(m.player);
        return;
      case 'longestRoad':
        this.longestRoad = m.player;
        return;
      case 'largestArmy':
        this.largestArmy = m.player;
        return;
      case 'tradeOffered':
        this.trades.set(m.tradeId, { id: m.tradeId, player: m.player, offer: m.offer, request: m.request, acceptedBy: [] });
        return;
      case 'tradeAccepted': {
        const t = this.trades.get(m.tradeId);
        if (t && !t.acceptedBy.includes(m.player)) this.trades.set(t.id, { ...t, acceptedBy: [...t.acceptedBy, m.player] });
        return;
      }
      case 'tradeCompleted':
        this.trades.delete(m.tradeId);
        return;
      case 'tradeCancelled': {
        const t = this.trades.get(m.tradeId);
        if (!t) return;
        if (t.player === m.player) this.trades.delete(m.tradeId);
        else this.trades.set(t.id, { ...t, acceptedBy: t.acceptedBy.filter((p) => p !== m.player) });
        return;
      }
      case 'hello':
      case 'answer':
      case 'error':
        return;
    }
  }

  private status(w: Extract<ServerMessage, { type: 'status' }>['player']): void {
    const own = w.id === this.me;
    if (w.status === 'Verbindung verloren' && this.stage === 'lobby') {
      this.players = this.players.filter((p) => p.id !== w.id);
      return;
    }
    let p = this.players.find((x) => x.id === w.id);
    const before = p?.status ?? null;
    if (!p) {
      p = { id: w.id, name: null, colour: null, status: w.status, points: 0, cards: 0, devCards: 0, knights: 0, resources: null, devHand: null };
      this.players.push(p);
    }
    p.name = w.name ?? p.name;
    p.colour = w.colour ?? p.colour;
    p.status = w.status;
    p.points = w.points;
    p.knights = w.knights;
    if ('Unbekannt' in w.resources) p.cards = w.resources.Unbekannt;
    else {
      p.cards = sum(w.resources);
      if (own) p.resources = w.resources;
    }
    if ('Unbekannt' in w.devCards) p.devCards = w.devCards.Unbekannt;
    else {
      p.devCards = sum(w.devCards);
      if (own) p.devHand = w.devCards;
    }
    if (ACTIVE.has(w.status)) this.active = w.id;
    if (this.order && !this.order.includes(w.id)) {
      this.order.push(w.id);
      // The first Statusupdates after `Spiel gestartet` come in turn order (catan.md §2.7).
      if (this.order.length === this.players.length) {
        const order = this.order;
        this.players.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
      }
    }
    if (!own || before === w.status) return;
    // A new turn: nothing played yet; cards bought last turn are playable now.
    if (w.status === 'Wuerfeln' || (before === 'Handeln oder Bauen' && w.status === 'Warten')) {
      this.devCardPlayed = false;
      this.boughtThisTurn = NO_DEV_CARDS;
    }
    if (w.status === 'Karten wegen Raeuber abgeben') this.discard = Math.floor(p.cards / 2);
    else this.discard = 0;
    if (w.status !== 'Strasse bauen') this.setupCorner = null;
  }

  private transfer(player: number, r: ResourceCounts | { Unbekannt: number }, sign: 1 | -1): void {
    const p = this.players.find((x) => x.id === player);
    if (!p) return;
    const n = 'Unbekannt' in r ? r.Unbekannt : sum(r);
    p.cards = Math.max(0, p.cards + sign * n);
    if (p.resources && !('Unbekannt' in r)) {
      const next = { ...p.resources };
      for (const k of RESOURCES) next[k] = Math.max(0, next[k] + sign * (r[k] ?? 0));
      p.resources = next;
    }
  }

  private place(b: WireBuilding): void {
    const at = canonical(b.at);
    this.buildings.set(at, { ...b, at });
    if (b.piece === 'Strasse') {
      const e = parseEdge(at);
      if (e < 0) return;
      const roads = this.pieces.roads.slice();
      roads[e] = b.owner;
      this.pieces = { ...this.pieces, roads };
    } else {
      const c = parseCorner(at);
      if (c < 0) return;
      const corners = this.pieces.corners.slice();
      const cities = this.pieces.cities.slice();
      corners[c] = b.owner;
      cities[c] = b.piece === 'Stadt';
      this.pieces = { ...this.pieces, corners, cities };
    }
  }

  private built(player: number, b: WireBuilding): void {
    this.place(b);
    const me = this.self;
    if (player === this.me && b.piece === 'Dorf' && me?.status === 'Dorf bauen') this.setupCorner = b.at;
  }

  private cardPlayed(player: number): void {
    this.played++;
    if (player === this.me) this.devCardPlayed = true;
  }
}

