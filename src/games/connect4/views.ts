/**
 * The JSON shapes the dashboard receives for Connect Four: spectator snapshots, games against the
 * solver, analyses and the messages of a browser's relay peer. Types only, so the browser app can
 * import them without pulling in Node.
 */
import type { C4Status, Player } from './rules.js';

export type Level = 'perfect' | 'strong' | 'easy';

export type PeerRole = 'house' | 'sparring' | 'browser' | 'terminal';

/** One game as a spectator sees it: Connect Four hides nothing. */
export interface C4GameView {
  id: string;
  /** Where it is played: `network` between peers, `solver` in the dashboard against our bot. */
  kind: 'network' | 'solver';
  /** Names of the first and the second player. */
  players: [string, string];
  moves: number[];
  startedAt: number;
  status: 'running' | 'won' | 'drawn' | 'aborted';
  winner: Player | null;
  line: [number, number][];
  reason: string | null;
  endedAt: number | null;
}

export interface Connect4Snapshot {
  port: number;
  lan: boolean;
  peers: { name: string; role: PeerRole; address: string; phase: string }[];
  /** Peers the house bot hears announcing themselves (stage 1). */
  lobby: { name: string | null; address: string; clienttype: unknown }[];
  /** Running games first, then the most recent finished ones. */
  games: C4GameView[];
}

export interface SolverGameView {
  id: string;
  level: Level;
  humanName: string;
  /** The seat the person plays: 0 moves first. */
  human: Player;
  moves: number[];
  status: C4Status;
  startedAt: number;
  endedAt: number | null;
  resigned: boolean;
  yourTurn: boolean;
}

export interface Analysis {
  moves: string;
  /** Score of every column (index 0 = column 1) from the side to move's view; null = full column. */
  scores: (number | null)[];
  /** The exact score of the position (null once the game is over). */
  score: number | null;
  best: number[];
  toMove: Player;
  status: C4Status;
}

/** How far a running analysis has got (the solver's worker reports it every ~200 ms). */
export interface AnalyseProgress {
  /** Negamax calls so far for this analysis. */
  nodes: number;
  /** The column (1–7) being searched, null before the first. */
  column: number | null;
  /** Columns searched completely, of `columns` that need a search (full, winning and mirrored ones do not). */
  columnsDone: number;
  columns: number;
  elapsedMs: number;
}

/** `GET /api/connect4/analyse/progress?moves=…`: the progress of a running analysis of that position. */
export type AnalyseProgressView = { moves: string; solving: false } | ({ moves: string; solving: true } & AnalyseProgress);

export interface RemotePeerView {
  key: string;
  address: string;
  port: number;
  name: string | null;
  clienttype: unknown;
}

/** Server → browser on /ws/connect4/peer. */
export type RelayMessage =
  | { type: 'hello'; name: string; address: string }
  | { type: 'notice'; level: 'info' | 'error'; text: string }
  | {
      type: 'state';
      name: string;
      phase: 'stopped' | 'lobby' | 'accepting' | 'playing' | 'ended';
      lobby: RemotePeerView[];
      invitations: RemotePeerView[];
      invitee: RemotePeerView | null;
      game: {
        id: string;
        opponent: RemotePeerView;
        localPlayer: Player;
        moves: number[];
        status: C4Status;
        yourTurn: boolean;
      } | null;
    };

/** Browser → server on /ws/connect4/peer. */
export type RelayCommand =
  | { type: 'invite'; key: string }
  | { type: 'accept'; key?: string }
  | { type: 'decline'; key?: string }
  | { type: 'cancel' }
  | { type: 'move'; column: number }
  | { type: 'quit' }
  | { type: 'lobby' };
