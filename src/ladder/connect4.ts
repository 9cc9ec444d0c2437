import type { Logger } from '../core/log.js';
import type { BotLevel } from '../games/connect4/bots/index.js';
import type { Connect4Hub, LadderRecordSide } from '../games/connect4/hub.js';
import type { Connect4LadderDoor, LadderSession } from '../games/connect4/ladder-door.js';
import type { LadderPort } from '../games/connect4/ladder-port.js';
import type { AbortReason, BadMoveReason, PeerEvent, RemotePeer } from '../games/connect4/peer.js';
import { legalMoves, type C4State, type Player } from '../games/connect4/rules.js';
import type { Ladder, LadderTable, TableOutcome, TableSeat } from './ladder.js';
import type { LossReason, RosterEntry } from './types.js';

/**
 * Connect Four on the ladder (issue 34). The protocol is peer to peer, so the hub's Liga peer
 * plays one game with each student's peer (ladder-port.ts): a student against a house level is one
 * game, the Liga peer's moves chosen by our bot of that level; two students are two games, and
 * each student's move in one is the Liga peer's move in the other. Identity is the clientname: a
 * student's unchanged peer uses its 13-character ladder code as its name. The seat follows from
 * who invites (the inviter moves first, specs §2): a code that invites the Liga peer is accepted
 * at once and waits on the board for seat 0; a code that only announces itself waits in the lobby
 * for seat 1 and is invited when its game is made (ladder-door.ts).
 */

export type Connect4LadderHandle = { kind: 'inviter'; session: LadderSession } | { kind: 'invitee'; remote: RemotePeer };

export interface Connect4LadderOptions {
  log: Logger;
  /** Seed of the house levels' moves (default: the game's id). */
  seed?: string;
}

/** What the student's page names as the rule or the fault (docs/connect4.md). */
const RULE = 'the rules (specs/connect4.md §2): a column holding 6 stones is full; columns are 1–7';
export const CONNECT4_CHECK_COMMAND = 'spielhalle check-client connect4 -- <your peer command with {port} {peerPort} {name}>';

/** Why seat `seat`'s student lost, from how the Liga peer's game with it ended. */
export function connect4LossReason(reason: AbortReason, bad: { reason: BadMoveReason; turn: number; column: number } | null): LossReason | null {
  if (reason === 'move-timeout' && bad !== null) {
    if (bad.reason === 'out-of-turn' || bad.reason === 'turn-too-high')
      return { kind: 'protocol', detail: `your peer sent a move (turn ${bad.turn}, column ${bad.column}) that is not the next one (${bad.reason}), then no valid move in time`, command: CONNECT4_CHECK_COMMAND };
    return { kind: 'invalid-move', detail: `column ${bad.column} at turn ${bad.turn} is not a legal move (${bad.reason}); no legal move followed in time`, rule: RULE };
  }
  switch (reason) {
    case 'move-timeout':
      return { kind: 'timeout', detail: 'no move within the Liga move time (5/6 of the protocol’s 30 s, so that a slow opponent is caught before your peer gives up)' };
    case 'silence':
      return { kind: 'disconnect', detail: 'no datagram from your peer for 10 s (specs §3.5)' };
    case 'opponent-aborted':
      return { kind: 'disconnect', detail: 'your peer aborted the game (stage 99)' };
    case 'no-final-move':
      return { kind: 'protocol', detail: 'your peer sent stage 5 (game over) without a final move that ends the game', command: CONNECT4_CHECK_COMMAND };
    default:
      // Our side stopped (the server, an internal error): the game does not count.
      return null;
  }
}

const notRated = (note: string, recordId: string | null = null): TableOutcome => ({ scores: null, reasons: [null, null], recordId, note });

type Decision = { kind: 'result'; winner: Player | null } | { kind: 'forfeit'; loser: Player; reason: LossReason; why: string } | { kind: 'void'; note: string };

interface Busy {
  /** Waiting as an announcer, as an inviter on the board, or seated in a game. */
  kind: 'announced' | 'inviter' | 'playing';
  leave: () => void;
}

export class Connect4LadderTable implements LadderTable<Connect4LadderHandle>, Connect4LadderDoor {
  readonly game = 'connect4' as const;
  private port: LadderPort | null = null;
  /** Per remote address:port: waiting or playing, or resting after a game until the time given. */
  private readonly busy = new Map<string, Busy | { until: number }>();
  /** What was last logged of a refused peer (the log says it once, not every 2 s). */
  private readonly said = new Map<string, string>();

  constructor(
    private readonly ladder: Ladder,
    private readonly hub: Connect4Hub,
    private readonly o: Connect4LadderOptions,
  ) {}

  /** Opens the Liga peer on the hub. */
  async open(): Promise<LadderPort> {
    this.port = await this.hub.openLadder(this);
    return this.port;
  }

  knows(name: string): boolean {
    return this.ladder.knows(name);
  }

  present(peers: readonly RemotePeer[]): void {
    const now = Date.now();
    const here = new Set<string>();
    for (const p of peers) {
      here.add(p.key);
      const b = this.busy.get(p.key);
      if (b !== undefined && ('leave' in b || b.until > now)) continue;
      this.busy.delete(p.key);
      if (p.name === null) continue;
      const admission = this.ladder.admit('connect4', p.name);
      if (admission === null) continue;
      if (!admission.ok) {
        this.refused(p, admission.text, 'nobody invites it');
        continue;
      }
      this.enqueue(p, admission.entry, { kind: 'invitee', remote: p }, 1);
    }
    // An announcer that is gone from the lobby (10 s without stage 1) stops waiting.
    for (const [key, b] of this.busy)
      if ('leave' in b && b.kind === 'announced' && !here.has(key)) {
        b.leave();
        this.busy.delete(key);
      }
  }

  invited(from: RemotePeer, accept: () => LadderSession): void {
    const b = this.busy.get(from.key);
    if (b !== undefined && 'leave' in b) {
      if (b.kind !== 'announced') return;
      // It announced itself and now invites: it asks for the first move.
      b.leave();
      this.busy.delete(from.key);
    }
    if (from.name === null) return;
    const admission = this.ladder.admit('connect4', from.name);
    if (admission === null) {
      this.say(from, 'no ladder code', 'Liga: an invitation from a name that is no ladder code goes unanswered (the house peer plays it)');
      return;
    }
    if (!admission.ok) {
      this.refused(from, admission.text, 'its invitation goes unanswered');
      return;
    }
    const session = accept();
    // The student's game is on the board now; it ends (its 99, silence, a timeout) before the
    // ladder made the game: it waits no longer.
    const off = session.peer.on((event) => {
      if (event.type !== 'aborted' && event.type !== 'accept-expired') return;
      off();
      const w = this.busy.get(from.key);
      if (w !== undefined && 'leave' in w && w.kind === 'inviter') {
        w.leave();
        this.busy.delete(from.key);
      }
    });
    this.enqueue(from, admission.entry, { kind: 'inviter', session }, 0);
  }

  refuse(handle: Connect4LadderHandle, text: string): void {
    const remote = handle.kind === 'inviter' ? handle.session.remote : handle.remote;
    this.o.log.info({ peer: remote.key, text }, 'Liga: a Connect Four peer is turned away');
    // A game on the board gets the protocol's one "no": a 99.
    if (handle.kind === 'inviter') handle.session.close();
    this.busy.delete(remote.key);
  }

  private refused(p: RemotePeer, text: string, what: string): void {
    this.say(p, text, `${text} (Connect Four: ${what}; the protocol has no refusal)`);
  }

  private say(p: RemotePeer, key: string, text: string): void {
    if (this.said.get(p.key) === key) return;
    if (this.said.size > 10_000) this.said.clear();
    this.said.set(p.key, key);
    this.o.log.info({ peer: p.key }, text);
  }

  private enqueue(remote: RemotePeer, entry: RosterEntry, handle: Connect4LadderHandle, seat: 0 | 1): void {
    const busy: Busy = { kind: handle.kind === 'inviter' ? 'inviter' : 'announced', leave: () => undefined };
    this.busy.set(remote.key, busy);
    this.said.delete(remote.key);
    busy.leave = this.ladder.join('connect4', entry, { seat, host: remote.address }, handle, (text) => {
      if (this.busy.get(remote.key) === busy) this.busy.delete(remote.key);
      this.o.log.info({ peer: remote.key, text }, 'Liga: a Connect Four peer is turned away');
      if (handle.kind === 'inviter') handle.session.close();
    });
  }

  play(seats: [TableSeat<Connect4LadderHandle>, TableSeat<Connect4LadderHandle>], context: { gameId: string; season: string }): Promise<TableOutcome> {
    const port = this.port;
    const keys = seats.map((s) => (s.kind !== 'entry' ? null : s.handle.kind === 'inviter' ? s.handle.session.remote.key : s.handle.remote.key));
    for (const k of keys) if (k !== null) this.busy.set(k, { kind: 'playing', leave: () => undefined });
    const rest = (): void => {
      // After a game, a student's peer is left alone until its old lobby entry is surely gone.
      const until = Date.now() + (port === null ? 0 : port.restMs);
      for (const k of keys) if (k !== null) this.busy.set(k, { until });
    };
    // The protocol decides the seats: an inviter moves first, an invitee second (ladder-door.ts).
    const misplaced = seats.some((s, i) => s.kind === 'entry' && (s.handle.kind === 'inviter') !== (i === 0));
    const gone = seats.some((s) => s.kind === 'entry' && s.handle.kind === 'inviter' && s.handle.session.done);
    if (port === null || misplaced || gone) {
      for (const s of seats) if (s.kind === 'entry' && s.handle.kind === 'inviter') s.handle.session.close();
      rest();
      return Promise.resolve(notRated(port === null ? 'the Liga peer is closed' : misplaced ? 'seats against the protocol (an inviter moves first)' : 'a seat left before the start'));
    }
    const sessions = seats.map((s) => (s.kind !== 'entry' ? null : s.handle.kind === 'inviter' ? s.handle.session : port.invite(s.handle.remote)));
    return new RelayedGame(seats, sessions as [LadderSession | null, LadderSession | null], {
      hub: this.hub,
      log: this.o.log,
      seed: this.o.seed ?? context.gameId,
      meta: { ladder: { game: 'connect4', gameId: context.gameId, season: context.season, entries: seats.map((s) => (s.kind === 'entry' ? s.entry.id : null)) } },
    })
      .run()
      .finally(rest);
  }
}


/**
 * One ladder game: the Liga peer's game with each student (and a house level's moves where a seat
 * is the house). Every move of the ladder game is played on every board the Liga peer holds; the
 * first board that ends decides, and a running other board gets its 99.
 */
class RelayedGame {
  private readonly moves: number[] = [];
  private readonly bad: ({ reason: BadMoveReason; turn: number; column: number } | null)[] = [null, null];
  private readonly offs: (() => void)[] = [];
  private decided = false;
  private resolve: (o: TableOutcome) => void = () => undefined;

  constructor(
    private readonly seats: [TableSeat<Connect4LadderHandle>, TableSeat<Connect4LadderHandle>],
    /** Per seat: the Liga peer's game with that seat's student (null: a house seat). */
    private readonly sessions: [LadderSession | null, LadderSession | null],
    private readonly o: { hub: Connect4Hub; log: Logger; seed: string; meta: Record<string, unknown> },
  ) {}

  run(): Promise<TableOutcome> {
    const over = new Promise<TableOutcome>((resolve) => (this.resolve = resolve));
    this.sessions.forEach((s, i) => {
      if (s !== null) this.offs.push(s.peer.on((event) => this.onEvent(i as Player, event)));
    });
    // An inviter's board runs since its invitation: its first move may be in, or its game over.
    this.sessions.forEach((s, i) => {
      const moves = s?.peer.game?.state.moves ?? [];
      if (moves.length > this.moves.length) this.moves.splice(0, this.moves.length, ...moves);
      if (s?.done === true && !this.decided) this.decide({ kind: 'void', note: `seat ${i}'s peer left before the start` });
    });
    this.pump();
    // An inviter that waited alone moved before this game existed: its `your-turn` for the Liga
    // peer came before we listened, so the house level answers that move now.
    this.sessions.forEach((s, i) => {
      const g = s?.peer.game;
      if (s === null || g === null || g === undefined || s.done || s.peer.phase !== 'playing') return;
      const n = g.state.moves.length;
      if (n % 2 !== i && this.moves[n] === undefined) this.house(i as Player, g.state);
    });
    return over;
  }

  /** Session `seat` (the Liga peer's game with that seat's student) says something. */
  private onEvent(seat: Player, event: PeerEvent): void {
    if (this.decided) return;
    switch (event.type) {
      case 'moved':
        if (event.state.moves.length > this.moves.length) this.moves.splice(0, this.moves.length, ...event.state.moves);
        if (event.by === 'remote') this.bad[seat] = null;
        this.pump();
        return;
      case 'your-turn':
        this.pump();
        this.house(seat, event.state);
        return;
      case 'bad-move':
        this.bad[seat] = { reason: event.reason, turn: event.turn, column: event.column };
        return;
      case 'game-over':
        this.pump();
        this.decide({ kind: 'result', winner: event.winner });
        return;
      case 'aborted': {
        const reason = connect4LossReason(event.reason, this.bad[seat] ?? null);
        if (reason === null) this.decide({ kind: 'void', note: `the Liga peer's game ended: ${event.reason}` });
        else this.decide({ kind: 'forfeit', loser: seat, reason, why: event.reason });
        return;
      }
      case 'invite-expired':
      case 'accept-expired':
        this.decide({ kind: 'void', note: `seat ${seat}'s peer never took its game (${event.type})` });
        return;
      default:
        return;
    }
  }

  /** Plays the ladder game's moves that a board has not had yet, where it is the Liga peer's turn. */
  private pump(): void {
    this.sessions.forEach((s, seat) => {
      if (s === null || s.done || s.peer.phase !== 'playing') return;
      const g = s.peer.game;
      if (g === null) return;
      const n = g.state.moves.length;
      const next = this.moves[n];
      // On seat i's board the Liga peer plays the other seat.
      if (next !== undefined && n % 2 !== seat) s.peer.move(next);
    });
  }

  /** The house seat's move on the other seat's board. */
  private house(studentSeat: Player, state: C4State): void {
    const other = this.seats[1 - studentSeat];
    const s = this.sessions[studentSeat];
    if (other?.kind !== 'house' || s === null) return;
    const level = other.level.id as BotLevel;
    const n = state.moves.length;
    const play = (column: number | null): void => {
      const g = s.peer.game;
      if (this.decided || g === null || g.state.moves.length !== n) return;
      if (column !== null && s.peer.move(column).ok) return;
      const fallback = legalMoves(g.state)[0];
      if (fallback !== undefined) s.peer.move(fallback);
    };
    this.o.hub.engine.choose(state, level, `${this.o.seed}:${state.moves.join('')}`).then(play, (err: unknown) => {
      this.o.log.error({ err }, 'Liga: the house level failed to choose');
      play(null);
    });
  }

  private decide(d: Decision): void {
    if (this.decided) return;
    this.decided = true;
    for (const off of this.offs) off();
    // Whatever still runs ends with our 99 (its record is written as it ends).
    for (const s of this.sessions) if (s !== null && (s.peer.phase === 'playing' || s.record === null)) s.close();
    const games = this.sessions.flatMap((s) => (s?.record ? [s.record] : []));
    const sides = this.seats.map((s, i): LadderRecordSide => {
      const sess = this.sessions[i];
      return s.kind === 'entry'
        ? { name: s.entry.name, kind: 'ladder', address: sess ? sess.remote.key : '' }
        : { name: s.level.label, kind: 'house', address: `house:${s.level.id}` };
    }) as [LadderRecordSide, LadderRecordSide];
    const record = (outcome: { outcome: 'won' | 'drawn' | 'aborted'; winner: Player | null; reason: string }): string | null =>
      games.length === 0 ? null : this.o.hub.recordLadderGame({ sides, games, meta: this.o.meta, outcome });
    switch (d.kind) {
      case 'result': {
        const recordId = record({ outcome: d.winner === null ? 'drawn' : 'won', winner: d.winner, reason: d.winner === null ? 'board-full' : 'four' });
        if (d.winner === null) return this.resolve({ scores: [0.5, 0.5], reasons: [null, null], recordId });
        const loss: LossReason = { kind: 'played' };
        return this.resolve({ scores: d.winner === 0 ? [1, 0] : [0, 1], reasons: d.winner === 0 ? [null, loss] : [loss, null], recordId });
      }
      case 'forfeit': {
        const winner = (1 - d.loser) as Player;
        const recordId = record({ outcome: 'won', winner, reason: `forfeit: ${d.why}` });
        return this.resolve({ scores: winner === 0 ? [1, 0] : [0, 1], reasons: winner === 0 ? [null, d.reason] : [d.reason, null], recordId });
      }
      case 'void':
        return this.resolve(notRated(d.note, record({ outcome: 'aborted', winner: null, reason: d.note })));
    }
  }
}
