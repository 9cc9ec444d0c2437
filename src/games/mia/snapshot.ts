/** The public Mia table as the dashboard shows it (no hidden dice, no tokens). */
export interface MiaPlayerRow {
  name: string;
  points: number;
  /** Connected now (registered); false for names only known from the score table. */
  registered: boolean;
  address: string | null;
}

export interface MiaAnnouncement {
  name: string;
  dice: string;
}

export interface MiaRoundRow {
  number: number;
  /** Participants in turn order (empty while the join window is open). */
  players: string[];
  phase: 'joining' | 'turn' | 'announce' | 'over' | 'canceled';
  toAct: string | null;
  announcements: MiaAnnouncement[];
  /** Public lines of this round in order, as every registered client received them. */
  log: string[];
  losers: string[];
  reason: string | null;
  /** Revealed dice (only once they are revealed on the wire). */
  actual: string | null;
  matchId: string | null;
}

export interface MiaSnapshot {
  game: 'mia';
  port: number;
  players: MiaPlayerRow[];
  spectators: string[];
  round: MiaRoundRow | null;
  /** The latest finished rounds, newest first (at most 20). */
  recent: MiaRoundRow[];
  roundsPlayed: number;
}
