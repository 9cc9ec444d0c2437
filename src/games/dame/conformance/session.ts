import { ThinkingCut, type Judgement, type ScriptedWire } from '../../../core/conformance.js';
import { greedyBot } from '../bots/greedy.js';
import { Rng } from '../../../core/rng.js';
import { interpretPlay, formatMove, type Board } from '../notation.js';
import {
  DEFAULT_MOTD,
  DEFAULT_SEAT_NAMES,
  SERVER_VERSION,
  formatGroup,
  type ProtocolMode,
  type Seat,
  type ServerGroup,
} from '../protocol.js';
import { applyPacked, findMove, forfeit, initialState, opponent, sideOf, type DameState } from '../rules.js';

/**
 * One scripted Dame game over the MNM Gameserver protocol, as our server plays it
 * (docs/dame.md): the prolog in a mode, the game under the real rules (the client's PLAY read as
 * the server reads it, the opponent's moves chosen by the greedy bot), WAIT loops, and where the
 * scenario says so the game's end, an error line or a closed connection at a chosen point.
 * Every group is spelled by protocol.ts, the same code our server writes with.
 */

export const GAME_ID = 'conformance01';
/** The 50 ms our server leaves between two groups with no client line between them (spec §2.6). */
export const GROUP_GAP_MS = 50;
/** GAMEOVER this much later than GROUP_GAP_MS after + OKTHINK came too late to be sent while the client thinks. */
const KIT_LATE_MS = 80;
/** Between a GAMEOVER block and its + QUIT, which the scripted server writes on its own. */
export const QUIT_GAP_MS = 200;
const PROLOG_LINE_MS = 10_000;
const OKWAIT_MS = 3000;
const GRACE_MS = 200;
/** How long a client may take to close and exit after QUIT or an error line. */
export const EXIT_MS = 2000;
/**
 * A line that arrives this soon after the end was written crossed it: the client may not have been
 * scheduled to read it yet. (The "thinks without reading" bug answers 100 ms late.)
 */
const CROSS_GRACE_MS = 40;

/** Every time window of the Dame scenarios (docs/check-client/dame.md "Timers and tolerances"; test/conformance/timers-doc.test.ts). */
export const DAME_TIMERS = { GROUP_GAP_MS, QUIT_GAP_MS, PROLOG_LINE_MS, OKWAIT_MS, GRACE_MS, EXIT_MS, CROSS_GRACE_MS, MOTD_AUTO_MS: 300, V2_VERSION_MS: 2000, MOVE_MS: 3000, WAIT_IDLE_MS: 100 } as const;

/** Where an error line, the end of the game or a closed connection interrupts the script. */
export type CutPoint =
  /** after the client's VERSION, ID, PLAYER, THINKING, PLAY or OKWAIT line (in place of the answer) */
  | 'VERSION'
  | 'ID'
  | 'PLAYER'
  | 'THINKING'
  | 'PLAY'
  | 'OKWAIT'
  /** 50 ms after OKTHINK (while the client thinks) or after MOVEOK (right after its own move) */
  | 'OKTHINK'
  | 'MOVEOK';

export interface DameSession {
  mode: ProtocolMode;
  /** Auto mode: the MOTD follows this much client silence (our server: 2000 ms; its tournaments: 100 ms). */
  motdAfterMs?: number;
  /** The client's seat: 0 White (`{player}` 1), 1 Black (`{player}` 2). */
  seat: Seat;
  moveTimeMs?: number;
  gameName?: string;
  names?: readonly [string, string];
  /** The start position (default: the initial one, White to move). */
  start?: () => DameState;
  /** How groups are written: one write each (default), cut into pieces, joined with the next, or line by line with a delay. */
  writes?: 'groups' | 'split' | 'coalesced' | 'slow';
  slowLineMs?: number;
  /** After this many single moves of the client, the opponent loses on time (GAMEOVER); default: play to the end. */
  clientMoves?: number;
  /** WAIT rounds before the opponent's n-th move (n from 0). */
  waits?: (n: number) => number;
  /** Idle time before each WAIT (our server: 1000 ms). */
  waitIdleMs?: number;
  /** At the `nth` (from 0) time the cut point is reached: this error line, the GAMEOVER block, or a close without a line. */
  cut?: { at: CutPoint | 'ENDPLAYERS'; nth?: number; then: { error: string } | 'gameover' | 'close' };
}

/** The client's placeholder `{player}`: the course's 1-based number (1 = White, `PLAYER 0`). */
export const playerOf = (seat: Seat): string => String(seat + 1);

const J = {
  prolog: {
    rule: 'Answer each prolog line in order: VERSION after the greeting (and after the MOTD when one comes), ID after the version answer, PLAYER after the game name',
    section: 'spec §2.2',
    hint: 'Read whole lines and walk the prolog line by line; never send a line before the server has asked for it.',
  },
  version: {
    rule: 'VERSION <major>[.<minor>] with major 2 or 3',
    section: 'spec §2.2',
    hint: 'Send e.g. "VERSION 3.1" (a v3 course client) or "VERSION 2.3".',
  },
  id: { rule: 'ID <the 13-character game id from the command line>', section: 'spec §2.2', hint: 'Pass -g {gameId} through unchanged.' },
  player: {
    rule: 'PLAYER <n> for the seat asked for on the command line ({player} 1 = PLAYER 0 White, 2 = PLAYER 1 Black)',
    section: 'spec §2.2; docs/dame.md "Tournaments"',
    hint: 'A bare PLAYER takes the lowest free seat, which may be the opponent’s: send the seat number.',
  },
  move: {
    rule: 'Answer + MOVE … + ENDBOARD with THINKING, then after + OKTHINK with PLAY, all within the MOVE time plus 200 ms',
    section: 'spec §2.3, §2.5',
    hint: 'Read the whole BOARD block up to + ENDBOARD before answering, and keep track of the MOVE time.',
  },
  legal: {
    rule: 'PLAY only legal single moves (men capture backward too, kings fly, a capture earns another move)',
    section: 'spec §2.4, §3',
    hint: 'Rebuild the position from each BOARD block and generate every legal single move of §3.',
  },
  okwait: { rule: 'Answer every + WAIT with OKWAIT within 3000 ms', section: 'spec §2.3', hint: 'A + WAIT may come any number of times, also right after your own move.' },
  end: {
    rule: 'After + GAMEOVER … + QUIT send nothing more, close the connection and exit with code 0',
    section: 'spec §2.3; docs/dame.md decision 8',
    hint: 'GAMEOVER may arrive at any point outside a block: check every line you read for it, also while thinking.',
  },
  error: {
    rule: 'A "- " line is fatal: send nothing more, close the connection and exit (any exit code, no crash)',
    section: 'spec §2.5',
    hint: 'Test only the "- " prefix; every error line ends the game and the server closes the connection.',
  },
  closed: {
    rule: 'When the server closes the connection, exit (any exit code, no crash, no hang)',
    section: 'spec §2.1; docs/dame.md decision 13',
    hint: 'A read that returns 0 bytes (end of file) means the server is gone: stop reading and exit.',
  },
} satisfies Record<string, Judgement>;
export const DAME_JUDGEMENTS = J;

const VERSION_LINE = /^VERSION\s+([23])(?:\.\d+)?$/;

function groupOf(type: 'motd' | 'versionAccepted' | 'wait' | 'okThink' | 'moveOk'): ServerGroup {
  if (type === 'motd') return { type, text: DEFAULT_MOTD };
  return { type };
}

const boardOf = (s: DameState): Board => ({ white: s.white, black: s.black, kings: s.kings });

export function runDameSession(o: DameSession): (wire: ScriptedWire) => Promise<void> {
  return async (wire) => {
    const moveTime = o.moveTimeMs ?? 3000;
    const names = o.names ?? DEFAULT_SEAT_NAMES;
    const clientSide = sideOf(o.seat);
    const writes = o.writes ?? 'groups';
    const counts = new Map<string, number>();
    let pending: string[] = [];
    /** The last write was a group and no client line came since (the next group waits 50 ms). */
    let groupPending = false;
    let state = o.start ? o.start() : initialState();

    const write = async (lines: string[]): Promise<void> => {
      if (writes === 'slow') {
        for (const line of lines) {
          await wire.delay(o.slowLineMs ?? 100);
          await wire.send([line]);
        }
      } else if (writes === 'split') {
        const bytes = Buffer.byteLength(encodeLines(lines));
        // At the first byte, in the middle (often inside a line), and right before the last `\n`.
        await wire.send(lines, { splitAt: [1, Math.floor(bytes / 2), bytes - 1] });
      } else await wire.send(lines);
    };
    const emit = async (group: ServerGroup): Promise<void> => {
      const lines = formatGroup(group);
      if (writes === 'coalesced') {
        pending.push(...lines);
        return;
      }
      if (groupPending) await wire.delay(GROUP_GAP_MS);
      await write(lines);
      groupPending = true;
    };
    /** Before waiting for the client: what is held back goes out (coalesced: all in one write). */
    const flush = async (): Promise<void> => {
      if (pending.length > 0) {
        const lines = pending;
        pending = [];
        await wire.send(lines);
      }
    };
    const expect = async (pattern: RegExp, withinMs: number, what: string, judgement: Partial<Judgement>): Promise<string> => {
      await flush();
      const line = await wire.expect(pattern, withinMs, what, judgement);
      groupPending = false;
      return line;
    };
    // Which time the cut point ends the game (moved on when the kit came late to a cut while the client thinks).
    let cutNth = o.cut?.nth ?? 0;
    const thinkingCut = new ThinkingCut(wire, {
      windowMs: GROUP_GAP_MS,
      slackMs: KIT_LATE_MS,
      after: '+ OKTHINK',
      window: `${GROUP_GAP_MS} ms`,
      then: 'the game ends while the client thinks about its next move',
    });
    let okThinkAt = -1;
    const reached = (at: CutPoint | 'ENDPLAYERS'): { error: string } | 'gameover' | 'close' | null => {
      const n = counts.get(at) ?? 0;
      counts.set(at, n + 1);
      if (o.cut?.at !== at || cutNth !== n) return null;
      return o.cut.then;
    };
    const winners = (s: DameState): readonly [boolean, boolean] => {
      const r = s.result;
      if (r === null || r.kind === 'drawn') return [true, true];
      return [r.winner === 'white', r.winner === 'black'];
    };
    const gameOver = async (s: DameState, why: string, gap: boolean): Promise<void> => {
      wire.note(`the game ends: ${why}`);
      if (!gap) groupPending = false;
      const block: ServerGroup = { type: 'gameOver', board: boardOf(s), winners: winners(s) };
      if (writes === 'coalesced') await emit(block);
      else {
        // The block's last line, + QUIT, comes in a write of its own a moment later (a server may
        // split its writes anywhere): a client that stops reading at + GAMEOVER has closed by then,
        // and its system answers + QUIT with a reset — the runner's verdict.
        const lines = formatGroup(block);
        if (groupPending) await wire.delay(GROUP_GAP_MS);
        await write(lines.slice(0, -1));
        // A line that crossed + GAMEOVER is no fault; one sent after it had arrived is.
        await wire.takeCrossedWithin(CROSS_GRACE_MS);
        await wire.expectSilence(QUIT_GAP_MS, 'after + GAMEOVER', J.end);
        if (wire.ended())
          wire.fail('closed its connection after + GAMEOVER, before the server’s + QUIT: it stopped reading with the rest of the block unread', {
            ...J.end,
            hint: 'Read on after + GAMEOVER until + QUIT (the server may send the block in several writes); an exit code of 0 does not make up for lines left unread.',
          });
        await write(lines.slice(-1));
        groupPending = true;
      }
      await flush();
      await wire.halfClose();
      await wire.takeCrossedWithin(CROSS_GRACE_MS);
      await wire.expectClose(EXIT_MS, 'after + QUIT (the server closes the connection)', J.end);
      await wire.expectExit(EXIT_MS, 'after a normal end of the game', { code: 0, judgement: J.end });
    };
    const errorLine = async (line: string): Promise<void> => {
      await flush();
      await wire.send([line]);
      await wire.halfClose();
      wire.takeCrossed();
      await wire.expectClose(EXIT_MS, `after "${line}"`, J.error);
      await wire.expectExit(EXIT_MS, `after "${line}"`, { judgement: J.error });
    };
    const closed = async (): Promise<void> => {
      await flush();
      await wire.halfClose();
      wire.takeCrossed();
      await wire.expectClose(EXIT_MS, 'after the server closed the connection', J.closed);
      await wire.expectExit(EXIT_MS, 'after the server closed the connection', { judgement: J.closed });
    };
    /** Plays out a cut point; true when the scenario ends here. */
    const cutHere = async (at: CutPoint | 'ENDPLAYERS', gap: boolean): Promise<boolean> => {
      const then = reached(at);
      if (then === null) return false;
      if (then === 'gameover' && at === 'OKTHINK' && gap && writes !== 'coalesced') {
        // While the client thinks: GAMEOVER GROUP_GAP_MS after + OKTHINK. A kit slowed by a busy
        // machine writes it late, maybe after the client's PLAY, which then crossed it and is no
        // fault: never judged on that (a client that reads nothing while it thinks would pass).
        if (groupPending) await wire.delay(GROUP_GAP_MS);
        groupPending = false;
        if (thinkingCut.late(wire.now() - okThinkAt)) {
          cutNth = counts.get(at) ?? 0;
          return false;
        }
      }
      if (then === 'close') await closed();
      else if (then === 'gameover') {
        // The opponent lost meanwhile (it timed out, say): the client wins.
        await gameOver(forfeit(state, opponent(clientSide), 'timeout'), `the opponent loses on time (GAMEOVER after ${at})`, gap);
      } else await errorLine(then.error);
      return true;
    };

    // ---- prolog (spec §2.2) ----
    await emit({ type: 'greeting', version: SERVER_VERSION[o.mode] });
    let version: string;
    if (o.mode === 'v3') {
      await emit(groupOf('motd'));
      version = await expect(/^VERSION\b/, PROLOG_LINE_MS, 'VERSION after the greeting and the MOTD', {});
    } else if (o.mode === 'v2') {
      // A v2 server sends no MOTD; an auto server would send one after 2000 ms of silence.
      version = await expect(/^VERSION\b/, 2000, 'VERSION within 2000 ms of a v2 greeting (a v2 server sends no MOTD)', {});
    } else {
      await flush();
      const silence = o.motdAfterMs ?? 2000;
      const early = await wire.next(silence);
      if (early === null) {
        wire.note(`${silence} ms of client silence: the MOTD follows (auto mode)`);
        groupPending = false;
        await emit(groupOf('motd'));
        version = await expect(/^VERSION\b/, PROLOG_LINE_MS, 'VERSION after the MOTD', J.prolog);
      } else {
        groupPending = false;
        version = early;
        if (!/^VERSION\b/.test(version)) wire.fail(`sent "${version}" where the server expected VERSION after the greeting`, J.prolog);
      }
    }
    if (!VERSION_LINE.test(version)) wire.fail(`sent "${version}"`, J.version);
    if (await cutHere('VERSION', false)) return;
    await emit(groupOf('versionAccepted'));
    const id = await expect(/^ID\b/, PROLOG_LINE_MS, 'ID after the version answer', J.prolog);
    if (id !== `ID ${GAME_ID}`) wire.fail(`sent "${id}" where the server expected "ID ${GAME_ID}"`, J.id);
    if (await cutHere('ID', false)) return;
    await emit({ type: 'playing', gameName: o.gameName ?? 'Game from 2024-01-15 10:00' });
    const player = await expect(/^PLAYER\b/, PROLOG_LINE_MS, 'PLAYER after the game name', J.prolog);
    const asked = /^PLAYER(?:\s+(\d+))?$/.exec(player);
    const seatAsked = asked === null ? -1 : asked[1] === undefined ? 0 : Number(asked[1]);
    if (seatAsked !== o.seat) wire.fail(`sent "${player}" but the command line asked for seat ${o.seat} (PLAYER ${o.seat})`, J.player);
    if (await cutHere('PLAYER', false)) return;
    const other: Seat = o.seat === 0 ? 1 : 0;
    await emit({ type: 'players', you: { seat: o.seat, name: names[o.seat], ready: true }, others: [{ seat: other, name: names[other], ready: true }] });
    if (await cutHere('ENDPLAYERS', true)) return;

    // ---- the game (spec §2.3, §3) ----
    let clientMoves = 0;
    let opponentMoves = 0;
    const rng = Rng.seeded('check-client');
    while (state.result === null) {
      if (state.toMove === clientSide) {
        await emit({ type: 'move', timeMs: moveTime, board: boardOf(state) });
        await flush();
        const deadline = wire.now() + wire.scaled(moveTime + GRACE_MS);
        const left = (): number => Math.max(0, (deadline - wire.now()) / wire.scaled(1));
        await expect(/^THINKING$/, left(), `THINKING within ${moveTime + GRACE_MS} ms of + MOVE ${moveTime}`, J.move);
        if (await cutHere('THINKING', false)) return;
        await emit(groupOf('okThink'));
        okThinkAt = wire.now();
        if (await cutHere('OKTHINK', true)) return;
        const play = await expect(/^PLAY\b/, left(), `PLAY within ${moveTime + GRACE_MS} ms of + MOVE ${moveTime}`, J.move);
        if (await cutHere('PLAY', false)) return;
        const outcome = interpretPlay(state, play.replace(/^PLAY\s*/, ''));
        if (!outcome.ok)
          return wire.fail(`sent "${play}": our server answers "- Invalid Move: ${outcome.error.reason}" and the client loses`, J.legal);
        wire.note(`the client plays ${outcome.value.applied.map(formatMove).join(', ')}`);
        clientMoves += outcome.value.applied.length;
        state = outcome.value.state;
        await emit(groupOf('moveOk'));
        if (await cutHere('MOVEOK', true)) return;
        if (state.result !== null) break;
        if (!outcome.value.followUpOwed && o.clientMoves !== undefined && clientMoves >= o.clientMoves) {
          await gameOver(forfeit(state, opponent(clientSide), 'timeout'), `the opponent loses on time after ${clientMoves} moves of the client`, true);
          return;
        }
      } else {
        const rounds = o.waits?.(opponentMoves) ?? 0;
        for (let i = 0; i < rounds; i++) {
          await flush();
          await wire.delay(o.waitIdleMs ?? 100);
          groupPending = false;
          await emit(groupOf('wait'));
          await expect(/^OKWAIT$/, OKWAIT_MS, 'OKWAIT within 3000 ms of + WAIT', J.okwait);
          if (await cutHere('OKWAIT', false)) return;
        }
        const move = greedyBot(state, moveTime, rng);
        const found = findMove(state, move.from, move.to);
        if (!found.ok) throw new Error(`the opponent's move ${formatMove(move)} is not legal`);
        state = applyPacked(state, found.value);
        opponentMoves++;
        wire.note(`the opponent plays ${formatMove(move)}`);
      }
    }
    await gameOver(state, state.result.kind === 'drawn' ? `a draw (${state.result.reason})` : `${state.result.winner} wins (${state.result.reason})`, true);
  };
}

const encodeLines = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');
