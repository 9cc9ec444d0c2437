import type { MatchDetail } from '../../core/records.js';
import { censorEvent } from './events.js';
import { messagesFor, wireMap, type MessageContext } from './messages.js';
import { formatServer } from './protocol.js';
import {
  COLOURS,
  abort,
  apply,
  newGame,
  status,
  totalPoints,
  type Action,
  type Colour,
  type State,
} from './rules/index.js';
import { view, type View } from './view.js';

/**
 * A recorded Catan game replayed through the rules core: `newGame` from the recorded seed and
 * players draws the same board, turn order and deck, and every recorded action (the server's
 * stand-in moves included) must be accepted for the player who made it, rolling the recorded dice
 * and ending with the recorded result. The same replay gives the dashboard the public log of a
 * finished game (every message as a spectator gets it) and its final board.
 */

export interface CatanReplay {
  /** False when the record cannot be replayed (not Catan, a fixed test board, no players). */
  readonly checked: boolean;
  readonly problems: string[];
  /** The last state the replay reached, or null. */
  readonly state: State | null;
  /** The public lines of the game, as a spectator received them (the server's own chat lines excepted). */
  readonly lines: string[];
}

interface RecordedPlayer {
  id: number;
  name: string;
  colour: Colour;
}

interface Meta {
  players?: RecordedPlayer[];
  order?: number[];
  fixedBoard?: boolean;
  fixedOrder?: boolean;
}

interface ActionData {
  player?: number;
  action?: Action;
  dice?: [number, number];
}

interface Outcome {
  reason?: string;
  winner?: number | null;
  points?: Record<string, number>;
}

const isPlayer = (p: unknown): p is RecordedPlayer => {
  if (typeof p !== 'object' || p === null) return false;
  const r = p as Record<string, unknown>;
  return typeof r.id === 'number' && typeof r.name === 'string' && COLOURS.includes(r.colour as Colour);
};

export function replayCatanMatch(match: MatchDetail, options: { lines?: boolean } = {}): CatanReplay {
  const none = (problems: string[] = [], checked = false): CatanReplay => ({
    checked,
    problems,
    state: null,
    lines: [],
  });
  const meta = (match.meta ?? {}) as Meta;
  if (
    match.game !== 'catan' ||
    match.seed === null ||
    !Array.isArray(meta.players) ||
    !meta.players.every(isPlayer)
  )
    return none();
  // The board of a test fixture is not in the record.
  if (meta.fixedBoard) return none();
  const order = meta.order ?? [];
  const players = meta.fixedOrder ? order.map((id) => meta.players!.find((p) => p.id === id)) : meta.players;
  if (players.some((p) => p === undefined))
    return none(['the recorded turn order names players who are not seated'], true);
  const started = newGame({
    seed: match.seed,
    players: players as RecordedPlayer[],
    ...(meta.fixedOrder ? { fixedOrder: true } : {}),
  });
  if (!started.ok) return none([`the game cannot be dealt: ${started.error}`], true);
  let state = started.value.state;
  const problems: string[] = [];
  const drawn = state.players.map((p) => p.id);
  if (order.length > 0 && drawn.join(',') !== order.join(','))
    problems.push(`the seed draws the turn order ${drawn.join(', ')}, the record says ${order.join(', ')}`);

  const lines: string[] = [];
  const map = wireMap(state);
  const ctx: MessageContext = { map: () => map, order: () => state.players };
  const show = (events: Parameters<typeof censorEvent>[0][]): void => {
    if (!options.lines) return;
    for (const e of events)
      for (const m of messagesFor(censorEvent(e, 'spectator'), ctx)) lines.push(formatServer(m));
  };
  show(started.value.events);

  for (const e of match.events) {
    if (e.type === 'start') continue;
    const data = (e.data ?? {}) as ActionData;
    if (typeof data.player !== 'number') {
      problems.push(`event ${e.seq} (${e.type}) names no player`);
      break;
    }
    const step =
      e.type === 'disconnect'
        ? abort(state, data.player)
        : data.action
          ? apply(state, data.player, data.action)
          : null;
    if (!step) {
      problems.push(`event ${e.seq} (${e.type}) has no action`);
      break;
    }
    if (!step.ok) {
      problems.push(
        `event ${e.seq}: ${e.type} by ${data.player} is refused by the rules: ${step.error.message} (${step.error.code})`,
      );
      break;
    }
    const rolled = step.value.events.find((x) => x.type === 'rolled');
    if (data.dice && rolled?.type === 'rolled' && rolled.dice.join(',') !== data.dice.join(','))
      problems.push(
        `event ${e.seq}: the seed rolls ${rolled.dice.join('+')}, the record ${data.dice.join('+')}`,
      );
    state = step.value.state;
    show([...step.value.events]);
  }
  if (problems.length === 0) problems.push(...outcomeProblems(match, state));
  return { checked: true, problems, state, lines };
}

function outcomeProblems(match: MatchDetail, state: State): string[] {
  if (match.status === 'running') return [];
  const result = (match.result ?? {}) as Outcome;
  const s = status(state);
  const problems: string[] = [];
  if (result.reason === 'won') {
    if (s.kind !== 'won')
      problems.push(`the record says ${String(result.winner)} won, the rules say the game is ${s.kind}`);
    else if (s.winner !== result.winner)
      problems.push(`the rules give the win to ${s.winner}, the record to ${String(result.winner)}`);
  } else if (result.reason === 'disconnect') {
    if (s.kind !== 'aborted')
      problems.push(`the record says a player left, the rules say the game is ${s.kind}`);
  } else if (s.kind === 'won')
    problems.push(
      `the game was won by ${s.winner} by the rules, but the record says ${String(result.reason)}`,
    );
  if (result.points) {
    for (const p of state.players) {
      const recorded = result.points[String(p.id)];
      if (recorded !== undefined && recorded !== totalPoints(p))
        problems.push(`player ${p.id} has ${totalPoints(p)} points by the rules, ${recorded} in the record`);
    }
  }
  return problems;
}

/** `GameModule.verify`: the replay's verdict. */
export function verifyCatanMatch(match: MatchDetail): { checked: boolean; problems: string[] } {
  const r = replayCatanMatch(match);
  return { checked: r.checked, problems: r.problems };
}

/** The replay's final position as a spectator sees it (the winner's true points), or null. */
export function finalView(r: CatanReplay): View | null {
  return r.state ? view(r.state, 'spectator') : null;
}
