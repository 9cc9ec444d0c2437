/**
 * The record store as a process sees it when it may run beside others (issue #19): buffered
 * writes that never wait (a game server records as it plays), reads and tournament writes that
 * are promises (PostgreSQL answers over the network). Two backends: SQLite (records.ts, wrapped by
 * `sqliteBackend`: the embedded default) and PostgreSQL (records-pg.ts, `database: postgres://…`).
 * The same logical schema in both; the parametrised suite test/core/record-backend.test.ts holds
 * them to the same behaviour.
 */
import type {
  HourGroup,
  ListOptions,
  MatchDetail,
  MatchRecord,
  MatchStatus,
  ProgramOutput,
  SeatRecord,
  TournamentMatchRecord,
  TournamentMatchStatus,
  TournamentRecord,
  TournamentStatus,
} from './record-types.js';
import type { RecordStore } from './records.js';

export interface NewMatch {
  id?: string;
  game: string;
  seed?: string | number | null;
  startedAt: number;
  seats: SeatRecord[];
  meta?: unknown;
}

export interface WireLine {
  conn: string;
  at: number;
  dir: 'in' | 'out';
  data: string;
}

export interface RecordBackend {
  readonly kind: 'sqlite' | 'postgres';

  // ---- Writes that never wait: queued, committed in batches, in order. ----
  startMatch(input: NewMatch): string;
  addEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): void;
  addWire(entry: WireLine & { matchId: string | null; game: string }): void;
  addWireBatch(matchId: string, game: string, entries: readonly WireLine[]): void;
  finishMatch(matchId: string, end: { status: Exclude<MatchStatus, 'running'>; endedAt: number; result: unknown }): void;
  setScores(game: string, scores: ReadonlyMap<string, number>, at: number): void;
  /** Resolves once everything queued so far is committed. */
  drain(): Promise<void>;
  /** Called when a batch could not be written (the server goes on). */
  onWriteError: (err: Error) => void;

  // ---- Reads: they see every write queued before them. ----
  getScores(game: string): Promise<Map<string, number>>;
  listMatches(options?: ListOptions): Promise<MatchRecord[]>;
  countListed(options?: ListOptions): Promise<number>;
  listHours(options?: ListOptions): Promise<HourGroup[]>;
  getMatch(id: string): Promise<MatchDetail | null>;
  countMatches(game?: string): Promise<number>;

  // ---- Tournaments: committed when the promise resolves (a resumed tournament depends on them). ----
  createTournament(t: Omit<TournamentRecord, 'done' | 'total' | 'updatedAt' | 'finishedAt' | 'note'>): Promise<void>;
  getTournament(id: string): Promise<TournamentRecord | null>;
  listTournaments(options?: { game?: string | undefined; limit?: number | undefined; offset?: number | undefined }): Promise<TournamentRecord[]>;
  setTournamentStatus(id: string, status: TournamentStatus, at: number, note?: string | null): Promise<void>;
  addTournamentMatches(
    tournamentId: string,
    matches: readonly { id: string; round: number; index: number; seats: readonly string[]; seed: number; bye?: boolean | undefined }[],
  ): Promise<void>;
  startTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Promise<void>;
  finishTournamentMatch(tournamentId: string, id: string, end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] }): Promise<void>;
  resetTournamentMatch(tournamentId: string, id: string): Promise<void>;
  listTournamentMatches(tournamentId: string, options?: { status?: TournamentMatchStatus | undefined; entrant?: string | undefined }): Promise<TournamentMatchRecord[]>;
  listFinishedTournamentMatches(tournamentId: string): Promise<TournamentMatchRecord[]>;
  /** An event added to a match after it ended; committed when the promise resolves. */
  appendEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): Promise<void>;

  /** Commits what is queued and lets go (a serving store marks its own unfinished matches aborted). */
  close(): Promise<void>;
}

/** The SQLite store behind the backend interface: its reads are synchronous, so each is a settled promise. */
export function sqliteBackend(store: RecordStore): RecordBackend {
  // A method that throws becomes a rejected promise, as a network backend's would.
  const later = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
  return {
    kind: 'sqlite',
    startMatch: (input) => store.startMatch(input),
    addEvent: (matchId, event) => store.addEvent(matchId, event),
    addWire: (entry) => store.addWire(entry),
    addWireBatch: (matchId, game, entries) => store.addWireBatch(matchId, game, entries),
    finishMatch: (matchId, end) => store.finishMatch(matchId, end),
    setScores: (game, scores, at) => store.setScores(game, scores, at),
    drain: () => store.drain(),
    get onWriteError() {
      return store.onWriteError;
    },
    set onWriteError(fn: (err: Error) => void) {
      store.onWriteError = fn;
    },
    getScores: (game) => later(() => store.getScores(game)),
    listMatches: (options) => later(() => store.listMatches(options)),
    countListed: (options) => later(() => store.countListed(options)),
    listHours: (options) => later(() => store.listHours(options)),
    getMatch: (id) => later(() => store.getMatch(id)),
    countMatches: (game) => later(() => store.countMatches(game)),
    createTournament: (t) => later(() => store.createTournament(t)),
    getTournament: (id) => later(() => store.getTournament(id)),
    listTournaments: (options) => later(() => store.listTournaments(options)),
    setTournamentStatus: (id, status, at, note) => later(() => store.setTournamentStatus(id, status, at, note ?? null)),
    addTournamentMatches: (tournamentId, matches) => later(() => store.addTournamentMatches(tournamentId, matches)),
    startTournamentMatch: (tournamentId, id, at, worker) => later(() => store.startTournamentMatch(tournamentId, id, at, worker)),
    finishTournamentMatch: (tournamentId, id, end) => later(() => store.finishTournamentMatch(tournamentId, id, end)),
    resetTournamentMatch: (tournamentId, id) => later(() => store.resetTournamentMatch(tournamentId, id)),
    listTournamentMatches: (tournamentId, options) => later(() => store.listTournamentMatches(tournamentId, options)),
    listFinishedTournamentMatches: (tournamentId) => later(() => store.listFinishedTournamentMatches(tournamentId)),
    appendEvent: (matchId, event) => later(() => store.appendEvent(matchId, event)),
    close: () => later(() => store.close()),
  };
}
