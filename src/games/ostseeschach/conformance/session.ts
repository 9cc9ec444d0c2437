import { ThinkingCut, type Judgement, type ScriptedWire } from '../../../core/conformance.js';
import { Rng } from '../../../core/rng.js';
import { opponent, parseMoveName, sameSquare, type Coordinates, type Move, type Team } from '../board.js';
import { depth2Bot } from '../bots/depth2.js';
import { noMoveFallback } from '../bots/fallback.js';
import { GAME_TYPE, LOBBY_ERROR, MISTAKE_TEXT, invalidMoveMessage, moveText, violationReason, type DisconnectCause } from '../messages.js';
import { USUAL_READ_SIZES, textAcross } from '../../../core/utf8-cuts.js';
import { formatServer, parseClient, type ClientMove, type ClientPacket, type RoomMessage, type ServerPacket } from '../protocol.js';
import { apply, isOver, legalMoves, pieceAt, toMove, validate, type RuleErrorCode, type State } from '../rules.js';
import { scoreGame, type SeatOutcome } from '../score.js';
import { fromSetup } from '../setup.js';
import { parsePackets } from '../xml/parser.js';
import { UNREADABLE } from './framer.js';
import { OSTSEESCHACH_JUDGEMENTS as J } from './judgements.js';
import { amberGiftMove, type ScoredSquare } from './gifts.js';
import { Output, type WriteMode } from './output.js';

/**
 * One scripted Ostseeschach connection as our server (and the official 22.final server) plays it
 * (spec §3): the client's `<protocol>` and join request, `joined`, the welcome, mementos and move
 * requests of a game under the real rules (rules.ts; the opponent's moves are the depth-2 bot's),
 * and the end: the regular result, or at a cut point what ends a game early — the opponent leaving,
 * its invalid move or timeout, a cancel, the server stopping or the connection closing. Every
 * packet is written by protocol.ts and scored by score.ts, the code our server writes with.
 */

export const ROOM_ID = '9b3c6e2a-4f1d-4c8e-a7b5-3d2e1f0c9a84';
/** The room a plain `<join/>` opens when the client's seat is reserved. */
const OTHER_ROOM_ID = '0d4f8a2c-6b1e-4f3a-9c7d-2e5b8a1f4c60';
export const RESERVATIONS: Readonly<Record<Team, string>> = {
  ONE: 'c0ffee00-1d2b-4c3d-8e4f-5a6b7c8d9e01',
  TWO: 'c0ffee00-1d2b-4c3d-8e4f-5a6b7c8d9e02',
};
/** The prepare's display names (the opponent's needs escaping and UTF-8, as a real name may). */
export const CLIENT_NAME = 'check-client';
export const OPPONENT_NAME = "Gegner & 'Söhne'";
export const SOFT_TIMEOUT_MS = 2000;
export const HARD_TIMEOUT_MS = 10_000;
/** Between the pieces of the result packet that `utf8Name` cuts: a busy client still reads each on its own. */
export const UTF8_GAP_MS = 100;
/** How long the client may take to open its stream and join. */
const JOIN_MS = 10_000;
/** How long the client may take to end its connection and exit after its game (or the server) ended. */
export const EXIT_MS = 2000;
/** A cut `thinking` comes this long after the moveRequest, while a client that thinks has not answered. */
const THINKING_CUT_MS = 50;
/** A move read this much after the thinking cut's window came after it: the kit was late, not the client quick. */
const KIT_LATE_MS = 150;
/** A refused join: the connection stays open; the client must not wait forever. */
const REFUSED_MS = 3000;

/** Every time window of the Ostseeschach scenarios (docs/check-client/ostseeschach.md "Timers and tolerances"). */
export const OSTSEESCHACH_TIMERS = { SOFT_TIMEOUT_MS, HARD_TIMEOUT_MS, UTF8_GAP_MS, JOIN_MS, EXIT_MS, THINKING_CUT_MS, REFUSED_MS } as const;
/** The server's limit on one client packet (characters), the default of xml/parser.ts. */
export const MAX_PACKET_CHARS = 64 * 1024;

/** What ends a game early (spec §3.5–§3.7, §3.10). */
export type Ending =
  /** The opponent's connection ends: LEFT with this cause. */
  | { kind: 'left'; cause: DisconnectCause }
  /** The opponent sends an invalid move: RULE_VIOLATION (the client sees only the result). */
  | { kind: 'violation' }
  /** The opponent's move comes after 2000 ms / none within 10 000 ms: SOFT_TIMEOUT, no winner. */
  | { kind: 'softTimeout' }
  | { kind: 'hardTimeout' }
  /** An administrator cancels the room. */
  | { kind: 'cancel' }
  /** The server stops: `<sc.protocol.CloseConnection/>`, `</protocol>`, FIN. */
  | { kind: 'serverStops' }
  /** The connection just closes (FIN, no further byte). */
  | { kind: 'serverCloses' };

/**
 * Where an Ending interrupts the game: `prolog` right after `joined` (the opponent never came),
 * `welcome` after the welcome of a paused game, `thinking` 50 ms after a moveRequest (the client
 * owes a move and gets the end while it thinks; a client that moved within the 50 ms gets it right
 * after its move), `ownMove` 50 ms after the memento of the client's own move.
 */
export type CutPoint = 'prolog' | 'welcome' | 'thinking' | 'ownMove';

export interface OstseeschachSession {
  /** The client's team: ONE moves first. */
  team: Team;
  /**
   * `any`: the client's seat takes any join request its command line makes (its reservation,
   * `joinRoom` of {room}, or a plain `<join/>`); `prepared`: the seat is reserved, only its code
   * opens it; `refused`: the server refuses the request with the errorpacket it has for it.
   */
  join: 'any' | 'prepared' | 'refused';
  /** A room `<join/>` created: the players have no names (`<player team="ONE"/>`). */
  unnamed?: boolean;
  /** Display names, ONE then TWO, instead of the defaults. */
  names?: readonly [string, string];
  /**
   * ONE's display name, known only to the result, is made so that its ä, € and 🂡 lie across bytes
   * 1000, 1024 and 4096 of the result packet, and that packet is written cut there (issue 32).
   */
  utf8Name?: boolean;
  /** The client's seat has `canTimeout="true"`: each move within 2000 ms (else the kit waits 10 s). */
  canTimeout?: boolean;
  /** The start: a layout (ONE's types at x = 0) or a set-up position. */
  layout?: string;
  start?: () => State;
  /** The opponent's first moves (`xy-xy`); then the depth-2 bot. */
  opening?: readonly string[];
  /** The opponent: the depth-2 bot (default), or one that makes the client score ambers (gifts.ts). */
  opponent?: 'depth2' | 'amberGifts';
  /** How long the opponent thinks before its n-th move (from 0). */
  thinkMs?: (n: number) => number;
  /** One write per packet (the server's way), cut in three, several packets in one, or slow pieces. */
  writes?: WriteMode;
  /** A paused room (step mode): every memento and request follows a step this long after the last. */
  stepMs?: number;
  /** After this many moves of the client, at this point, this ending; without: to the end. */
  cut?: { afterClientMoves: number; at: CutPoint; then: Ending };
}



type Message =
  | { kind: 'open'; raw: string }
  | { kind: 'close'; raw: string }
  | { kind: 'packet'; raw: string; packet: ClientPacket };

/** `</protocol>` or `<sc.protocol.CloseConnection/>`: the client ends its side. */
const isGoodbye = (m: Message): boolean => m.kind === 'close' || (m.kind === 'packet' && m.packet.type === 'closeConnection');
const squareText = (c: Coordinates): string => `[${c.x}|${c.y}]`;
const isMove = (p: ClientPacket): p is Extract<ClientPacket, { type: 'room' }> & { data: { class: 'move'; move: ClientMove } } =>
  p.type === 'room' && p.data?.class === 'move';

export function runOstseeschachSession(o: OstseeschachSession): (wire: ScriptedWire) => Promise<void> {
  return async (wire: ScriptedWire) => {
    const out = new Output(wire, o.writes ?? 'packets');
    const team = o.team;
    const rival = opponent(team);
    const names: Record<Team, string> = o.unnamed
      ? { ONE: '', TWO: '' }
      : o.names
        ? { ONE: o.names[0], TWO: o.names[1] }
        : ({ [team]: CLIENT_NAME, [rival]: OPPONENT_NAME } as Record<Team, string>);
    const rng = Rng.seeded(`check-client:${o.layout ?? 'start'}`);
    let state: State = o.start ? o.start() : startOf(o.layout ?? 'RMRSHSMH');
    /** Squares where a move of the client scored an amber (its piece left the board there). */
    const amberSquares: ScoredSquare[] = [];
    let first = true;

    const room = (data: RoomMessage): ServerPacket => ({ type: 'room', roomId: ROOM_ID, data });
    /** A pause of the server (held packets go out first); none at all for 0 ms, so coalesced writes stay whole. */
    const delay = async (ms: number): Promise<void> => {
      if (ms <= 0) return;
      await out.flush();
      await wire.delay(ms);
    };
    /** The client's next message, 'ended' when it closed, 'timeout' when none came in `ms`. */
    const read = async (ms: number, what: string): Promise<Message | 'ended' | 'timeout'> => {
      await out.flush();
      const line = await wire.next(ms);
      if (line === null) return wire.ended() ? 'ended' : 'timeout';
      if (line.startsWith(UNREADABLE))
        wire.fail(`sent XML our server cannot read ${what} ${line.slice(UNREADABLE.length).replace(/\]$/, '')}: it drops the client (LEFT, PROTOCOL_ERROR)`, J.stream);
      if (first) {
        first = false;
        if (line !== '<protocol>') wire.fail(`opened its stream with ${line}, not <protocol>: the official server takes the first element as the root and drops the client`, J.stream);
        return { kind: 'open', raw: line };
      }
      if (line === '</protocol>') return { kind: 'close', raw: line };
      const element = parsePackets(`<protocol>${line}`).packets[0];
      const parsed = element ? parseClient(element) : null;
      if (!parsed?.ok)
        wire.fail(`sent "${line}" ${what}: ${parsed ? parsed.error.message : 'not an element'} — our server reads that as a protocol error and drops the client (LEFT, PROTOCOL_ERROR)`, J.stream);
      return { kind: 'packet', raw: line, packet: parsed.value };
    };
    const seats = (ending: Ending | null, violator?: { team: Team; reason: string }): [SeatOutcome, SeatOutcome] => {
      const seat = (t: Team): SeatOutcome => {
        const theirs = t === rival && ending !== null;
        return {
          team: t,
          name: names[t],
          left: theirs && ending.kind === 'left' ? ending.cause : null,
          violation: violator?.team === t ? violator.reason : null,
          softTimeout: theirs && ending.kind === 'softTimeout',
          hardTimeout: theirs && ending.kind === 'hardTimeout',
        };
      };
      return [seat('ONE'), seat('TWO')];
    };
    const sendResult = async (outcomes: [SeatOutcome, SeatOutcome]): Promise<void> => {
      const scored = (o: [SeatOutcome, SeatOutcome]): ReturnType<typeof scoreGame> => scoreGame(state, o, { softTimeoutMs: SOFT_TIMEOUT_MS, hardTimeoutMs: HARD_TIMEOUT_MS });
      let result = scored(outcomes);
      let splitAt: readonly number[] | undefined;
      if (o.utf8Name === true) {
        // Where ONE's name starts in the packet (its first entry), then a name that puts the characters across the read sizes.
        const mark = 'check-client-mark';
        const withName = (name: string): [SeatOutcome, SeatOutcome] => outcomes.map((x) => (x.team === 'ONE' ? { ...x, name } : x)) as [SeatOutcome, SeatOutcome];
        const start = Buffer.from(formatServer(room({ class: 'result', result: scored(withName(mark)) }))).indexOf(mark);
        result = scored(withName(textAcross(start, USUAL_READ_SIZES[2] + 200, { filler: 'check-client ' })));
        splitAt = USUAL_READ_SIZES;
      }
      wire.note(`the game ends: ${result.scores.map((s) => `${s.team} ${s.cause} ${s.parts.join('/')}`).join(', ')}${result.winner ? `, winner ${result.winner}` : ', no winner'}`);
      await out.packet(room({ class: 'result', result }), splitAt === undefined ? {} : { splitAt, gapMs: UTF8_GAP_MS });
      await out.packet({ type: 'left', roomId: ROOM_ID });
    };

    /**
     * After `<left>`: the client may still send the move it was computing (`lateMoveMs` after the
     * last request; our server answers it with an errorpacket: the room is gone), then it ends the
     * connection. `result`: it had a game with a result, so it exits with code 0.
     */
    const finish = async (options: { result: boolean; lateMoveMs?: number; judgement?: Judgement; after?: string; serverEnded?: boolean }): Promise<void> => {
      const judgement = options.judgement ?? J.end;
      const after = options.after ?? 'after <left>';
      const window = EXIT_MS + (options.lateMoveMs ?? 0);
      const deadline = wire.now() + wire.scaled(window);
      let lateMove = options.lateMoveMs !== undefined;
      let serverClosed = options.serverEnded ?? false;
      for (;;) {
        const left = Math.max(1, (deadline - wire.now()) / wire.scaled(1));
        const m = await read(left, after);
        if (m === 'timeout') wire.fail(`did not end the connection within ${wire.scaled(window)} ms ${after} (nothing came, the connection stayed open)`, judgement);
        if (m === 'ended') {
          wire.close();
          break;
        }
        if (m.kind === 'packet' && isMove(m.packet) && lateMove) {
          lateMove = false;
          wire.note('a move computed before the client read the end (the room is gone: an errorpacket answers it)');
          if (!serverClosed) await out.packet({ type: 'errorpacket', message: LOBBY_ERROR.roomNotFound(m.packet.roomId), original: m.packet });
          continue;
        }
        if (isGoodbye(m)) {
          if (!serverClosed) {
            // Our server answers the goodbye (and a </protocol> after <left>) with the end of its stream.
            await out.close();
            await wire.halfClose();
            serverClosed = true;
          }
          continue;
        }
        wire.fail(`sent "${m.raw}" ${after}`, judgement);
      }
      await wire.expectExit(EXIT_MS, `${after} and the end of the connection`, { ...(options.result ? { code: 0 } : {}), judgement });
    };

    /** The early ends that need no result: the server stops or the connection closes. */
    const serverGone = async (ending: Ending, lateMoveMs?: number): Promise<void> => {
      if (ending.kind === 'serverStops') {
        wire.note('the server stops');
        await out.packet({ type: 'closeConnection' });
        await out.close();
      } else {
        await out.flush();
        wire.note('the connection closes without a further byte');
      }
      await wire.halfClose();
      await finish({ result: false, serverEnded: true, judgement: J.closed, after: 'after the server ended the connection', ...(lateMoveMs !== undefined ? { lateMoveMs } : {}) });
    };

    /** Plays an early end at a cut point. */
    const end = async (ending: Ending, at: CutPoint): Promise<void> => {
      const late = at === 'thinking' ? SOFT_TIMEOUT_MS : undefined;
      if (ending.kind === 'serverStops' || ending.kind === 'serverCloses') return serverGone(ending, late);
      let violator: { team: Team; reason: string } | undefined;
      if (ending.kind === 'violation') {
        // The opponent's piece "moves" in place: INVALID_MOVEMENT, as noMoveFallback would send.
        const move = noMoveFallback(state);
        const code = validate(state, move)?.code ?? 'INVALID_MOVEMENT';
        violator = { team: rival, reason: violationReason(code, move) };
        wire.note(`the opponent sends the invalid move ${moveText(move)}`);
      } else if (ending.kind === 'softTimeout') {
        await delay(SOFT_TIMEOUT_MS + 300);
        wire.note('the opponent’s move came too late');
      } else if (ending.kind === 'hardTimeout') {
        await delay(HARD_TIMEOUT_MS);
        wire.note('the opponent sent no move within 10 s');
      } else if (ending.kind === 'left') wire.note(`the opponent left (${ending.cause})`);
      else wire.note('an administrator cancels the room');
      const outcomes = seats(ending, violator);
      // Before the game started the opponent's seat was never filled (spec §3.10 cancel).
      if (at === 'prolog') outcomes[rival === 'ONE' ? 0 : 1] = { ...outcomes[rival === 'ONE' ? 0 : 1], left: 'NOT_CONNECTED' };
      await sendResult(outcomes);
      await finish({ result: true, ...(late !== undefined ? { lateMoveMs: late } : {}) });
    };

    // ---- the join (spec §3.2) ----
    const open = await read(JOIN_MS, 'first');
    if (open === 'timeout' || open === 'ended') wire.fail(`did not open its stream with <protocol> within ${wire.scaled(JOIN_MS)} ms`, J.stream);
    const request = await read(JOIN_MS, 'as its join request');
    if (request === 'timeout' || request === 'ended') return wire.fail(`sent no join request within ${wire.scaled(JOIN_MS)} ms of <protocol>`, J.join);
    if (request.kind !== 'packet') return wire.fail(`sent ${request.raw} instead of a join request`, J.join);
    const join = request.packet;
    const code = RESERVATIONS[team];
    if (o.join === 'refused' && !(join.type === 'join' && (join.gameType === null || join.gameType === GAME_TYPE))) {
      const message =
        join.type === 'joinPrepared'
          ? LOBBY_ERROR.unknownReservation()
          : join.type === 'joinRoom'
            ? LOBBY_ERROR.roomNotFound(join.roomId)
            : join.type === 'join'
              ? LOBBY_ERROR.unknownGameType(join.gameType)
              : null;
      if (message === null) return wire.fail(`sent "${request.raw}" instead of a join request`, J.join);
      wire.note('the server refuses the join request');
      await out.packet({ type: 'errorpacket', message, original: join });
      const answer = await read(REFUSED_MS, 'after the errorpacket');
      if (answer === 'timeout') return wire.fail(`neither ended the connection nor tried again within ${wire.scaled(REFUSED_MS)} ms of the errorpacket`, J.refused);
      if (answer !== 'ended' && answer.kind === 'packet' && ['join', 'joinRoom', 'joinPrepared'].includes(answer.packet.type)) {
        wire.note('the client tries another join request: fine (the scenario ends here)');
        return;
      }
      if (answer !== 'ended' && !isGoodbye(answer)) return wire.fail(`sent "${answer.raw}" after the errorpacket`, J.refused);
      if (answer !== 'ended') {
        // CloseConnection is answered with the end of the stream; a bare </protocol> is not.
        if (answer.kind === 'packet') await out.close();
        await wire.halfClose();
      }
      return finish({ result: false, judgement: J.refused, after: 'after the errorpacket' });
    }
    if (o.join === 'refused') wire.note('a plain <join/> cannot be refused: the game goes on as usual');
    switch (join.type) {
      case 'joinPrepared':
        if (join.reservationCode !== code) {
          await out.packet({ type: 'errorpacket', message: LOBBY_ERROR.unknownReservation(), original: join });
          return wire.fail(`sent the reservation code "${join.reservationCode ?? ''}", not the one from the command line (${code})`, J.join);
        }
        break;
      case 'joinRoom':
        if (join.roomId !== ROOM_ID) {
          await out.packet({ type: 'errorpacket', message: LOBBY_ERROR.roomNotFound(join.roomId), original: join });
          return wire.fail(`asked to join room "${join.roomId ?? ''}"; the room of {room} is ${ROOM_ID}`, J.join);
        }
        if (o.join === 'prepared') {
          await out.packet({ type: 'errorpacket', message: LOBBY_ERROR.roomFull(join.roomId), original: join });
          return wire.fail(`sent joinRoom, but its seat is reserved for the code ${code}: the server answers "Room … is already full!"`, J.join);
        }
        break;
      case 'join':
        if (o.join === 'prepared') {
          // The only free seat is reserved: the server opens a new room, where nobody will come.
          await out.packet({ type: 'joined', roomId: OTHER_ROOM_ID });
          return wire.fail(`sent "${request.raw}" though the command line gave the reservation code ${code}: the seat is reserved, so a real server opens a new room for it and its game never starts`, J.join);
        }
        break;
      default:
        return wire.fail(`sent "${request.raw}" instead of a join request`, J.join);
    }
    await out.packet({ type: 'joined', roomId: ROOM_ID });
    const cut = o.cut;
    if (cut?.at === 'prolog') return end(cut.then, 'prolog');

    // ---- the game (spec §3.3, §3.4) ----
    await out.packet(room({ class: 'welcomeMessage', color: team }));
    if (cut?.at === 'welcome') {
      await delay(o.stepMs ?? 300);
      return end(cut.then, 'welcome');
    }
    const paused = o.stepMs !== undefined;
    if (!paused) await out.packet(room({ class: 'memento', state }));
    let clientMoves = 0;
    let opponentMoves = 0;
    // The client move after which the end comes while it thinks (moved on when the kit was late).
    let thinkingCutAt = cut?.at === 'thinking' ? cut.afterClientMoves : -1;
    const thinkingCut = new ThinkingCut(wire, {
      windowMs: wire.scaled(THINKING_CUT_MS),
      slackMs: KIT_LATE_MS,
      after: 'the moveRequest',
      window: `its ${wire.scaled(THINKING_CUT_MS)} ms window`,
      then: 'the end comes while the client thinks about its next move',
    });
    while (!isOver(state)) {
      if (paused) {
        await delay(o.stepMs ?? 0);
        wire.note('an administrator steps the paused game');
        await out.packet(room({ class: 'memento', state }));
      }
      if (toMove(state) === team) {
        const requested = wire.now();
        await out.packet(room({ class: 'moveRequest' }));
        await out.flush();
        const asked = wire.now();
        // What came before this request was complete was not asked for: a move out of turn, or an
        // answer to a packet the client had not read to its end.
        const early = wire.takeCrossed();
        if (early.length > 0)
          return wire.fail(
            `sent "${early[0] ?? ''}" before its moveRequest was complete: a move out of turn or before the request ends the game as RULE_VIOLATION ("It's not your turn yet …")`,
            J.move,
          );
        // With canTimeout the hard timeout; without, the kit waits as long (the server would wait forever).
        const limit = HARD_TIMEOUT_MS;
        let endAfterMove = false;
        let m: Message | 'timeout' | 'ended';
        if (cut?.at === 'thinking' && thinkingCutAt === clientMoves) {
          m = await read(THINKING_CUT_MS, 'while it owed a move');
          // From before the request was written to when the kit looked (its timer, or the move it
          // read): a kit slowed by a busy machine looks late, and then the client may have moved
          // long before (its move still unread) or read the end only after it moved.
          const took = (m === 'timeout' ? wire.now() : wire.lastTakenAt) - requested;
          if (thinkingCut.late(took)) {
            thinkingCutAt++;
            if (m === 'timeout') m = await read(limit, 'while it owed a move');
          } else if (m === 'timeout') return end(cut.then, 'thinking');
          else {
            // Quicker than the end: the server plays its move, and the end follows it.
            wire.note(`the client moved within ${THINKING_CUT_MS} ms: the end follows its move`);
            endAfterMove = true;
          }
        } else m = await read(limit, 'while it owed a move');
        const elapsed = Math.round((wire.now() - asked) / wire.scaled(1));
        if (m === 'timeout') {
          if (o.canTimeout) await sendResult(seats(null, undefined).map((s) => (s.team === team ? { ...s, hardTimeout: true } : s)) as [SeatOutcome, SeatOutcome]);
          return wire.fail(`sent no move within ${wire.scaled(limit)} ms of the moveRequest`, o.canTimeout ? J.time : J.move);
        }
        if (m === 'ended') return wire.fail('closed the connection while it owed a move: the server scores that LEFT (LOST_CONNECTION)', J.move);
        if (m.kind !== 'packet' || isGoodbye(m)) return wire.fail(`sent ${m.raw} while it owed a move: the server scores that LEFT`, J.move);
        const packet = m.packet;
        if (!isMove(packet)) return wire.fail(`sent "${m.raw}" where the moveRequest asks for a move`, J.move);
        if (packet.roomId !== ROOM_ID) {
          await out.packet({ type: 'errorpacket', message: LOBBY_ERROR.roomNotFound(packet.roomId), original: packet });
          return wire.fail(`sent its move to room "${packet.roomId ?? ''}", not to ${ROOM_ID} of <joined>: the server answers an errorpacket and the clock runs on`, J.move);
        }
        if (o.canTimeout && elapsed > SOFT_TIMEOUT_MS) {
          await sendResult(seats(null).map((s) => (s.team === team ? { ...s, softTimeout: true } : s)) as [SeatOutcome, SeatOutcome]);
          return wire.fail(`sent its move ${elapsed} ms after the moveRequest: the server discards it and the client loses by SOFT_TIMEOUT`, J.time);
        }
        const move = packet.data.move;
        const applied = move.from === null ? null : apply(state, { from: move.from, to: move.to });
        if (applied === null || !applied.ok) {
          const code: RuleErrorCode = applied === null ? 'WRONG_COLOR' : applied.error.code;
          if (legalMoves(state).length === 0) {
            // No legal move: the official server asks anyway and the player loses (spec §2, §4 #8).
            wire.note('the client had no legal move: its invalid move loses, as on the official server');
            await out.packet(room({ class: 'error', message: invalidMoveMessage(names[team], code, move), original: move }));
            await sendResult(seats(null, { team, reason: violationReason(code, move) }));
            return finish({ result: true });
          }
          const from = move.from;
          const ghost = from !== null && amberSquares.some((c) => sameSquare(c.at, from));
          return wire.fail(
            `sent the illegal move ${moveText(move)} (${MISTAKE_TEXT[code]}): our server answers with a room error and the client loses by RULE_VIOLATION`,
            ghost
              ? { ...J.legal, hint: `${squareText(from)} is empty: the piece that moved there scored an amber and left the board (spec §2 "Ambers"); read the board from each memento.` }
              : J.legal,
          );
        }
        const before = state.ambers[team];
        const mover = move.from === null ? null : pieceAt(state, move.from);
        state = applied.value;
        if (state.ambers[team] > before && mover !== null) amberSquares.push({ at: move.to, type: mover.type });
        clientMoves++;
        wire.note(`the client moves ${moveText(move)}${state.ambers[team] > before ? ' and scores an amber' : ''}`);
        if (!paused) await out.packet(room({ class: 'memento', state }));
        if (((cut?.at === 'ownMove' && cut.afterClientMoves === clientMoves) || endAfterMove) && cut !== undefined && !isOver(state)) {
          await delay(50);
          return end(cut.then, 'ownMove');
        }
      } else {
        await delay(o.thinkMs?.(opponentMoves) ?? 0);
        const scripted = o.opening?.[opponentMoves];
        const move: Move =
          scripted !== undefined
            ? (parseMoveName(scripted) ?? noMoveFallback(state))
            : o.opponent === 'amberGifts'
              ? amberGiftMove(state, amberSquares, rng)
              : depth2Bot(state, 0, rng);
        const applied = apply(state, move);
        if (!applied.ok) {
          // No legal move (or a broken opening): the opponent loses by its invalid move.
          return end({ kind: 'violation' }, 'ownMove');
        }
        state = applied.value;
        opponentMoves++;
        wire.note(`the opponent moves ${moveText(move)}`);
        if (!paused) await out.packet(room({ class: 'memento', state }));
      }
    }
    await sendResult(seats(null));
    await finish({ result: true });
  };
}

function startOf(layout: string): State {
  const s = fromSetup(layout);
  if (!s.ok) throw new Error(s.error.message);
  return s.value;
}
