import type { Clock } from '../../../core/clock.js';
import type { Logger } from '../../../core/log.js';
import type { Result } from '../../../core/result.js';
import type { C4State, Player, RuleError } from '../rules.js';

/** The types a UI, a bot driver or the record store sees of a Connect Four peer. */

export interface Address {
  readonly address: string;
  readonly port: number;
}

export const addressKey = (a: Address): string => `${a.address}:${a.port}`;

/** Every interval of specs §3 in one place; tests over real sockets shrink them. */
export interface PeerTiming {
  /** "Every 2 s": stage 1, 2, 3, 4, 5 and 99 repeats. */
  resendMs: number;
  /** A lobby entry goes this long after its last stage 1. */
  lobbyExpiryMs: number;
  /** Our invitation is given up after this long without an acceptance. */
  inviteTimeoutMs: number;
  /** An incoming invitation stays valid this long after its last copy. */
  invitationValidMs: number;
  /** Our acceptance is given up after this long without a stage 3/4. */
  acceptTimeoutMs: number;
  /** Silence from the opponent after which we abort. */
  silenceMs: number;
  /** The opponent's move must come this long after ours (or after board start). */
  moveTimeoutMs: number;
  /** After a stage 5 that came without a final move, wait this long for the move. */
  finalMoveWaitMs: number;
  /** Stage 5 is sent at most this often; the end window lasts `endRepeats × resendMs`. */
  endRepeats: number;
  /** The aborting side sends 99 at most this often. */
  abortMaxSends: number;
  /** The acknowledging side sends 99 exactly this often. */
  ackSends: number;
}

export const DEFAULT_TIMING: PeerTiming = {
  resendMs: 2000,
  lobbyExpiryMs: 10_000,
  inviteTimeoutMs: 10_000,
  invitationValidMs: 10_000,
  acceptTimeoutMs: 10_000,
  silenceMs: 10_000,
  moveTimeoutMs: 30_000,
  finalMoveWaitMs: 10_000,
  endRepeats: 5,
  abortMaxSends: 30,
  ackSends: 10,
};

/**
 * What one remote IP (whatever its ports) may hold in a peer or send to it (fair share): a flood
 * from one host is dropped unread and cannot fill the lobby or the invitations of everyone else.
 */
export interface PeerLimits {
  /** Datagrams one IP may send per second (burst: twice that); the rest are dropped unread. 0: no budget. */
  datagramsPerSecondPerHost: number;
  /** Lobby entries (peers announcing themselves from different ports) one IP may hold. */
  lobbyEntriesPerHost: number;
  /** Valid invitations one IP may hold at once. */
  invitationsPerHost: number;
}

export const DEFAULT_LIMITS: PeerLimits = {
  datagramsPerSecondPerHost: 100,
  lobbyEntriesPerHost: 16,
  invitationsPerHost: 8,
};

export interface PeerOptions {
  /** Our clientname: 1–32 printable ASCII characters. */
  name: string;
  /** 0 = terminal or bot (default), 1 = a browser-facing relay. */
  clienttype?: number;
  /** Sends one datagram. The peer never touches a socket. */
  send: (to: Address, line: string) => void;
  /** Where stage 1 goes: the broadcast address and any configured peers. */
  announceTo: readonly Address[];
  /** Our own port, for the broadcast-echo filter. */
  localPort: number;
  /** Our interface addresses, for the echo filter (127.0.0.0/8 always counts as ours). */
  localAddresses?: readonly string[];
  clock?: Clock;
  log?: Logger;
  timing?: Partial<PeerTiming>;
  limits?: Partial<PeerLimits>;
  /** Called once per game that started on the board, when it ends (won, drawn or aborted). */
  onGameFinished?: (record: C4GameRecord) => void;
}

export type PeerPhase = 'stopped' | 'lobby' | 'accepting' | 'playing' | 'ended';

/** Another peer as we know it; `name` is display-safe (specs §3.8), null when it never sent one. */
export interface RemotePeer {
  readonly key: string;
  readonly address: string;
  readonly port: number;
  readonly name: string | null;
  readonly clienttype: unknown;
}

/**
 * What an AutoPlayer drives of a Peer (peer.ts implements it). It lives here rather than as
 * `import type { Peer }`, so that peer/auto-player.ts does not import peer.ts, which re-exports it.
 */
export interface DrivenPeer {
  readonly phase: PeerPhase;
  readonly invitee: RemotePeer | null;
  readonly game: (GameInfo & { state: C4State; opponentReady: boolean }) | null;
  invitations(): RemotePeer[];
  on(listener: (event: PeerEvent) => void): () => void;
  accept(key?: string): Result<RemotePeer, CommandError>;
  move(column: number): Result<C4State, CommandError>;
  backToLobby(): void;
  internalError(error: unknown, where: string, gameId?: string): void;
}

export type AbortReason =
  /** 10 s without any packet from the opponent. */
  | 'silence'
  /** The opponent's move did not come within 30 s. */
  | 'move-timeout'
  /** The local user quit the running game. */
  | 'quit'
  /** A stage 99 came from the opponent. */
  | 'opponent-aborted'
  /** A stage 5 came, but the final move never did (no 99 is sent). */
  | 'no-final-move'
  /** The peer was stopped during the game. */
  | 'stopped'
  /** An exception in our own code ended the game (its stack is in the log). */
  | 'internal error';

export type BadMoveReason = 'out-of-turn' | 'turn-too-high' | RuleError['code'];

export interface GameInfo {
  readonly id: string;
  readonly opponent: RemotePeer;
  /** 0 when we invited (we move first), 1 when we accepted. */
  readonly localPlayer: Player;
  readonly firstPlayer: 'local' | 'remote';
  readonly startedAt: number;
}

export type PeerEvent =
  | { type: 'phase'; phase: PeerPhase }
  | { type: 'lobby'; peers: readonly RemotePeer[] }
  /** A new invitation (a stage 2 with a name) from someone. */
  | { type: 'invitation'; from: RemotePeer }
  /** An invitation ran out (10 s after its last copy). */
  | { type: 'invitation-gone'; from: RemotePeer }
  /** Our invitation got no acceptance in time. */
  | { type: 'invite-expired'; to: RemotePeer }
  /** Our acceptance got no stage 3/4 in time; we are back in the lobby. */
  | { type: 'accept-expired'; to: RemotePeer }
  | { type: 'game-started'; game: GameInfo }
  /** It is our move (and, for our first move, the opponent has shown it is ready). */
  | { type: 'your-turn'; gameId: string; state: C4State }
  | { type: 'moved'; gameId: string; by: 'local' | 'remote'; column: number; turn: number; state: C4State }
  /** A stage 4 from the opponent that is a new move but not a legal one; the game goes on. */
  | { type: 'bad-move'; gameId: string; reason: BadMoveReason; turn: number; column: number }
  | {
      type: 'game-over';
      gameId: string;
      outcome: 'won' | 'lost' | 'drawn';
      winner: Player | null;
      /** The cells of the four(s), [column 1–7, row 1–6 from the bottom]; empty for a draw. */
      line: readonly (readonly [number, number])[];
      state: C4State;
    }
  | { type: 'aborted'; gameId: string; reason: AbortReason }
  /** The 10 s after a game's end are over: a bot returns to the lobby now. */
  | { type: 'end-window-closed'; gameId: string };

export type CommandError =
  | {
      code:
        | 'stopped'
        | 'not-in-lobby'
        | 'unknown-peer'
        | 'no-invitation'
        | 'not-playing'
        | 'not-your-turn'
        | 'opponent-not-ready';
      message: string;
    }
  | RuleError;

export interface WireEntry {
  at: number;
  dir: 'in' | 'out';
  /** The other side as address:port. */
  conn: string;
  data: string;
}

/** Everything a record-store entry needs about one game. */
export interface C4GameRecord {
  id: string;
  startedAt: number;
  endedAt: number;
  local: { name: string; player: Player; clienttype: number };
  opponent: { name: string | null; address: string; port: number; clienttype: unknown };
  firstPlayer: 'local' | 'remote';
  moves: number[];
  /** When each move was made or accepted (same clock as `at`). */
  moveTimes: number[];
  outcome: 'won' | 'lost' | 'drawn' | 'aborted';
  winner: Player | null;
  line: [number, number][];
  reason: 'four' | 'board-full' | AbortReason;
  /** The datagrams exchanged with the opponent, from the invitation on, up to the game's end. */
  wire: WireEntry[];
}
