import type { SpectatorEvent } from '../core/game-server.js';
import type { Logger } from '../core/log.js';
import { BotSeat } from '../games/ostseeschach/bot-seat.js';
import { greedyBot } from '../games/ostseeschach/bots/greedy.js';
import { randomBot } from '../games/ostseeschach/bots/random.js';
import type { AsyncBot } from '../games/ostseeschach/bots/types.js';
import { EngineThread } from '../games/ostseeschach/engine-thread.js';
import type { OstseeschachLadderDoor, OstseeschachLadderWaiter } from '../games/ostseeschach/ladder-door.js';
import { MISTAKE_TEXT } from '../games/ostseeschach/messages.js';
import type { ScoreEntry } from '../games/ostseeschach/protocol.js';
import type { OstseeschachServer } from '../games/ostseeschach/server.js';
import type { RoomPeer } from '../games/ostseeschach/room.js';
import type { OstseeschachResultRow } from '../games/ostseeschach/snapshot.js';
import { botBudgetMs } from '../games/ostseeschach/tournament.js';
import { seatName, type Ladder, type LadderTable, type TableOutcome, type TableSeat } from './ladder.js';
import type { LossReason } from './types.js';

/**
 * Ostseeschach on the ladder: a student's client redeems its personal reservation code (the
 * roster's UUID) with `-r`, unchanged: `<joinPrepared reservationCode="C"/>`. The server answers
 * when the ladder has made the game (at most the ladder's house wait): `<joined roomId="R"/>` of a
 * room the server opened for the two sides (Lobby.openRoomFor, both slots bound to their
 * connections), and the game runs as any game of the server — official timeouts, recorded,
 * spectated — with the two names as display names. A house bot sits in its seat without a socket
 * (BotSeat): random and greedy on the main thread, the engine in a worker thread.
 */

export interface OstseeschachLadderOptions {
  log: Logger;
  /** The ladder rooms' timeouts; default the server's (official 2000 / 10 000 ms). */
  softTimeoutMs?: number;
  hardTimeoutMs?: number;
}

/**
 * The house levels' players (ratings.ts HOUSE_LEVELS.ostseeschach): a bot, or the engine thinking
 * at most `engineMs` a move (and never longer than our client would: 1700 of the official 2000 ms).
 */
export const OSTSEESCHACH_HOUSE_PLAYERS: Readonly<Record<string, { bot: AsyncBot } | { engineMs: number }>> = {
  random: { bot: randomBot },
  greedy: { bot: greedyBot },
  'engine-fast': { engineMs: 100 },
  engine: { engineMs: Infinity },
};

/** What a student runs to find a protocol fault of their client (docs/check-client.md). */
export const OSTSEESCHACH_CHECK_COMMAND = 'spielhalle check-client ostseeschach -- <your client command with {host} {port} {reservation}>';

/** The rule a RULE_VIOLATION broke, in words, from the official reason (messages.ts). */
function ruleOf(reason: string): string {
  const words: Record<keyof typeof MISTAKE_TEXT, string> = {
    WRONG_COLOR: 'only a piece of your own colour may move (and a move needs its <from>)',
    OUT_OF_BOUNDS: 'the target square must lie on the board',
    INVALID_MOVEMENT: 'each piece moves only as its kind does (Herzmuschel, Möwe, Seestern, Robbe)',
    DESTINATION_BLOCKED: 'no piece may move onto a square held by its own colour',
    GAME_OVER: 'no move after the end of the game',
  };
  const spec = 'the rules (specs/ostseeschach.md §2)';
  for (const [code, text] of Object.entries(MISTAKE_TEXT)) if (reason.startsWith(text)) return `${spec}: ${words[code as keyof typeof MISTAKE_TEXT]}`;
  if (reason.startsWith("It's not your turn yet")) return 'the protocol (docs/ostseeschach.md): a move only when it is your turn';
  if (reason.includes('has not been requested')) return 'the protocol (docs/ostseeschach.md): a move only after a moveRequest';
  return spec;
}

/** Why a seat lost, from its score in the result (cause and the official reason). */
export function ostseeschachLossReason(score: ScoreEntry): LossReason {
  switch (score.cause) {
    case 'SOFT_TIMEOUT':
    case 'HARD_TIMEOUT':
      return { kind: 'timeout', detail: `no move in time after the moveRequest (${score.reason})` };
    case 'RULE_VIOLATION':
      return { kind: 'invalid-move', detail: score.reason, rule: ruleOf(score.reason) };
    case 'LEFT':
      if (score.reason.endsWith('PROTOCOL_ERROR'))
        return {
          kind: 'protocol',
          detail: 'the client sent what the protocol does not allow (unreadable XML, an unknown element or a limit exceeded) and was dropped',
          command: OSTSEESCHACH_CHECK_COMMAND,
        };
      if (score.reason.endsWith('RECEIVED_DISCONNECT'))
        return { kind: 'disconnect', detail: 'the client said goodbye (<sc.protocol.CloseConnection/>) during the game' };
      return { kind: 'disconnect', detail: 'the connection closed during the game' };
    case 'REGULAR':
    case 'UNKNOWN':
      return { kind: 'played' };
  }
}

/** The table's result of a room's end (null scores: the game did not count). */
export function ostseeschachOutcome(row: OstseeschachResultRow): TableOutcome {
  const recordId = row.matchId;
  const [one, two] = row.scores;
  if (one === undefined || two === undefined) return { scores: null, reasons: [null, null], recordId, note: 'the room closed without a result (the server stopped, or an internal error)' };
  const points = [one.parts[0] ?? 0, two.parts[0] ?? 0];
  // An administrator's cancel: both present, REGULAR, 0 Siegpunkte each (a real draw gives 1 each).
  if (one.cause === 'REGULAR' && two.cause === 'REGULAR' && points[0] === 0 && points[1] === 0)
    return { scores: null, reasons: [null, null], recordId, note: 'cancelled by an administrator' };
  // The room's winner, else the Siegpunkte (a timeout has no <winner> but gives the other 2).
  const winner = row.winner === 'ONE' ? 0 : row.winner === 'TWO' ? 1 : points[0]! > points[1]! ? 0 : points[1]! > points[0]! ? 1 : null;
  if (winner === null) return { scores: [0.5, 0.5], reasons: [null, null], recordId };
  const loss = ostseeschachLossReason(winner === 0 ? two : one);
  return { scores: winner === 0 ? [1, 0] : [0, 1], reasons: winner === 0 ? [null, loss] : [loss, null], recordId };
}

export class OstseeschachLadderTable implements LadderTable<OstseeschachLadderWaiter>, OstseeschachLadderDoor {
  readonly game = 'ostseeschach' as const;

  constructor(
    private readonly ladder: Ladder,
    private readonly server: OstseeschachServer,
    private readonly o: OstseeschachLadderOptions,
  ) {}

  isCode(code: string): boolean {
    return this.ladder.knows(code);
  }

  admit(reservationCode: string, waiter: OstseeschachLadderWaiter): { ok: true; leave: () => void } | { ok: false; text: string } | null {
    const admission = this.ladder.admit('ostseeschach', reservationCode);
    if (admission === null) return null;
    if (!admission.ok) return admission;
    const leave = this.ladder.join('ostseeschach', admission.entry, { seat: null, host: waiter.host }, waiter, (text) => waiter.refuse(text));
    return { ok: true, leave };
  }

  refuse(handle: OstseeschachLadderWaiter, text: string): void {
    handle.refuse(text);
  }

  play(seats: [TableSeat<OstseeschachLadderWaiter>, TableSeat<OstseeschachLadderWaiter>], context: { gameId: string; season: string }): Promise<TableOutcome> {
    const waiters = seats.flatMap((s) => (s.kind === 'entry' ? [s.handle] : []));
    // A connection that closed between the pairing and its seat leaves a game that cannot start.
    if (!waiters.every((w) => w.waiting)) {
      for (const w of waiters) w.refuse('Liga: your opponent left before the game began; redeem your code again');
      return Promise.resolve({ scores: null, reasons: [null, null], recordId: null, note: 'a seat left before the start' });
    }
    const lobby = this.server.lobby;
    const softTimeoutMs = this.o.softTimeoutMs;
    const bots: BotSeat[] = [];
    let roomId: string | null = null;
    let settle: (outcome: TableOutcome) => void = () => undefined;
    const over = new Promise<TableOutcome>((resolve) => (settle = resolve));
    const unsubscribe = this.server.subscribe((event: SpectatorEvent) => {
      const row = event.data as OstseeschachResultRow | null;
      if (event.type !== 'roomClosed' || roomId === null || row?.roomId !== roomId) return;
      unsubscribe();
      settle(ostseeschachOutcome(row));
    });
    const release = (): void => {
      unsubscribe();
      for (const b of bots) b.close();
    };
    try {
      // The bots first: a bot that cannot start leaves the clients waiting, to be told below.
      const house = seats.map((s, i) => (s.kind === 'house' ? this.houseSeat(s.level.id, `${context.gameId}:${i}`, softTimeoutMs ?? this.server.softTimeoutMs) : null));
      for (const b of house) if (b !== null) bots.push(b);
      const peers = seats.map((s, i) => (s.kind === 'entry' ? s.handle.take() : house[i]) as RoomPeer) as [RoomPeer, RoomPeer];
      roomId = lobby.openRoomFor(
        {
          slots: seats.map((s) => ({ displayName: seatName(s), canTimeout: true })),
          ...(softTimeoutMs !== undefined ? { softTimeoutMs } : {}),
          ...(this.o.hardTimeoutMs !== undefined ? { hardTimeoutMs: this.o.hardTimeoutMs } : {}),
          meta: { ladder: { game: 'ostseeschach', gameId: context.gameId, season: context.season, entries: seats.map((s) => (s.kind === 'entry' ? s.entry.id : null)) } },
        },
        peers,
      );
    } catch (err) {
      release();
      for (const w of waiters) w.refuse('Liga: the server could not start your game; redeem your code again');
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    // A room that failed while it was being opened is gone already (its end was not seen here).
    if (lobby.room(roomId) === undefined) {
      release();
      return Promise.resolve({ scores: null, reasons: [null, null], recordId: null, note: 'the room failed as it opened' });
    }
    return over.finally(release);
  }

  /** A house level's bot in its seat: a cheap bot on this thread, the engine in a thread of its own. */
  private houseSeat(level: string, seed: string, softTimeoutMs: number): BotSeat {
    const player = OSTSEESCHACH_HOUSE_PLAYERS[level];
    if (player === undefined) throw new Error(`no Ostseeschach house player for level ${level}`);
    const log = this.o.log;
    const id = `house:${level}`;
    if ('bot' in player) return new BotSeat({ id, bot: player.bot, budgetMs: botBudgetMs(softTimeoutMs), seed, submit: (seat, p) => this.server.lobby.handle(seat, p), log });
    const engine = new EngineThread(seed, log);
    // A cold engine overruns its first budget: it warms up while the room starts.
    engine.warm().catch(() => undefined);
    return new BotSeat({
      id,
      bot: engine.bot,
      budgetMs: Math.min(player.engineMs, botBudgetMs(softTimeoutMs)),
      seed,
      submit: (seat, p) => this.server.lobby.handle(seat, p),
      log,
      onClosed: () => void engine.close(),
    });
  }
}

