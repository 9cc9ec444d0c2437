import { censorPlayer, type SeenPlayer, type Viewer } from './events.js';
import type { Board, Harbour } from './rules/board.js';
import { CORNER_COUNT, CORNER_NAMES, EDGE_COUNT, EDGE_NAMES, HEX_LETTERS, LAND_COUNT, hexLetter } from './rules/geometry.js';
import { total } from './rules/resources.js';
import { snapshot, type Phase, type State } from './rules/state.js';
import type { DevCards, FieldType, Piece, ResourceCounts } from './rules/types.js';

/**
 * What one player (or a spectator) may know, and nothing more: the board and every placement,
 * each player's public side (points without hidden Siegpunkt cards, card counts, knights, pieces
 * left, road length), open offers, and the viewer's own hand in full. Never the deck order, the
 * RNG state or the bank's composition (which, with the hands of the others, would give away what
 * discards and sea trades hid); only the bank's and the deck's card counts.
 */
export interface View {
  readonly viewer: Viewer;
  readonly board: BoardView;
  readonly buildings: readonly BuildingView[];
  readonly players: readonly PlayerView[];
  readonly phase: Phase;
  /** Id of the active player. */
  readonly turn: number;
  readonly turnNumber: number;
  readonly dice: readonly [number, number] | null;
  readonly devCardPlayed: boolean;
  readonly bankCards: number;
  readonly deckCards: number;
  readonly trades: readonly TradeView[];
  readonly longestRoad: number | null;
  readonly largestArmy: number | null;
  readonly winner: number | null;
}

export interface BoardView {
  /** All 37 fields (land A–S, then sea a–r), as the `Karte` lists them. */
  readonly fields: readonly { readonly at: string; readonly type: FieldType; readonly number: number | null }[];
  readonly harbours: readonly Harbour[];
  readonly robber: string;
}

export interface BuildingView {
  readonly owner: number;
  readonly piece: Piece;
  readonly at: string;
}

export interface PlayerView extends SeenPlayer {
  /** Resource cards in hand (public: every Ertrag and Kosten shows its count). */
  readonly cards: number;
  /** Cards still to discard after a 7. */
  readonly discard: number;
  /** Own view only: the cards bought this turn (not playable yet). */
  readonly boughtThisTurn: DevCards | null;
  readonly roadLength: number;
  readonly roadsLeft: number;
  readonly settlementsLeft: number;
  readonly citiesLeft: number;
}

export interface TradeView {
  readonly id: number;
  readonly player: number;
  readonly offer: ResourceCounts;
  readonly request: ResourceCounts;
  readonly acceptedBy: readonly number[];
}

const fieldsCache = new WeakMap<Board, BoardView['fields']>();

function fields(board: Board): BoardView['fields'] {
  let cached = fieldsCache.get(board);
  if (!cached) {
    cached = HEX_LETTERS.map((at, hex) => {
      const land = hex < LAND_COUNT ? board.land[hex]! : null;
      return land ? { at, type: land.terrain, number: land.number } : { at, type: 'Meer' as const, number: null };
    });
    fieldsCache.set(board, cached);
  }
  return cached;
}

export function boardView(s: State): BoardView {
  return { fields: fields(s.board), harbours: s.board.harbours, robber: hexLetter(s.robber) };
}

export function buildingsView(s: State): BuildingView[] {
  const out: BuildingView[] = [];
  for (let c = 0; c < CORNER_COUNT; c++) {
    const b = s.buildings[c]!;
    if (b !== -1) out.push({ owner: s.players[b >> 1]!.id, piece: b & 1 ? 'Stadt' : 'Dorf', at: CORNER_NAMES[c]! });
  }
  for (let e = 0; e < EDGE_COUNT; e++) {
    const r = s.roads[e]!;
    if (r !== -1) out.push({ owner: s.players[r]!.id, piece: 'Strasse', at: EDGE_NAMES[e]! });
  }
  return out;
}

export function view(s: State, viewer: Viewer): View {
  const players = s.players.map((p, seat): PlayerView => {
    const own = p.id === viewer;
    const full = snapshot(p);
    const seen: SeenPlayer = own ? full : censorPlayer(full, p.points, s.winner === seat);
    return {
      ...seen,
      cards: total(p.resources),
      discard: s.discards[seat]!,
      boughtThisTurn: own ? p.boughtThisTurn : null,
      roadLength: p.roadLength,
      roadsLeft: p.roadsLeft,
      settlementsLeft: p.settlementsLeft,
      citiesLeft: p.citiesLeft,
    };
  });
  const id = (seat: number | null): number | null => (seat === null ? null : s.players[seat]!.id);
  return {
    viewer,
    board: boardView(s),
    buildings: buildingsView(s),
    players,
    phase: s.phase,
    turn: s.players[s.turn]!.id,
    turnNumber: s.turnNumber,
    dice: s.dice,
    devCardPlayed: s.devCardPlayed,
    bankCards: total(s.bank),
    deckCards: s.deck.length - s.drawn,
    trades: s.trades.map((t) => ({ id: t.id, player: s.players[t.seat]!.id, offer: t.offer, request: t.request, acceptedBy: t.acceptedBy.map((a) => s.players[a]!.id) })),
    longestRoad: id(s.longestRoad),
    largestArmy: id(s.largestArmy),
    winner: id(s.winner),
  };
}
