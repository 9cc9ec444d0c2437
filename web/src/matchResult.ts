import type { MatchRecord } from './types.js';

/**
 * A recorded result in words a table can show: who won (or lost, in Mia), the score and the
 * reason. Each game records its own shape (the games' finishMatch calls); what this does not
 * know stays `unknown` and the page shows the raw JSON. Reasons are protocol words and stay as
 * recorded.
 */
export type Outcome = 'won' | 'draw' | 'lost' | 'canceled' | 'aborted' | 'none' | 'unknown';

export interface ResultSummary {
  outcome: Outcome;
  /** The winner (won), the losers (lost, Mia), or null. */
  who: string | null;
  /** Points ("2 : 0"), or how long the game went. */
  score: { kind: 'points' | 'moves' | 'plies' | 'turns'; value: string } | null;
  reason: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const seatName = (m: MatchRecord, seat: unknown): string | null => {
  const n = num(seat);
  if (n === null) return null;
  return m.seats.find((s) => s.seat === n)?.name ?? `#${n}`;
};

function mia(m: MatchRecord, r: Obj): ResultSummary {
  const canceled = str(r.canceled);
  if (canceled !== null) return { outcome: 'canceled', who: null, score: null, reason: canceled };
  const losers = Array.isArray(r.losers) ? r.losers.filter((l): l is string => typeof l === 'string') : [];
  const reason = str(r.reason);
  if (losers.length > 0) return { outcome: 'lost', who: losers.join(', '), score: null, reason };
  return { outcome: m.status === 'aborted' ? 'aborted' : 'none', who: null, score: null, reason };
}

function catan(m: MatchRecord, r: Obj): ResultSummary {
  const points = isObj(r.points)
    ? Object.values(r.points)
        .map(num)
        .filter((p): p is number => p !== null)
    : [];
  const turns = num(r.turns);
  const score =
    points.length > 0
      ? { kind: 'points' as const, value: points.join(' : ') }
      : turns !== null
        ? { kind: 'turns' as const, value: String(turns) }
        : null;
  const who = str(r.winnerName);
  return {
    outcome: who !== null ? 'won' : m.status === 'aborted' ? 'aborted' : 'none',
    who,
    score,
    reason: str(r.reason),
  };
}

function connect4(m: MatchRecord, r: Obj): ResultSummary {
  const moves = str(r.moves);
  const score = moves === null ? null : { kind: 'moves' as const, value: String(moves.length) };
  const outcome = str(r.outcome);
  const who = str(r.winnerName) ?? seatName(m, r.winner);
  return {
    outcome:
      outcome === 'won' && who !== null
        ? 'won'
        : outcome === 'drawn'
          ? 'draw'
          : outcome === 'aborted'
            ? 'aborted'
            : 'unknown',
    who: outcome === 'won' ? who : null,
    score,
    reason: str(r.reason),
  };
}

function dame(m: MatchRecord, r: Obj): ResultSummary {
  const plies = num(r.plies);
  const score = plies === null ? null : { kind: 'plies' as const, value: String(plies) };
  const who = seatName(m, r.winner);
  const outcome: Outcome =
    who !== null ? 'won' : r.draw === true ? 'draw' : m.status === 'aborted' ? 'aborted' : 'none';
  return { outcome, who, score, reason: str(r.reason) };
}

function ostseeschach(m: MatchRecord, r: Obj): ResultSummary {
  const scores = Array.isArray(r.scores) ? r.scores.filter(isObj) : [];
  const parts = scores.map((s) => (Array.isArray(s.parts) ? num(s.parts[0]) : null));
  const score =
    scores.length === 2 ? { kind: 'points' as const, value: parts.map((p) => p ?? 0).join(' : ') } : null;
  const byTeam = (team: string): string | null => {
    const entry = scores.find((s) => s.team === team);
    return str(entry?.name) ?? seatName(m, team === 'ONE' ? 0 : 1) ?? team;
  };
  const winner = str(r.winner) ?? (parts[0] === 2 ? 'ONE' : parts[1] === 2 ? 'TWO' : null);
  const causes = scores
    .filter((s) => str(s.cause) !== null && s.cause !== 'REGULAR')
    .map((s) => `${String(s.team)}: ${String(s.cause)}`);
  const reason = str(r.reason) ?? (causes.length > 0 ? causes.join('; ') : null);
  if (winner !== null) return { outcome: 'won', who: byTeam(winner), score, reason };
  if (parts[0] === 1 && parts[1] === 1) return { outcome: 'draw', who: null, score, reason };
  return { outcome: m.status === 'aborted' ? 'aborted' : 'none', who: null, score, reason };
}

/** Any other game: a `winnerName` or `winner` seat if the result has one. */
function generic(m: MatchRecord, r: Obj): ResultSummary {
  const who = str(r.winnerName) ?? seatName(m, r.winner);
  if (who !== null) return { outcome: 'won', who, score: null, reason: str(r.reason) };
  return { outcome: 'unknown', who: null, score: null, reason: str(r.reason) };
}

const byGame: Record<string, (m: MatchRecord, r: Obj) => ResultSummary> = {
  mia,
  catan,
  connect4,
  dame,
  ostseeschach,
};

export function summarizeResult(m: MatchRecord): ResultSummary {
  if (!isObj(m.result)) {
    const outcome: Outcome = m.status === 'running' ? 'none' : m.status === 'aborted' ? 'aborted' : 'unknown';
    return { outcome, who: null, score: null, reason: null };
  }
  return (byGame[m.game] ?? generic)(m, m.result);
}

/** What `reasonText` needs of i18next: a lookup with values. */
export type Translate = (key: string, values: Record<string, unknown>) => string;

const DAME_CODES = new Set(['no-pieces', 'no-moves', 'repetition', 'fifty-moves', 'timeout', 'disconnect']);

/** One Connect Four forfeit: `<name> <why>` as the tournament writes it. */
function connect4Forfeit(part: string, t: Translate): string | null {
  const patterns: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^(.+) no move within (\d+) ms$/, (m) => t('reasonText.noMoveWithin', { name: m[1], ms: m[2] })],
    [/^(.+) went silent$/, (m) => t('reasonText.wentSilent', { name: m[1] })],
    [/^(.+) aborted the game \(stage 99\)$/, (m) => t('reasonText.abortedStage99', { name: m[1] })],
    [/^(.+) sent stage 5 without a final move$/, (m) => t('reasonText.noFinalMove', { name: m[1] })],
    [
      /^(.+) illegal move: column (\d+) at turn (\d+) \((.*)\)$/,
      (m) => t('reasonText.illegalColumn', { name: m[1], column: m[2], turn: m[3], why: m[4] }),
    ],
    [/^(.+) game ended: (.+)$/, (m) => t('reasonText.gameEnded', { name: m[1], why: m[2] })],
  ];
  for (const [re, text] of patterns) {
    const m = re.exec(part);
    if (m) return text(m);
  }
  return null;
}

/**
 * A tournament match's recorded reason (written in English by each game's tournament support,
 * src/games/*\/tournament.ts) in the reader's language: `no-moves: anna loses` becomes
 * „kein erlaubter Zug mehr: anna verliert“. Names, numbers and protocol words (REGULAR,
 * SOFT_TIMEOUT, a Catan message) stay as recorded; a reason of a shape this does not know is
 * shown as recorded.
 */
/** A Dame end code (`no-moves`) in words; any other code stays as recorded. */
export const dameReason = (code: string, t: Translate): string => (DAME_CODES.has(code) ? t(`dame.reason.${code}`, {}) : code);

export function reasonText(reason: string, t: Translate): string {
  const code = (c: string) => dameReason(c, t);
  const simple: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^(.+): (.+) loses$/, (m) => t('reasonText.loses', { why: code(m[1]!), name: m[2] })],
    [/^REGULAR: draw (\d+:\d+)$/, (m) => t('reasonText.regularDraw', { points: m[1] })],
    [/^REGULAR: (.+) wins (\d+:\d+)$/, (m) => t('reasonText.regularWin', { name: m[1], points: m[2] })],
    [/^draw: the board is full$/, () => t('reasonText.boardFull', {})],
    [/^four in a row: (.*)$/, (m) => t('reasonText.fourInARow', { name: m[1] })],
    [/^(\d+) rounds played: (.*)$/, (m) => t('reasonText.roundsPlayed', { count: Number(m[1]), scores: m[2] })],
    [/^(\d+) rounds played$/, (m) => t('reasonText.roundsPlayedOnly', { count: Number(m[1]) })],
    [/^no seat registered$/, () => t('reasonText.noSeatRegistered', {})],
    [/^only (.+) registered: no round can be played$/, (m) => t('reasonText.onlyOneRegistered', { name: m[1] })],
    [/^table failed: (.*)$/, (m) => t('reasonText.tableFailed', { why: m[1] })],
    [/^no game: (.+) did not join$/, (m) => t('reasonText.didNotJoin', { names: m[1] })],
    [/^a seat never joined$/, () => t('reasonText.seatNeverJoined', {})],
    [/^cut off: (.*)$/, (m) => t('reasonText.cutOff', { why: reasonText(m[1]!, t) })],
    [/^aborted$/, () => t('reasonText.aborted', {})],
    [/^bye$/, () => t('reasonText.bye', {})],
    [/^(.+) never connected$/, (m) => t('reasonText.neverConnected', { name: m[1] })],
  ];
  for (const [re, text] of simple) {
    const m = re.exec(reason);
    if (m) return text(m);
  }
  const parts = reason.split('; ');
  const forfeits = parts.map((p) => connect4Forfeit(p, t));
  if (forfeits.every((f) => f !== null)) return forfeits.join('; ');
  return reason;
}
