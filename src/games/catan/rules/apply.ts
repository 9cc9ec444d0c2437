import { err, ok, type Result } from '../../../core/result.js';
import type { GameEvent } from '../events.js';
import { buildCity, buildRoad, buildSettlement, buyDevCard } from './build.js';
import { playKnight, playMonopoly, playRoadBuilding, playYearOfPlenty } from './dev-cards.js';
import { draftOf, freeze, setPlayer, type Draft } from './draft.js';
import { ruleError, type RuleError, type RuleErrorCode } from './errors.js';
import { parseCorner, parseEdge, parseLandHex } from './geometry.js';
import { checkRobberMove, discard, moveRobber } from './robber.js';
import { placeSetupRoad, placeSetupSettlement } from './setup.js';
import { WINNING_POINTS, seatOf, snapshot, totalPoints, type Player, type State } from './state.js';
import { acceptTrade, cancelTrade, completeTrade, offerTrade, seaTrade } from './trade.js';
import { endTurn, roll } from './turn.js';
import type { Action, Piece, Status } from './types.js';

export interface Step {
  readonly state: State;
  readonly events: readonly GameEvent[];
}

const MAIN: readonly Status[] = ['Handeln oder Bauen'];
const CARD: readonly Status[] = ['Wuerfeln', 'Handeln oder Bauen'];

/** The statuses an action is allowed in; `null`: not bound to the turn (trade answers). */
const ALLOWED: Readonly<Record<Action['type'], readonly Status[] | null>> = {
  roll: ['Wuerfeln'],
  discard: ['Karten wegen Raeuber abgeben'],
  moveRobber: ['Raeuber versetzen'],
  build: ['Dorf bauen', 'Strasse bauen', 'Handeln oder Bauen'],
  buyDevCard: MAIN,
  playKnight: CARD,
  playRoadBuilding: CARD,
  playMonopoly: CARD,
  playYearOfPlenty: CARD,
  seaTrade: MAIN,
  offerTrade: MAIN,
  acceptTrade: null,
  completeTrade: MAIN,
  cancelTrade: null,
  endTurn: MAIN,
};

function gate(s: State, seat: number, action: Action): RuleErrorCode | null {
  if (s.phase === 'over') return 'game-over';
  const allowed = ALLOWED[action.type];
  if (allowed === null) return null;
  // Discarding is the one acting status a player can have outside their own turn.
  if (action.type !== 'discard' && seat !== s.turn) return 'not-your-turn';
  return allowed.includes(s.players[seat]!.status) ? null : 'wrong-status';
}

function run(d: Draft, seat: number, action: Action): RuleErrorCode | null {
  switch (action.type) {
    case 'roll':
      return roll(d, seat, action.dice);
    case 'discard':
      return discard(d, seat, action.cards);
    case 'moveRobber': {
      const hex = parseLandHex(action.hex);
      const checked = checkRobberMove(d, seat, hex, action.victim);
      if (typeof checked === 'string') return checked;
      moveRobber(d, seat, hex, checked);
      d.phase = 'main';
      setPlayer(d, seat, { status: 'Handeln oder Bauen' });
      return null;
    }
    case 'build':
      return build(d, seat, action.piece, action.at);
    case 'buyDevCard':
      return buyDevCard(d, seat);
    case 'playKnight':
      return playKnight(d, seat, action.hex, action.victim);
    case 'playRoadBuilding':
      return playRoadBuilding(d, seat, action.road1, action.road2);
    case 'playMonopoly':
      return playMonopoly(d, seat, action.resource);
    case 'playYearOfPlenty':
      return playYearOfPlenty(d, seat, action.resources);
    case 'seaTrade':
      return seaTrade(d, seat, action.offer, action.request);
    case 'offerTrade':
      return offerTrade(d, seat, action.offer, action.request);
    case 'acceptTrade':
      return acceptTrade(d, seat, action.tradeId);
    case 'completeTrade':
      return completeTrade(d, seat, action.tradeId, action.partner);
    case 'cancelTrade':
      return cancelTrade(d, seat, action.tradeId);
    case 'endTurn':
      return endTurn(d, seat);
  }
}

function build(d: Draft, seat: number, piece: Piece, at: string): RuleErrorCode | null {
  const status = d.players[seat]!.status;
  if (status === 'Dorf bauen' || status === 'Strasse bauen') {
    if (piece !== (status === 'Dorf bauen' ? 'Dorf' : 'Strasse')) return 'wrong-status';
    if (piece === 'Dorf') {
      const corner = parseCorner(at);
      return corner < 0 ? 'invalid-place' : placeSetupSettlement(d, seat, corner);
    }
    const edge = parseEdge(at);
    return edge < 0 ? 'invalid-place' : placeSetupRoad(d, seat, edge);
  }
  if (piece === 'Strasse') {
    const edge = parseEdge(at);
    return edge < 0 ? 'invalid-place' : buildRoad(d, seat, edge);
  }
  const corner = parseCorner(at);
  if (corner < 0) return 'invalid-place';
  return piece === 'Dorf' ? buildSettlement(d, seat, corner) : buildCity(d, seat, corner);
}

const sameSnapshot = (a: Player, b: Player): boolean =>
  a === b ||
  (a.status === b.status &&
    a.points === b.points &&
    a.knights === b.knights &&
    a.resources.Holz === b.resources.Holz &&
    a.resources.Lehm === b.resources.Lehm &&
    a.resources.Wolle === b.resources.Wolle &&
    a.resources.Getreide === b.resources.Getreide &&
    a.resources.Erz === b.resources.Erz &&
    a.devCards.Ritter === b.devCards.Ritter &&
    a.devCards.Strassenbau === b.devCards.Strassenbau &&
    a.devCards.Monopol === b.devCards.Monopol &&
    a.devCards.Erfindung === b.devCards.Erfindung &&
    a.devCards.Siegpunkt === b.devCards.Siegpunkt);

/**
 * Checks for a win (the active player at ≥ 10 points, hidden cards included, outside setup), then
 * appends one Statusupdate per changed player, actor first, then the others in turn order from
 * the actor, and `gameWon` last (§2.7). The winner's update reveals the true points.
 */
function finish(before: State, d: Draft, actor: number): void {
  let won = false;
  if (d.phase !== 'over' && d.phase !== 'setupSettlement' && d.phase !== 'setupRoad') {
    if (totalPoints(d.players[d.turn]!) >= WINNING_POINTS) {
      d.phase = 'over';
      d.winner = d.turn;
      won = true;
    }
  }
  const n = d.players.length;
  for (let k = 0; k < n; k++) {
    const seat = (actor + k) % n;
    const p = d.players[seat]!;
    const reveal = won && seat === d.winner;
    if (!reveal && sameSnapshot(before.players[seat]!, p)) continue;
    d.events.push({ type: 'playerUpdated', player: snapshot(p), publicPoints: p.points, reveal });
  }
  if (won) {
    const w = d.players[d.turn]!;
    d.events.push({ type: 'gameWon', player: w.id, name: w.name });
  }
}

/**
 * Applies one client action for the player with protocol id `playerId`. A refused action changes
 * nothing and yields the error to send as `Fehler`; an accepted one yields the next state and its
 * events in wire order (the server then sends OK).
 */
export function apply(state: State, playerId: number, action: Action): Result<Step, RuleError> {
  const seat = seatOf(state, playerId);
  if (seat < 0) return err(ruleError('unknown-player'));
  const refused = gate(state, seat, action);
  if (refused) return err(ruleError(refused));
  const d = draftOf(state);
  const problem = run(d, seat, action);
  if (problem) return err(ruleError(problem));
  finish(state, d, seat);
  return ok({ state: freeze(d), events: d.events });
}

/**
 * D9: a player's connection is lost during the game. The game ends without a winner: that player's
 * Statusupdate (`Verbindung verloren`), then `gameAborted` (`Spiel beendet` without `Sieger`).
 */
export function abort(state: State, playerId: number): Result<Step, RuleError> {
  const seat = seatOf(state, playerId);
  if (seat < 0) return err(ruleError('unknown-player'));
  if (state.phase === 'over') return err(ruleError('game-over'));
  const d = draftOf(state);
  const p = setPlayer(d, seat, { status: 'Verbindung verloren' });
  d.phase = 'over';
  d.events.push({ type: 'playerUpdated', player: snapshot(p), publicPoints: p.points, reveal: false });
  d.events.push({ type: 'gameAborted', player: p.id, name: p.name });
  return ok({ state: freeze(d), events: d.events });
}

export type GameStatus =
  | { readonly kind: 'running'; readonly phase: State['phase']; readonly turn: number; readonly toAct: readonly number[] }
  | { readonly kind: 'won'; readonly winner: number; readonly points: number }
  | { readonly kind: 'aborted'; readonly disconnected: readonly number[] };

const ACTING: readonly Status[] = ['Dorf bauen', 'Strasse bauen', 'Wuerfeln', 'Karten wegen Raeuber abgeben', 'Raeuber versetzen', 'Handeln oder Bauen'];

/** Running (whose turn, who must act, by id), won (by whom, with how many points) or aborted. */
export function status(s: State): GameStatus {
  if (s.winner !== null) {
    const w = s.players[s.winner]!;
    return { kind: 'won', winner: w.id, points: totalPoints(w) };
  }
  if (s.phase === 'over') return { kind: 'aborted', disconnected: s.players.filter((p) => p.status === 'Verbindung verloren').map((p) => p.id) };
  return {
    kind: 'running',
    phase: s.phase,
    turn: s.players[s.turn]!.id,
    toAct: s.players.filter((p) => ACTING.includes(p.status)).map((p) => p.id),
  };
}
