import type { C4GameRecord, Peer, RemotePeer } from './peer.js';

/**
 * How a Connect Four peer enters the rated ladder (issue 34) without knowing it: a student's peer
 * uses its personal 13-character ladder code as its clientname, unchanged, and meets the hub's
 * Liga peer (`games.connect4.ladderPort`, default 32450; ladder-port.ts). The protocol has no
 * server, so the Liga peer plays one game with each student's peer and relays the moves between
 * two such games (or plays a house level). Who moves first is the protocol's choice, not ours:
 * the inviter moves first (specs §2), so
 * - a peer that **invites** the Liga peer is accepted at once and plays seat 0 (first);
 * - a peer that only **announces** itself (stage 1, to the Liga port or to the house peer) waits
 *   to be invited by the Liga peer and plays seat 1 (second).
 * Two students meet each other only as one inviter and one invitee (the pairing's seat request).
 * A code that is refused (revoked, already playing, a frozen season) gets what the protocol has
 * for "no": its invitation goes unanswered (it gives up after 10 s), and nobody invites it.
 */
export interface Connect4LadderDoor {
  /**
   * Every resend interval: the peers with a name that announce themselves to the Liga peer or to
   * the house peer (a lobby entry lives 10 s after its last stage 1).
   */
  present(peers: readonly RemotePeer[]): void;
  /**
   * A stage 2 with `from.name` came to the Liga peer from a peer that has no game here. `accept`
   * takes it (the session accepts at once, so the invitation cannot run out while the ladder
   * pairs); not calling it leaves the invitation unanswered.
   */
  invited(from: RemotePeer, accept: () => LadderSession): void;
  /** Whether `name` is a code of the ladder's roster (the house bot leaves those to the Liga). */
  knows(name: string): boolean;
}

/** One game of the Liga peer with one remote peer, on the Liga port. */
export interface LadderSession {
  readonly remote: RemotePeer;
  /** The protocol peer of this game (its events, `move`, `quit`). */
  readonly peer: Peer;
  /** The game's record once it ended (won, drawn or aborted), else null. */
  readonly record: C4GameRecord | null;
  /** The game has ended (or never began and was given up): the session only trails its 99s. */
  readonly done: boolean;
  /** Ends the session: a running game gets its 99; it is dropped after its trailing 99s. */
  close(): void;
}
