import { createSocket, type Socket } from 'node:dgram';
import type { Judgement, ScriptedWire } from '../../../core/conformance.js';
import { bindSocketInRange, defaultPortRange } from '../../../core/ports.js';
import { Rng } from '../../../core/rng.js';
import { MAX_DATAGRAM_BYTES, formatMessage, parseDatagram, type OutgoingMessage, type PeerMessage } from '../protocol.js';
import { apply, initialState, legalMoves, status, toNotation, type C4State, type Player } from '../rules.js';
import { J } from './judgements.js';
import { choose, dialect, padTo } from './spelling.js';

/**
 * One scripted Connect Four game against the peer under test, as a seed-conformant peer plays it
 * (specs/connect4.md §3): the invitation in either direction, stage 3, moves under the real rules
 * (rules.ts; the scripted peer's columns from our bots), keepalives every 2 s, the end window, and
 * where the scenario says so a cut: 99, silence, a stalled move, stage 5 without the final move.
 * Every datagram the scripted peer sends is spelled by protocol.ts (`formatMessage`), then, where
 * a scenario asks for it, re-spelled in another implementation's dialect or padded.
 */

/** Who starts the game: the client invites us (it moves first), we invite it, or both at once. */
export type Role = 'inviting' | 'invited' | 'crossed';

export type CutPoint =
  /** Inviting role: the client's invitation has come, we have not accepted it. */
  | 'invitation'
  /** The board has started (stage 3 exchanged or, as inviter, the acceptance sent), no move yet. */
  | 'board-start'
  /** Right after the client's nth move (from 0) arrived. */
  | 'client-moved'
  /** When our nth move (from 0) is due: with it, or in its place. */
  | 'peer-moves'
  /** Right after the game ended on the board. */
  | 'end';

export type CutAction =
  /** Stage 99 every 2 s until the client acknowledges (at `peer-moves`: right after our move). */
  | 'abort'
  /** Nothing more from us: the client must give up after 10 s (§3.5). */
  | 'silent'
  /** Keepalives but no move: the client must give up 30 s after its move (§3.5). */
  | 'stall'
  /** Stage 5 in place of our move, and no move ever (§3.6: no result, no 99). */
  | 'stage5'
  /** Stage 5 first, our (not final) move 3 s later: the game goes on (§3.6). */
  | 'stage5-then-move';

export interface C4Session {
  role: Role;
  /** How the scripted peer chooses its columns (default easy: wins and blocks in one, else random). */
  strategy?: 'easy' | 'win' | 'lose';
  /** Each datagram of ours goes out this many times back to back (duplicates). */
  copies?: number;
  /** Before each of our moves from the third on, an old move of ours again (a stale packet). */
  stale?: boolean;
  /** `game`: the game-wide move index (default); `own`: our own move count, as A and C send (§3.4). */
  turns?: 'game' | 'own';
  /** How our datagrams are spelled: ours, rotating through A's, B's and other valid forms, or padded to the largest datagram. */
  spelling?: 'ours' | 'dialects' | 'padded';
  /** Our clientname (default check-client). */
  name?: string;
  /** Before each of our moves, datagrams the client must ignore, then 400 ms in which it must not move. */
  noise?: boolean;
  /** Inviting role: our stage 3 only this long after the acceptance. */
  readyDelayMs?: number;
  /** Inviting role: accept only the second copy of the client's invitation (it repeats every 2 s). */
  acceptSecondCopy?: boolean;
  /** How long we think before our nth move (from 0); our last packet repeats meanwhile. */
  thinkMs?: (n: number) => number;
  cut?: { at: CutPoint; nth?: number; then: CutAction };
  /**
   * A missing answer (no stage 3, no acceptance, no move in time) is blamed on the scenario's own
   * rule: where the scenario is about what the client must read (a dialect, a long datagram, a
   * turn convention), a client that drops it falls silent rather than breaking a rule of its own.
   */
  blameSilence?: boolean;
}

/** Where the client listens, for datagrams from a third party (set per run by placeholdersFor). */
export interface ClientAddress {
  address: string;
  port: number;
}

const RESEND_MS = 2000;
/** A late repeat or answer: the spec's "every 2 s" or "at once", plus this. */
const SLACK_MS = 500;
/** §3.5: silence. */
export const SILENCE_MS = 10_000;
/** §3.5: move timeout. */
export const MOVE_TIMEOUT_MS = 30_000;
/** §3.6: wait for the final move after a stage 5. */
const FINAL_MOVE_WAIT_MS = 10_000;
const END_REPEATS = 5;
/** The client has this long to start, bind and invite. */
const START_MS = 10_000;
/** §3.3: our invitation is given up after 10 s without an acceptance. */
const INVITE_MS = 10_000;
/** An answer that the spec wants "at once" (acceptance, stage 3, stage 5, the 99 acknowledgement). */
const ANSWER_MS = RESEND_MS + SLACK_MS;
/** How long we watch after the end or an acknowledged abort for what the client may not send. */
const END_WATCH_MS = END_REPEATS * RESEND_MS + 1000;
const ABORT_WATCH_MS = 4500;
/** A 99 or a move that was on its way when ours left. */
const CROSSING_MS = 1000;
const QUIET_MS = 400;

/** Every time window and tolerance of the 4 Gewinnt scenarios (docs/check-client/connect4.md "Timers and tolerances"). */
export const CONNECT4_TIMERS = { RESEND_MS, SLACK_MS, SILENCE_MS, MOVE_TIMEOUT_MS, FINAL_MOVE_WAIT_MS, END_REPEATS, START_MS, INVITE_MS, ANSWER_MS, END_WATCH_MS, ABORT_WATCH_MS, CROSSING_MS, QUIET_MS } as const;

interface Datagram {
  raw: string;
  m: PeerMessage;
  at: number;
}

export function runC4Session(o: C4Session): (wire: ScriptedWire) => Promise<void> {
  return async (wire) => {
    let third: Socket | null = null;
    const thirdGot: string[] = [];
    try {
      await play(o, wire, async () => {
        // Where the client was told to bind (it sends from there too).
        const { host, clientPort } = wire.addresses();
        const target = { address: host, port: clientPort };
        if (third === null) {
          const s = createSocket('udp4');
          s.on('message', (msg) => thirdGot.push(msg.toString('utf8')));
          s.on('error', () => undefined);
          await bindSocketInRange(s, '127.0.0.1', defaultPortRange());
          third = s;
        }
        const s = third;
        return (line: string) => {
          wire.note(`from 127.0.0.1:${s.address().port} (a third party): ${line}`);
          return new Promise<void>((resolve) => s.send(line, target.port, target.address, () => resolve()));
        };
      });
      const answered = thirdGot.filter((t) => {
        const p = parseDatagram(t);
        return !p.ok || p.value.kind !== 'announce';
      });
      if (answered.length > 0) wire.fail(`answered a third party during the game: "${answered[0] ?? ''}"`, J.thirdParty);
    } finally {
      const s = third as Socket | null;
      s?.close();
    }
  };
}

async function play(o: C4Session, wire: ScriptedWire, thirdParty: () => Promise<((line: string) => Promise<void>) | null>): Promise<void> {
  const k = wire.scaled(1000) / 1000;
  const name = o.name ?? 'check-client';
  const copies = o.copies ?? 1;
  const rng = Rng.seeded('check-client connect4');
  const clientPlayer: Player = o.role === 'inviting' ? 0 : 1;
  let state: C4State = initialState();
  /** The client's moves by `turn`. */
  const clientMoves = new Map<number, number>();
  const ourMoves: string[] = [];
  let spelled = 0;
  let sentReady = false;
  /** Set from inside the handlers (a plain `let` would be narrowed away by the compiler). */
  const seen = { clientReady: false, accepted: false };
  let lastSentAt = 0;
  /** What we repeat every 2 s, and when next. */
  /** A repeat is the same datagram again (in the same spelling). */
  let repeats: { m: OutgoingMessage; line: string }[] = [];
  let nextRepeatAt = Infinity;
  let stage5Sent = 0;

  const spell = (m: OutgoingMessage): string => {
    const ours = formatMessage(m, 0);
    switch (o.spelling ?? 'ours') {
      case 'ours':
        return ours;
      case 'padded':
        return padTo(ours, MAX_DATAGRAM_BYTES);
      case 'dialects':
        return dialect(ours, spelled++);
    }
  };
  const write = async (m: OutgoingMessage, line = spell(m)): Promise<void> => {
    if (m.kind === 'game-over') {
      if (stage5Sent >= END_REPEATS) return;
      stage5Sent++;
    }
    for (let i = 0; i < copies; i++) await wire.send([line]);
    lastSentAt = wire.now();
  };
  /** Sends now and repeats every 2 s (until the next `out`). */
  const out = async (ms: OutgoingMessage[]): Promise<void> => {
    const lines = ms.map((m) => ({ m, line: spell(m) }));
    for (const l of lines) await write(l.m, l.line);
    repeats = lines;
    nextRepeatAt = lines.length > 0 ? wire.now() + RESEND_MS : Infinity;
  };
  const silence = (j: Judgement): Partial<Judgement> => (o.blameSilence === true ? {} : j);
  const stopRepeats = (): void => {
    repeats = [];
    nextRepeatAt = Infinity;
  };

  /**
   * Reads the client's datagrams until `handle` says done (true) or `untilMs` (nominal, from now)
   * passes, repeating ours meanwhile. 'exit' when the client's process is gone.
   */
  const pump = async (withinMs: number, handle: (d: Datagram) => boolean): Promise<'done' | 'timeout' | 'exit'> => {
    const deadline = wire.now() + withinMs * k;
    for (;;) {
      const now = wire.now();
      if (now >= nextRepeatAt) {
        for (const l of repeats) await write(l.m, l.line);
        nextRepeatAt += RESEND_MS;
        continue;
      }
      if (now >= deadline) return 'timeout';
      const wait = Math.max(1, Math.min(deadline, nextRepeatAt) - now);
      const line = await wire.next(wait / k);
      if (line === null) {
        if (wire.ended()) return 'exit';
        continue;
      }
      if (handle(read(line))) return 'done';
    }
  };
  const read = (raw: string): Datagram => {
    const p = parseDatagram(raw);
    if (!p.ok) wire.fail(`sent a datagram a peer drops (${p.error.code}): "${raw.slice(0, 200)}"`, J.format);
    let obj: unknown = null;
    try {
      // eslint-disable-next-line no-control-regex
      obj = JSON.parse(raw.replace(/^[\s\u0000]+|[\s\u0000]+$/gu, ''));
    } catch {
      // parseDatagram accepted it, so it parses
    }
    for (const key of ['version', 'stage', 'turn', 'column']) {
      if (obj === null || typeof obj !== 'object' || !(key in obj) || typeof (obj as Record<string, unknown>)[key] === 'number') continue;
      const text = `sent "${key}" as ${JSON.stringify((obj as Record<string, unknown>)[key])}, not as a JSON number`;
      // The spec obliges every peer to accept "version":"2" (peer B sends it): a warning, not a stop.
      if (key === 'version' && (obj as Record<string, unknown>)[key] === '2') wire.warn(`${text} (peers must accept it, but send the number 2)`);
      else wire.fail(`${text}: "${raw}"`, J.format);
    }
    return { raw, m: p.value, at: wire.now() };
  };
  const position = (): string => (state.moves.length === 0 ? 'the empty board' : `position ${toNotation(state)}`);
  const toMove = (): Player | null => {
    const st = status(state);
    return st.kind === 'running' ? st.toMove : null;
  };

  /**
   * A datagram of the client while the game runs. Repeats, stage 1–3 and keepalives are fine; a
   * new move is checked by the rules and returned; stage 5 and 99 break the rules here.
   */
  const inGame = (d: Datagram, okNewMove: boolean, outOfTurn: Judgement = J.repeat): 'move' | null => {
    const m = d.m;
    switch (m.kind) {
      case 'ready':
      case 'keepalive':
        seen.clientReady = true;
        return null;
      case 'move': {
        seen.clientReady = true;
        if (m.turn < 0) return null;
        const known = clientMoves.get(m.turn);
        if (known !== undefined) {
          if (known !== m.column) wire.fail(`sent turn ${m.turn} with column ${m.column}, but its move of turn ${m.turn} was column ${known}`, J.repeat);
          return null;
        }
        if (!sentReady) wire.fail(`moved (turn ${m.turn}, column ${m.column}) before our stage 3 had arrived`, J.ready);
        if (clientPlayer === 1 && clientMoves.size === 0 && m.turn === 0)
          wire.fail(`sent turn 0 for its first move although it plays second (we invited it): it took our invitation for an acceptance`, J.crossed);
        if (!okNewMove || toMove() !== clientPlayer)
          wire.fail(`sent a new move (turn ${m.turn}, column ${m.column}) although it was our turn on ${position()}`, outOfTurn);
        if (m.turn < state.moves.length)
          wire.fail(`sent a new move for turn ${m.turn}, which was ours (column ${state.moves[m.turn] ?? '?'}): a repeated or stale packet of ours was taken for a new move`, J.repeat);
        if (m.turn !== state.moves.length) wire.fail(`sent turn ${m.turn} for the move on ${position()}: turn is the number of stones on the board (${state.moves.length})`, J.turn);
        const next = apply(state, m.column);
        if (!next.ok) wire.fail(`played column ${m.column} on ${position()}: ${next.error.message}`, J.legal);
        clientMoves.set(m.turn, m.column);
        state = next.value;
        wire.note(`the client plays column ${m.column} (turn ${m.turn})`);
        return 'move';
      }
      case 'game-over':
        return wire.fail(`sent stage 5, but the game goes on (${position()})`, J.end);
      case 'abort':
        return wire.fail(`aborted (99) although we were alive and within the move time (${position()})`, J.unexpectedAbort);
      default:
        return null;
    }
  };
  const gameOnly = (d: Datagram): boolean => inGame(d, false) !== null;
  const sets = (ms: OutgoingMessage[]): void => {
    repeats = ms.map((m) => ({ m, line: spell(m) }));
    nextRepeatAt = ms.length > 0 ? lastSentAt + RESEND_MS : Infinity;
  };
  let lastMove: OutgoingMessage | null = null;

  // ---- the invitation (§3.3) and board start (§3.4) ----
  const invitation: OutgoingMessage = { kind: 'invitation', name };
  const waitInvitation = async (what: string): Promise<void> => {
    const r = await pump(START_MS, (d) => {
      if (d.m.kind === 'invitation') return true;
      if (d.m.kind === 'announce') return false;
      return wire.fail(`sent "${d.raw}" before its invitation (stage 2 with clientname)`, J.invite);
    });
    if (r !== 'done') wire.fail(`did not invite {invite} (stage 2 with clientname) ${what}`, J.invite);
  };

  if (o.role === 'inviting') {
    await waitInvitation(`within ${START_MS} ms of its start`);
    if (o.cut?.at === 'invitation') {
      wire.note('a 99 in answer to the invitation: no game runs, so it starts nothing and is not acknowledged (§3.3, §3.7)');
      await write({ kind: 'abort' });
      await pump(ABORT_WATCH_MS, (d) => {
        if (d.m.kind === 'announce' || d.m.kind === 'invitation') return false;
        return wire.fail(`sent "${d.raw}" after a 99 in answer to its invitation: no game had started`, J.lobbyAbort);
      });
      return;
    }
    if (o.acceptSecondCopy === true) {
      const r = await pump(ANSWER_MS, (d) => d.m.kind === 'invitation');
      if (r !== 'done') wire.fail(`sent its invitation once: no second copy within ${ANSWER_MS} ms`, J.repeatInvitation);
      wire.note('the second copy of the invitation: accepted');
    }
    // We are the invitee: the acceptance, and with it (or after a pause) our stage 3.
    if (o.readyDelayMs !== undefined) {
      await out([{ kind: 'acceptance' }]);
      const r = await pump(o.readyDelayMs / k, (d) => d.m.kind !== 'invitation' && d.m.kind !== 'announce' && d.m.kind !== 'acceptance' && gameOnly(d));
      if (r === 'exit') wire.fail('stopped before the board started', J.ready);
      sentReady = true;
      await out([{ kind: 'ready' }]);
    } else {
      sentReady = true;
      await out([{ kind: 'acceptance' }, { kind: 'ready' }]);
    }
    if (!seen.clientReady) {
      const r = await pump(ANSWER_MS, (d) => {
        if (d.m.kind === 'invitation' || d.m.kind === 'acceptance' || d.m.kind === 'announce') return false;
        inGame(d, true);
        return true;
      });
      if (r !== 'done') wire.fail(`sent no stage 3 within ${ANSWER_MS} ms of our acceptance`, silence(J.ready));
    }
    if (clientMoves.size === 0) sets([{ kind: 'ready' }]);
  } else {
    if (o.role === 'crossed') {
      await waitInvitation(`within ${START_MS} ms of its start`);
      wire.note('our invitation crosses the client’s: neither is an acceptance (§5 decision 2)');
    }
    await out([invitation]);
    const r = await pump(INVITE_MS, (d) => {
      switch (d.m.kind) {
        case 'announce':
        case 'invitation':
          return false;
        case 'acceptance':
        case 'ready':
          seen.accepted = true;
          if (d.m.kind === 'ready') seen.clientReady = true;
          return true;
        case 'move':
        case 'keepalive':
          return wire.fail(`sent "${d.raw}" although no game had started: our invitation is not an acceptance`, J.crossed);
        default:
          return wire.fail(`sent "${d.raw}" in answer to our invitation`, J.crossed);
      }
    });
    if (r !== 'done' || !seen.accepted) wire.fail(`did not accept our invitation within ${INVITE_MS} ms (stage 2 without clientname, or stage 3)`, silence(J.crossed));
    sentReady = true;
    await out([{ kind: 'ready' }]);
    if (!seen.clientReady) {
      const r2 = await pump(ANSWER_MS, (d) => {
        if (d.m.kind === 'acceptance' || d.m.kind === 'invitation' || d.m.kind === 'announce') return false;
        if (d.m.kind === 'move') return wire.fail(`sent "${d.raw}": we invited it, so we move first`, J.crossed);
        inGame(d, false);
        return seen.clientReady;
      });
      if (r2 !== 'done') wire.fail(`sent no stage 3 within ${ANSWER_MS} ms of ours`, silence(J.ready));
    }
  }
  wire.note(`the board starts: the client is the ${clientPlayer === 0 ? 'first' : 'second'} player`);

  const cutAt = (at: CutPoint, n: number): CutAction | null => (o.cut?.at === at && (o.cut.nth ?? 0) === n ? o.cut.then : null);

  // ---- the game (§3.4) ----
  let ourCount = 0;
  let clientCount = 0;
  let clientMovedAt = 0;
  const cut0 = cutAt('board-start', 0);
  if (cut0 !== null) return cutHere(cut0);
  for (;;) {
    const mover = toMove();
    if (mover === null) break;
    if (mover === clientPlayer) {
      const r = await pump(MOVE_TIMEOUT_MS, (d) => inGame(d, true) === 'move');
      if (r === 'exit') wire.fail(`stopped during the game (${position()})`, J.end);
      if (r === 'timeout') wire.fail(`made no move within ${MOVE_TIMEOUT_MS} ms on ${position()} (the move timeout, §3.5)`);
      clientMovedAt = wire.now();
      const c = cutAt('client-moved', clientCount++);
      if (c !== null) return cutHere(c);
    } else {
      const c = cutAt('peer-moves', ourCount);
      if (c === 'stage5' || c === 'silent' || c === 'stall') return cutHere(c);
      if (c === 'stage5-then-move') {
        wire.note('stage 5 although the game goes on (as if our board said so); our move follows in 3 s');
        await out(lastMove !== null ? [lastMove, { kind: 'game-over' }] : [{ kind: 'game-over' }]);
        const r = await pump(3000 / k, gameOnly);
        if (r === 'exit') wire.fail('stopped after a stage 5 that came without a final move: a stage 5 never decides the game (§3.6)', J.stage5);
      }
      if (o.noise === true) await noise();
      const think = o.thinkMs?.(ourCount) ?? 0;
      if (think > 0) {
        wire.note(`we think ${think} ms (our last packet repeats every 2 s)`);
        const r = await pump(think / k, gameOnly);
        if (r === 'exit') wire.fail(`stopped while we thought (${position()})`, J.slow);
      }
      if (o.stale === true && ourMoves.length >= 2) {
        wire.note('an old move of ours again (stale)');
        for (let i = 0; i < copies; i++) await wire.send([ourMoves[ourMoves.length - 2] ?? '']);
      }
      const column = choose(o.strategy ?? 'easy', state, rng);
      const turn = o.turns === 'own' ? ourCount : state.moves.length;
      const next = apply(state, column);
      if (!next.ok) throw new Error(`the scripted peer chose an illegal column ${column}`);
      state = next.value;
      wire.note(`we play column ${column} (turn ${turn})`);
      const move: OutgoingMessage = { kind: 'move', turn, column };
      ourMoves.push(spell(move));
      ourCount++;
      if (status(state).kind !== 'running') {
        sentReady = true;
        return endWindow(move, false);
      }
      await out([move]);
      lastMove = move;
      if (c === 'abort') return cutHere('abort');
    }
  }
  return endWindow(null, true);

  // ---- the parts ----

  async function noise(): Promise<void> {
    const turn = state.moves.length;
    const legal = legalMoves(state);
    const col = legal[legal.length - 1] ?? 1;
    const fake = (extra: Record<string, unknown>): string => JSON.stringify({ version: 2, clienttype: 0, stage: 4, turn, column: col, ...extra });
    const lines = [
      fake({ version: 1 }),
      fake({ version: '3' }),
      JSON.stringify({ clienttype: 0, stage: 4, turn, column: col }),
      fake({ stage: 7 }),
      fake({ stage: 'four' }),
      fake({ column: 'x' }),
      fake({ turn: -1, column: 1 }),
      fake({ clientname: 42 }),
      '[2,4]',
      'hello',
      fake({}).slice(0, -1),
      '',
    ];
    wire.note(`datagrams the client must ignore (wrong or no version, unknown or bad stage, a keepalive, garbage), then a move of turn ${turn} from a third party`);
    for (const l of lines) await wire.sendRaw(l);
    const third = await thirdParty();
    if (third !== null) {
      await third(formatMessage({ kind: 'move', turn, column: col }, 0));
      await third(formatMessage({ kind: 'invitation', name: 'intruder' }, 0));
    }
    const r = await pump(QUIET_MS, (d) => inGame(d, false, J.ignore) !== null);
    if (r === 'exit') wire.fail('stopped after datagrams it must ignore', J.ignore);
  }

  /** The game is decided on the board: stage 5 (≤ 5 times, every 2 s), our final move alongside if it was ours. */
  async function endWindow(ourFinal: OutgoingMessage | null, byClient: boolean): Promise<void> {
    const st = status(state);
    wire.note(`the game ends on the board (${position()}): ${st.kind === 'won' ? (st.winner === clientPlayer ? 'the client wins' : 'we win') : 'a draw'}`);
    await out(ourFinal !== null ? [ourFinal, { kind: 'game-over' }] : [{ kind: 'game-over' }]);
    const endAt = wire.now();
    if (cutAt('end', 0) === 'abort') {
      wire.note('a 99 after the end: it must go unanswered (§3.6)');
      await write({ kind: 'abort' });
    }
    let fives = 0;
    let lastFive = -Infinity;
    const r = await pump(END_WATCH_MS, (d) => {
      const m = d.m;
      switch (m.kind) {
        case 'game-over':
          if (d.at - lastFive < RESEND_MS - SLACK_MS) wire.fail(`sent stage 5 again after ${Math.round(d.at - lastFive)} ms: every 2 s`, J.endWindow);
          if (++fives > END_REPEATS) wire.fail(`sent stage 5 more than ${END_REPEATS} times`, J.endWindow);
          lastFive = d.at;
          return false;
        case 'move': {
          const known = clientMoves.get(m.turn);
          if (known === m.column && (byClient || d.at - endAt < CROSSING_MS * k)) return false;
          if (m.turn < 0) return false;
          return wire.fail(`sent "${d.raw}" after the game had ended (${position()})`, J.end);
        }
        case 'abort':
          return wire.fail(`sent 99 after the game had ended on the board`, cutAt('end', 0) === 'abort' ? J.ignoreAfterEnd : J.end);
        case 'ready':
        case 'keepalive':
          return wire.fail(`sent "${d.raw}" after the game had ended`, J.end);
        default:
          return false;
      }
    });
    if (fives === 0) wire.fail(`sent no stage 5 after the game's end (${position()})${r === 'exit' ? ' before it stopped' : ''}`, silence(J.end));
  }

  /** What the client must do when the scenario's cut comes. */
  async function cutHere(action: CutAction): Promise<void> {
    switch (action) {
      case 'abort':
        return abort();
      case 'silent':
        return silent();
      case 'stall':
        return stall();
      case 'stage5':
        return stage5Only();
      case 'stage5-then-move':
        return;
    }
  }

  async function abort(): Promise<void> {
    wire.note('we abort the game (99 every 2 s until acknowledged)');
    await out([{ kind: 'abort' }]);
    const sentAt = wire.now();
    const r = await pump(ANSWER_MS, (d) => {
      switch (d.m.kind) {
        case 'abort':
          return true;
        case 'move': {
          if (d.m.turn < 0 || clientMoves.get(d.m.turn) === d.m.column) return false;
          if (d.at - sentAt < CROSSING_MS * k && inGame(d, true) === 'move') {
            wire.note('(this move crossed our 99 on the wire: not judged)');
            return false;
          }
          return wire.fail(`sent a new move (turn ${d.m.turn}, column ${d.m.column}) after our 99`, J.abort);
        }
        case 'game-over':
          return wire.fail(`sent stage 5 in answer to our 99`, J.abort);
        default:
          return false;
      }
    });
    if (r !== 'done') wire.fail(`did not acknowledge our 99 within ${ANSWER_MS} ms${r === 'exit' ? ' (it stopped without one)' : ''}`, J.abort);
    stopRepeats();
    await leaves(J.abort, ABORT_WATCH_MS, true);
  }

  /** After the client's first 99: only 99s (every 2 s, ≤ 10), stage 1 and 2; nothing of the game. */
  async function leaves(j: Judgement, watchMs: number, ackMore: boolean): Promise<void> {
    let last = wire.now();
    let count = 1;
    const ackAt = wire.now();
    await pump(watchMs, (d) => {
      switch (d.m.kind) {
        case 'abort':
          if (!ackMore) {
            if (d.at - ackAt < CROSSING_MS * k) return false;
            return wire.fail('sent 99 again after our acknowledgement: the aborting side stops when a 99 arrives (§3.7)', j);
          }
          if (d.at - last < RESEND_MS - SLACK_MS) wire.fail(`sent 99 again after ${Math.round(d.at - last)} ms: every 2 s`, j);
          if (++count > 10) wire.fail('sent more than 10 acknowledgements', j);
          last = d.at;
          return false;
        case 'announce':
        case 'invitation':
        case 'acceptance':
          return false;
        default:
          return wire.fail(`sent "${d.raw}" after the game was aborted: it must leave the game (§3.7)`, j);
      }
    });
  }

  async function silent(): Promise<void> {
    stopRepeats();
    wire.note(`we fall silent; the client must abort ${SILENCE_MS} ms after our last datagram`);
    await givesUp(lastSentAt, SILENCE_MS, J.silence, 'our last datagram');
  }

  async function stall(): Promise<void> {
    wire.note(`we repeat our last packet every 2 s but never move; the client must abort ${MOVE_TIMEOUT_MS} ms after its move`);
    await givesUp(clientMovedAt, MOVE_TIMEOUT_MS, J.stall, 'its move');
  }

  async function givesUp(since: number, limit: number, j: Judgement, what: string): Promise<void> {
    const r = await pump((since + limit * k + ANSWER_MS * k - wire.now()) / k, (d) => {
      if (d.m.kind === 'abort') {
        const after = d.at - since;
        if (after < limit - SLACK_MS) wire.fail(`aborted ${Math.round(after)} ms after ${what}: the spec waits ${limit} ms`, j);
        return true;
      }
      return gameOnly(d);
    });
    if (r !== 'done') wire.fail(`did not abort (99) within ${limit + ANSWER_MS} ms after ${what}${r === 'exit' ? ' (it stopped without a 99)' : ''}`, j);
    stopRepeats();
    wire.note('we acknowledge with one 99');
    await write({ kind: 'abort' });
    await leaves(j, 3000, false);
  }

  async function stage5Only(): Promise<void> {
    wire.note('stage 5 in place of our move, and no move ever: the client waits 10 s, then ends the game without a result and without 99');
    await out([{ kind: 'game-over' }]);
    const since = wire.now();
    // Watched one resend interval past the limit: a client that repeats every 2 s until its own
    // 30 s move timer shows itself at least once there.
    await pump(FINAL_MOVE_WAIT_MS + ANSWER_MS + RESEND_MS + 1000, (d) => {
      const m = d.m;
      if (m.kind === 'abort') return wire.fail('sent 99 after a stage 5 without the final move: the game ends without 99 (§3.6)', J.noFinalMove);
      if (m.kind === 'game-over' || m.kind === 'announce' || m.kind === 'invitation' || m.kind === 'acceptance') return false;
      if (d.at - since > (FINAL_MOVE_WAIT_MS + ANSWER_MS) * k)
        return wire.fail(`sent "${d.raw}" ${Math.round(d.at - since)} ms after our stage 5: it must have ended the game after 10 s`, J.noFinalMove);
      return gameOnly(d);
    });
  }
}
