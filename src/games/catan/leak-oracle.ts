import { censorEvent, type GameEvent, type SeenEvent, type TransferCause, type Viewer } from './events.js';
import { total } from './rules/resources.js';
import { DECK, type State } from './rules/state.js';
import { DEV_CARDS, RESOURCES, type DevCard, type ResourceCounts } from './rules/types.js';
import { view, type View } from './view.js';

/**
 * The leak oracle: given a game's full history and everything one viewer was sent, it reports
 * anything in those messages that the viewer could not have known.
 *
 * It keeps its own model of what the viewer may know, driven by the full-information events and
 * catan.md's rules of visibility (not by the censoring code it checks): every card count is public
 * (each Ertrag and Kosten shows one); card types are public for production, setup yields, building
 * and purchase costs, domestic trades, Monopol and Erfindung; a steal's type is known to thief and
 * victim only; discards, sea-trade types and unplayed development cards are private. From that it
 * tracks, per other player, the exact hand size and per-resource lower and upper bounds, the number
 * of unplayed development cards, the public points, and which card types could still be unknown.
 *
 * A message leaks when it states something the model does not pin down: another player's cards by
 * type, a card count or point total that differs from the public one, the type of another player's
 * development card, the bank's composition, or the deck order or RNG state anywhere at all.
 */

export interface HistoryEntry {
  readonly state: State;
  readonly events: readonly GameEvent[];
}

/** What a viewer received after one history entry: the events as censored for it, and perhaps a view. */
export interface Delivery {
  readonly events: readonly SeenEvent[];
  readonly view?: View;
}

export interface LeakFinding {
  /** Index into the history. */
  readonly at: number;
  readonly viewer: Viewer;
  /** The player whose secret leaked, if it is one player's. */
  readonly subject: number | null;
  readonly what: string;
}

/** The honest transcript: our own censoring of every event, and (optionally) our view after every entry. */
export function deliveriesFor(history: readonly HistoryEntry[], viewer: Viewer, withViews = true): Delivery[] {
  return history.map((h) => ({
    events: h.events.map((e) => censorEvent(e, viewer)),
    ...(withViews ? { view: view(h.state, viewer) } : {}),
  }));
}

const PUBLIC_TYPES: ReadonlySet<TransferCause> = new Set(['setup', 'production', 'build', 'devCard', 'trade', 'monopoly', 'yearOfPlenty']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasAny = (o: Record<string, unknown>, keys: readonly string[]): boolean => keys.some((k) => k in o);
const num = (o: Record<string, unknown>, k: string): number => (typeof o[k] === 'number' ? o[k] : 0);

/** What the viewer may know about one other player. */
interface Other {
  total: number;
  lo: number[];
  hi: number[];
  dev: number;
  points: number;
}

class Knowledge {
  readonly others = new Map<number, Other>();
  /** Development cards the viewer cannot see: the deck plus others' unplayed cards, by type. */
  readonly unknownPool = new Map<DevCard, number>();
  longestRoad: number | null = null;
  largestArmy: number | null = null;
  winner: number | null = null;
  private thief: number | null = null;
  private victim: number | null = null;

  constructor(
    start: State,
    readonly viewer: Viewer,
  ) {
    for (const p of start.players) {
      if (p.id !== viewer) this.others.set(p.id, { total: 0, lo: [0, 0, 0, 0, 0], hi: [0, 0, 0, 0, 0], dev: 0, points: 0 });
    }
    for (const c of DECK) this.unknownPool.set(c, (this.unknownPool.get(c) ?? 0) + 1);
  }

  private typesVisible(subject: number, cause: TransferCause): boolean {
    if (PUBLIC_TYPES.has(cause)) return true;
    return cause === 'steal' && (this.viewer === this.thief || this.viewer === this.victim) && (subject === this.thief || subject === this.victim);
  }

  private move(o: Other, cards: ResourceCounts, sign: 1 | -1, known: boolean): void {
    const n = total(cards);
    o.total += sign * n;
    RESOURCES.forEach((r, i) => {
      if (known) {
        const k = sign * (cards[r] ?? 0);
        o.lo[i] = Math.max(0, o.lo[i]! + k);
        o.hi[i] = o.hi[i]! + k;
      } else if (sign > 0) o.hi[i] = o.hi[i]! + n;
      else o.lo[i] = Math.max(0, o.lo[i]! - n);
    });
    // Tighten with the exact hand size.
    for (let pass = 0; pass < 2; pass++) {
      const sumLo = o.lo.reduce((a, b) => a + b, 0);
      const sumHi = o.hi.reduce((a, b) => a + b, 0);
      for (let i = 0; i < 5; i++) {
        o.hi[i] = Math.min(o.hi[i]!, o.total - (sumLo - o.lo[i]!));
        o.lo[i] = Math.max(o.lo[i]!, o.total - (sumHi - o.hi[i]!));
      }
    }
  }

  private played(player: number, card: DevCard): void {
    const o = this.others.get(player);
    if (!o) return;
    o.dev -= 1;
    this.unknownPool.set(card, this.unknownPool.get(card)! - 1);
  }

  private award(before: number | null, after: number | null): void {
    if (before !== null) this.adjustPoints(before, -2);
    if (after !== null) this.adjustPoints(after, 2);
  }

  private adjustPoints(player: number, delta: number): void {
    const o = this.others.get(player);
    if (o) o.points += delta;
  }

  learn(e: GameEvent): void {
    switch (e.type) {
      case 'robberMoved':
        this.thief = e.player;
        this.victim = e.victim ?? null;
        break;
      case 'gained':
      case 'paid': {
        const o = this.others.get(e.player);
        if (!o) break;
        if (e.cause === 'monopoly' && e.type === 'paid') {
          // Handing over every card of a type shows how many of it there were.
          const i = RESOURCES.findIndex((r) => (e.resources[r] ?? 0) > 0);
          o.lo[i] = o.hi[i] = e.resources[RESOURCES[i]!]!;
        }
        this.move(o, e.resources, e.type === 'gained' ? 1 : -1, this.typesVisible(e.player, e.cause));
        break;
      }
      case 'devCardBought': {
        const o = this.others.get(e.player);
        if (o) o.dev += 1;
        else this.unknownPool.set(e.card, this.unknownPool.get(e.card)! - 1);
        break;
      }
      case 'knightPlayed':
        this.played(e.player, 'Ritter');
        break;
      case 'roadBuildingPlayed':
        this.played(e.player, 'Strassenbau');
        break;
      case 'monopolyPlayed':
        this.played(e.player, 'Monopol');
        break;
      case 'yearOfPlentyPlayed':
        this.played(e.player, 'Erfindung');
        break;
      case 'built':
        if (e.piece !== 'Strasse') this.adjustPoints(e.player, 1);
        break;
      case 'longestRoad':
        this.award(this.longestRoad, e.player);
        this.longestRoad = e.player;
        break;
      case 'largestArmy':
        this.award(this.largestArmy, e.player);
        this.largestArmy = e.player;
        break;
      case 'gameWon':
        this.winner = e.player;
        break;
      default:
        break;
    }
  }

  /** Whether the viewer could work out the other player's development cards by type. */
  devPinned(player: number): boolean {
    const o = this.others.get(player)!;
    if (o.dev === 0) return true;
    const left = [...this.unknownPool.values()];
    const unknown = left.reduce((a, b) => a + b, 0);
    return left.filter((k) => k > 0).length === 1 || o.dev === unknown;
  }
}

/** Checks a viewer's transcript against the history. An empty list means nothing leaked. */
export function findLeaks(history: readonly HistoryEntry[], viewer: Viewer, deliveries: readonly Delivery[]): LeakFinding[] {
  const findings: LeakFinding[] = [];
  if (history.length === 0) return findings;
  const know = new Knowledge(history[0]!.state, viewer);
  history.forEach((h, at) => {
    const note = (subject: number | null, what: string): void => {
      findings.push({ at, viewer, subject, what });
    };
    // Everything this entry made public, and the viewer's own secrets, before judging what was sent.
    for (const e of h.events) know.learn(e);
    const d = deliveries[at];
    if (!d) return;
    checkSecrets(h.state, d, note);
    for (const e of d.events) checkEvent(know, h, e, note);
    if (d.view) checkView(know, h.state, d.view, note);
  });
  return findings;
}

type Note = (subject: number | null, what: string) => void;

const canaryCache = new WeakMap<State, readonly (readonly [string, string])[]>();

/** Strings whose presence anywhere in a message gives away the deck order or the RNG state. */
function canaries(s: State): readonly (readonly [string, string])[] {
  let out = canaryCache.get(s);
  if (!out) {
    const list: [string, string][] = [
      [JSON.stringify(s.rng).slice(1, -1), 'the RNG state'],
      [JSON.stringify(s.deck).slice(1, -1), 'the deck order'],
      ['"deck":', 'a deck field'],
      ['"rng":', 'an RNG field'],
    ];
    if (s.deck.length - s.drawn >= 3) list.push([JSON.stringify(s.deck.slice(s.drawn)).slice(1, -1), 'the order of the remaining deck']);
    out = list;
    canaryCache.set(s, out);
  }
  return out;
}

function checkSecrets(s: State, d: Delivery, note: Note): void {
  const text = JSON.stringify(d);
  for (const [canary, what] of canaries(s)) if (text.includes(canary)) note(null, `reveals ${what}`);
}

function checkResources(know: Knowledge, player: number, value: unknown, where: string, note: Note): void {
  const o = know.others.get(player);
  if (!o || !isObject(value)) return;
  if ('Unbekannt' in value) {
    if (value.Unbekannt !== o.total) note(player, `${where}: ${String(value.Unbekannt)} cards, but ${o.total} are public`);
  }
  if (!hasAny(value, RESOURCES)) return;
  RESOURCES.forEach((r, i) => {
    const shown = num(value, r);
    if (!(o.lo[i] === o.hi[i] && o.lo[i] === shown)) note(player, `${where}: shows ${shown} ${r}, which is not public (${o.lo[i]!}–${o.hi[i]!})`);
  });
}

function checkDevCards(know: Knowledge, player: number, value: unknown, where: string, note: Note): void {
  const o = know.others.get(player);
  if (!o || !isObject(value)) return;
  if ('Unbekannt' in value && value.Unbekannt !== o.dev) note(player, `${where}: ${String(value.Unbekannt)} development cards, but ${o.dev} are public`);
  if (hasAny(value, DEV_CARDS) && DEV_CARDS.some((c) => num(value, c) > 0) && !know.devPinned(player)) {
    note(player, `${where}: shows development cards by type`);
  }
}

/** A player object (Statusupdate or view entry) about someone else; every nested object is judged too. */
function checkPlayer(know: Knowledge, s: State, entry: Record<string, unknown>, where: string, note: Note): void {
  const id = entry.id;
  if (typeof id !== 'number' || id === know.viewer) return;
  const o = know.others.get(id);
  if (!o) return;
  const revealed = know.winner === id;
  const truePoints = (() => {
    const p = s.players.find((x) => x.id === id);
    return p ? p.points + p.devCards.Siegpunkt : o.points;
  })();
  if (typeof entry.points === 'number' && entry.points !== o.points && !(revealed && entry.points === truePoints)) {
    note(id, `${where}: ${entry.points} points, but ${o.points} are public`);
  }
  if (typeof entry.cards === 'number' && entry.cards !== o.total) note(id, `${where}: ${entry.cards} cards, but ${o.total} are public`);
  for (const [k, v] of Object.entries(entry)) {
    if (!isObject(v)) continue;
    if (hasAny(v, RESOURCES) || k === 'resources') checkResources(know, id, v, `${where}.${k}`, note);
    if (hasAny(v, DEV_CARDS) || k === 'devCards') checkDevCards(know, id, v, `${where}.${k}`, note);
  }
}

function checkEvent(know: Knowledge, h: HistoryEntry, e: SeenEvent, note: Note): void {
  switch (e.type) {
    case 'gained':
    case 'paid': {
      if (e.player === know.viewer) return;
      const truth = h.events.find((x) => x.type === e.type && x.player === e.player && x.cause === e.cause);
      const n = truth && (truth.type === 'gained' || truth.type === 'paid') ? total(truth.resources) : null;
      if ('Unbekannt' in e.resources) {
        if (n !== null && e.resources.Unbekannt !== n) note(e.player, `${e.type}: ${e.resources.Unbekannt} cards, but ${n} moved`);
        return;
      }
      const visible = PUBLIC_TYPES.has(e.cause) || (e.cause === 'steal' && stealParty(h, know.viewer));
      if (!visible) note(e.player, `${e.type} (${e.cause}) shows card types`);
      return;
    }
    case 'devCardBought':
      if (e.player !== know.viewer && e.card !== 'Unbekannt' && !know.devPinned(e.player)) note(e.player, 'a bought development card shows its type');
      return;
    case 'playerUpdated':
      checkPlayer(know, h.state, e.player as unknown as Record<string, unknown>, 'Statusupdate', note);
      return;
    default:
      return;
  }
}

function stealParty(h: HistoryEntry, viewer: Viewer): boolean {
  return h.events.some((x) => (x.type === 'robberMoved' || x.type === 'knightPlayed') && (x.player === viewer || x.victim === viewer));
}

function checkView(know: Knowledge, s: State, v: View, note: Note): void {
  const raw = v as unknown as Record<string, unknown>;
  for (const [k, value] of Object.entries(raw)) {
    if (k === 'players' && Array.isArray(value)) {
      value.forEach((entry: unknown, i) => {
        if (isObject(entry)) checkPlayer(know, s, entry, `view.players[${i}]`, note);
      });
    } else if (k === 'trades' || k === 'board' || k === 'buildings') {
      // Offers, the map and placements are public.
    } else if (isObject(value) && hasAny(value, RESOURCES)) {
      note(null, `view.${k} shows resources by type (the bank's composition is not public)`);
    } else if (k === 'bankCards' && value !== total(s.bank)) {
      note(null, `view.bankCards is ${String(value)}, but the bank holds ${total(s.bank)}`);
    } else if (k === 'deckCards' && value !== s.deck.length - s.drawn) {
      note(null, `view.deckCards is ${String(value)}`);
    }
  }
}
