import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import pg from 'pg';
import { SERVER_STOPPED } from './guard.js';
import type { NewMatch, Records, TournamentClaim, WireLine } from './record-backend.js';
import {
  TOURNAMENT_SELECT,
  TOURNAMENT_TABLES,
  WireGatherer,
  listFilter,
  newMatchId,
  packWire,
  toMatchRecord,
  toTournament,
  toTournamentMatch,
  unpackWire,
  type MatchRow,
  type TournamentMatchRow,
  type TournamentRow,
} from './record-rows.js';
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
  WireRecord,
} from './record-types.js';
import type { PruneOptions, PruneResult } from './records.js';

/**
 * The record store on PostgreSQL (issue #19, setting `database: postgres://…`): the same logical
 * schema and behaviour as the SQLite store (records.ts), for many processes on many machines at
 * once. Writes are queued and committed every `flushMs` in one transaction, as multi-row
 * statements (one round trip per table, not per row); reads wait for what was queued before them.
 * Migrations are versioned and run at open under an advisory lock, so workers that start together
 * migrate once. Differences that the SQL dialects force: a packed wire row keeps its deflated
 * bytes in `packed BYTEA` (SQLite keeps them in `data`), and `matches.row_id` stands in for
 * SQLite's rowid as the insertion order.
 *
 * Unlike the single serving SQLite process, a serving process here never touches matches other
 * processes run: on close it marks only its own unfinished matches aborted.
 */

const { Pool, types } = pg;

export interface PgStoreOptions {
  /** `postgres://user@host:port/database`. */
  url: string;
  /** A schema of its own (created when missing); default `public`. */
  schema?: string;
  flushMs?: number;
  mode?: 'serve' | 'write' | 'read';
  /** Connections for reads and tournament writes (the write queue has one more). Default 4. */
  poolSize?: number;
}

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE matches (
     row_id BIGSERIAL UNIQUE,
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     seed TEXT,
     status TEXT NOT NULL,
     started_at BIGINT NOT NULL,
     ended_at BIGINT,
     result TEXT,
     meta TEXT
   );
   CREATE INDEX matches_game_started ON matches (game, started_at DESC);
   CREATE INDEX matches_started ON matches (started_at DESC, row_id DESC);
   CREATE TABLE seats (
     match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
     seat INTEGER NOT NULL,
     name TEXT NOT NULL,
     kind TEXT NOT NULL,
     address TEXT,
     PRIMARY KEY (match_id, seat)
   );
   CREATE INDEX seats_name ON seats (name);
   CREATE TABLE events (
     match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     at BIGINT NOT NULL,
     seat INTEGER,
     type TEXT NOT NULL,
     data TEXT,
     PRIMARY KEY (match_id, seq)
   );
   CREATE TABLE wire (
     id BIGSERIAL PRIMARY KEY,
     match_id TEXT,
     game TEXT NOT NULL,
     conn TEXT NOT NULL,
     at BIGINT NOT NULL,
     dir TEXT NOT NULL,
     data TEXT,
     packed BYTEA
   );
   CREATE INDEX wire_match ON wire (match_id, id);
   CREATE TABLE scores (
     game TEXT NOT NULL,
     player TEXT NOT NULL,
     points INTEGER NOT NULL,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (game, player)
   );`,
  TOURNAMENT_TABLES,
  // The running matches are few among millions: found by their own index (a tournament's live records).
  "CREATE INDEX matches_running ON matches (started_at) WHERE status = 'running';",
];

/** BIGINT (times, counts) as numbers: every value we store is far below 2^53. */
const INT8 = 20;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8 ? (v: string) => Number(v) : (types.getTypeParser as (o: number, f: string) => unknown)(oid, format ?? 'text')) as typeof types.getTypeParser,
};

/** `?` placeholders (the SQL both backends share) as PostgreSQL's `$1, $2, …`. */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

const deflate = promisify(deflateRaw);

type Op =
  | { t: 'match'; id: string; game: string; seed: string | null; startedAt: number; meta: string | null }
  | { t: 'seat'; matchId: string; seat: number; name: string; kind: string; address: string | null }
  | { t: 'event'; matchId: string; seq: number; at: number; seat: number | null; type: string; data: string | null }
  | { t: 'wire'; matchId: string | null; game: string; conn: string; at: number; dir: string; data: string }
  | { t: 'wirepack'; matchId: string; game: string; at: number; json: string }
  | { t: 'finish'; id: string; status: string; endedAt: number; result: string }
  | { t: 'score'; game: string; player: string; points: number; at: number };

type OpOf<T extends Op['t']> = Extract<Op, { t: T }>;

export class PgRecordStore implements Records {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private queue: Op[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The batches in flight, one after the other: each resolves when it is committed (or failed). */
  private chain: Promise<void> = Promise.resolve();
  private readonly eventSeq = new Map<string, number>();
  private readonly wire = new WireGatherer((matchId, game, entries) => this.addWireBatch(matchId, game, entries));
  private closed = false;
  private readonly flushMs: number;
  readonly mode: 'serve' | 'write' | 'read';
  readonly schema: string;

  onWriteError: (err: Error) => void = (err) => {
    process.stderr.write(`record store (postgres): write failed: ${err.message}\n`);
  };

  private constructor(options: PgStoreOptions) {
    this.flushMs = options.flushMs ?? 50;
    this.mode = options.mode ?? 'write';
    const schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`database schema "${schema}": lower-case letters, digits and _ only`);
    this.schema = schema;
    this.pool = new Pool({
      connectionString: options.url,
      max: (options.poolSize ?? 4) + 1,
      options: `-c search_path=${schema}`,
      types: typeParsers,
      application_name: 'spielhalle',
    });
    // An idle connection that breaks (the server restarts) must not take the process down.
    this.pool.on('error', (err) => this.onWriteError(err));
  }

  /** Connects, creates the schema and runs the migrations it lacks. */
  static async open(options: PgStoreOptions): Promise<PgRecordStore> {
    const store = new PgRecordStore(options);
    try {
      if (store.mode !== 'read') await store.migrate(options.schema ?? 'public');
      else await store.pool.query('SELECT 1');
    } catch (err) {
      await store.pool.end();
      throw err;
    }
    return store;
  }

  private async migrate(schema: string): Promise<void> {
    await this.transaction(async (c) => {
      // Workers that start together: one migrates, the others wait and find nothing to do.
      await c.query("SELECT pg_advisory_xact_lock(hashtext('spielhalle-migrate'))");
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await c.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const row = (await c.query<{ version: number }>('SELECT version FROM schema_version')).rows[0];
      if (row === undefined) await c.query('INSERT INTO schema_version (version) VALUES (0)');
      const version = row?.version ?? 0;
      if (version > MIGRATIONS.length) throw new Error(`the database was written by a newer Spielhalle (schema ${version})`);
      for (let v = version; v < MIGRATIONS.length; v++) {
        await c.query(MIGRATIONS[v]!);
        await c.query('UPDATE schema_version SET version = $1', [v + 1]);
      }
    });
  }

  async schemaVersion(): Promise<number> {
    return (await this.pool.query<{ version: number }>('SELECT version FROM schema_version')).rows[0]?.version ?? 0;
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const result = await fn(c);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  // ---- The write queue ------------------------------------------------------------------------

  private enqueue(op: Op): void {
    if (this.closed) return;
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    this.queue.push(op);
    if (this.queue.length >= 5000) void this.send();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.send(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Starts committing what is queued, after the batches before it. */
  private send(): Promise<void> {
    if (this.wire.size > 0) this.wire.packAll();
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const ops = this.queue;
    this.queue = [];
    if (ops.length > 0) {
      this.chain = this.chain.then(() =>
        this.writeBatch(ops).catch((err: unknown) => this.onWriteError(err instanceof Error ? err : new Error(String(err)))),
      );
    }
    return this.chain;
  }

  drain(): Promise<void> {
    return this.send();
  }

  /**
   * One batch in one transaction, a statement per table in the order the foreign keys need
   * (matches before their seats, events and end), each a multi-row statement over arrays.
   */
  private async writeBatch(ops: readonly Op[]): Promise<void> {
    const of = <T extends Op['t']>(t: T): OpOf<T>[] => ops.filter((o): o is OpOf<T> => o.t === t);
    const packs = of('wirepack');
    const packed = await Promise.all(packs.map((p) => deflate(Buffer.from(p.json))));
    await this.transaction(async (c) => {
      const matches = of('match');
      if (matches.length > 0)
        await c.query(
          `INSERT INTO matches (id, game, seed, status, started_at, meta)
           SELECT id, game, seed, 'running', started_at, meta FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[])
             WITH ORDINALITY AS u(id, game, seed, started_at, meta, n) ORDER BY n`,
          [matches.map((m) => m.id), matches.map((m) => m.game), matches.map((m) => m.seed), matches.map((m) => m.startedAt), matches.map((m) => m.meta)],
        );
      const seats = of('seat');
      if (seats.length > 0)
        await c.query(
          'INSERT INTO seats (match_id, seat, name, kind, address) SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[])',
          [seats.map((s) => s.matchId), seats.map((s) => s.seat), seats.map((s) => s.name), seats.map((s) => s.kind), seats.map((s) => s.address)],
        );
      const events = of('event');
      if (events.length > 0)
        await c.query(
          'INSERT INTO events (match_id, seq, at, seat, type, data) SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::int[], $5::text[], $6::text[])',
          [events.map((e) => e.matchId), events.map((e) => e.seq), events.map((e) => e.at), events.map((e) => e.seat), events.map((e) => e.type), events.map((e) => e.data)],
        );
      // Wire rows in the order they were queued (their ids are the order getMatch lists them in).
      const wires = ops.filter((o): o is OpOf<'wire'> | OpOf<'wirepack'> => o.t === 'wire' || o.t === 'wirepack');
      if (wires.length > 0) {
        const bytes = new Map(packs.map((p, i) => [p, packed[i]!]));
        await c.query(
          `INSERT INTO wire (match_id, game, conn, at, dir, data, packed)
           SELECT match_id, game, conn, at, dir, data, packed
             FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bytea[])
             WITH ORDINALITY AS u(match_id, game, conn, at, dir, data, packed, n) ORDER BY n`,
          [
            wires.map((w) => w.matchId),
            wires.map((w) => w.game),
            wires.map((w) => (w.t === 'wire' ? w.conn : '')),
            wires.map((w) => w.at),
            wires.map((w) => (w.t === 'wire' ? w.dir : 'out')),
            wires.map((w) => (w.t === 'wire' ? w.data : null)),
            wires.map((w) => (w.t === 'wirepack' ? bytes.get(w)! : null)),
          ],
        );
      }
      const finishes = of('finish');
      if (finishes.length > 0)
        await c.query(
          `UPDATE matches m SET status = u.status, ended_at = u.ended_at, result = u.result
             FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u(id, status, ended_at, result) WHERE m.id = u.id`,
          [finishes.map((f) => f.id), finishes.map((f) => f.status), finishes.map((f) => f.endedAt), finishes.map((f) => f.result)],
        );
      // One row per player: the last score queued wins (an upsert may not touch a row twice).
      const scores = [...new Map(of('score').map((s) => [`${s.game}\u0000${s.player}`, s])).values()];
      if (scores.length > 0)
        await c.query(
          `INSERT INTO scores (game, player, points, updated_at) SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])
           ON CONFLICT (game, player) DO UPDATE SET points = excluded.points, updated_at = excluded.updated_at`,
          [scores.map((s) => s.game), scores.map((s) => s.player), scores.map((s) => s.points), scores.map((s) => s.at)],
        );
    });
  }

  startMatch(input: NewMatch): string {
    const id = input.id ?? newMatchId(input.game, input.startedAt);
    const seed = input.seed === undefined || input.seed === null ? null : String(input.seed);
    const meta = input.meta === undefined ? null : JSON.stringify(input.meta);
    this.eventSeq.set(id, 0);
    this.enqueue({ t: 'match', id, game: input.game, seed, startedAt: input.startedAt, meta });
    for (const s of input.seats) this.enqueue({ t: 'seat', matchId: id, seat: s.seat, name: s.name, kind: s.kind, address: s.address ?? null });
    return id;
  }

  addEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): void {
    const seq = (this.eventSeq.get(matchId) ?? 0) + 1;
    this.eventSeq.set(matchId, seq);
    const data = event.data === undefined ? null : JSON.stringify(event.data);
    this.enqueue({ t: 'event', matchId, seq, at: event.at, seat: event.seat ?? null, type: event.type, data });
  }

  addWire(entry: WireLine & { matchId: string | null; game: string }): void {
    if (this.closed) return;
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    if (entry.matchId === null) {
      this.enqueue({ t: 'wire', matchId: null, game: entry.game, conn: entry.conn, at: entry.at, dir: entry.dir, data: entry.data });
      return;
    }
    this.wire.add(entry.matchId, entry.game, { conn: entry.conn, at: entry.at, dir: entry.dir, data: entry.data });
  }

  addWireBatch(matchId: string, game: string, entries: readonly WireLine[]): void {
    if (entries.length === 0) return;
    const at = entries[0]!.at;
    this.enqueue({ t: 'wirepack', matchId, game, at, json: packWire(at, entries) });
  }

  finishMatch(matchId: string, end: { status: Exclude<MatchStatus, 'running'>; endedAt: number; result: unknown }): void {
    this.eventSeq.delete(matchId);
    this.wire.pack(matchId);
    this.enqueue({ t: 'finish', id: matchId, status: end.status, endedAt: end.endedAt, result: JSON.stringify(end.result) });
  }

  setScores(game: string, scores: ReadonlyMap<string, number>, at: number): void {
    for (const [player, points] of scores) this.enqueue({ t: 'score', game, player, points, at });
  }

  // ---- Reads ---------------------------------------------------------------------------------

  private async read<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    await this.drain();
    return (await this.pool.query<R>(numbered(sql), args)).rows;
  }

  async getScores(game: string): Promise<Map<string, number>> {
    const rows = await this.read<{ player: string; points: number }>('SELECT player, points FROM scores WHERE game = ? ORDER BY player', [game]);
    return new Map(rows.map((r) => [r.player, r.points]));
  }

  async listMatches(options: ListOptions = {}): Promise<MatchRecord[]> {
    const [where, args] = listFilter(options);
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    const rows = await this.read<MatchRow>(`SELECT * FROM matches ${where} ORDER BY started_at DESC, row_id DESC LIMIT ? OFFSET ?`, args);
    return this.withSeats(rows);
  }

  async countListed(options: ListOptions = {}): Promise<number> {
    const [where, args] = listFilter(options);
    return (await this.read<{ n: number }>(`SELECT COUNT(*) AS n FROM matches ${where}`, args))[0]!.n;
  }

  async listHours(options: ListOptions = {}): Promise<HourGroup[]> {
    const [where, args] = listFilter(options);
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    return this.read<HourGroup>(
      `SELECT (started_at / 3600000) * 3600000 AS hour, COUNT(*) AS matches,
         COUNT(*) FILTER (WHERE status = 'finished') AS finished, COUNT(*) FILTER (WHERE status = 'aborted') AS aborted,
         COUNT(*) FILTER (WHERE status = 'running') AS running
       FROM matches ${where} GROUP BY 1 ORDER BY 1 DESC LIMIT ? OFFSET ?`,
      args,
    );
  }

  async getMatch(id: string): Promise<MatchDetail | null> {
    const [row] = await this.read<MatchRow>('SELECT * FROM matches WHERE id = ?', [id]);
    if (!row) return null;
    const [match] = await this.withSeats([row]);
    const events = (
      await this.pool.query<{ seq: number; at: number; seat: number | null; type: string; data: string | null }>(
        'SELECT seq, at, seat, type, data FROM events WHERE match_id = $1 ORDER BY seq',
        [id],
      )
    ).rows.map((e) => ({ ...e, data: e.data === null ? null : (JSON.parse(e.data) as unknown) }));
    const wire = (
      await this.pool.query<{ seq: number; at: number; conn: string; dir: 'in' | 'out'; data: string | null; packed: Buffer | null }>(
        'SELECT id AS seq, at, conn, dir, data, packed FROM wire WHERE match_id = $1 ORDER BY id',
        [id],
      )
    ).rows.flatMap((w): WireRecord[] =>
      w.packed !== null ? unpackWire(w.seq, w.at, w.packed) : [{ seq: w.seq, at: w.at, conn: w.conn, dir: w.dir, data: w.data ?? '' }],
    );
    return { ...match!, events, wire };
  }

  async countMatches(game?: string): Promise<number> {
    const rows =
      game === undefined
        ? await this.read<{ n: number }>('SELECT COUNT(*) AS n FROM matches')
        : await this.read<{ n: number }>('SELECT COUNT(*) AS n FROM matches WHERE game = ?', [game]);
    return rows[0]!.n;
  }

  private async withSeats(rows: readonly MatchRow[]): Promise<MatchRecord[]> {
    if (rows.length === 0) return [];
    const seats = (
      await this.pool.query<SeatRecord & { match_id: string }>(
        'SELECT match_id, seat, name, kind, address FROM seats WHERE match_id = ANY($1::text[]) ORDER BY match_id, seat',
        [rows.map((r) => r.id)],
      )
    ).rows;
    const byMatch = new Map<string, SeatRecord[]>();
    for (const s of seats) {
      const list = byMatch.get(s.match_id) ?? [];
      list.push(s);
      byMatch.set(s.match_id, list);
    }
    return rows.map((r) => toMatchRecord(r, byMatch.get(r.id) ?? []));
  }

  // ---- Tournaments ---------------------------------------------------------------------------

  private writable(): void {
    if (this.closed) throw new Error('the record store is closed');
    if (this.mode === 'read') throw new Error('the record store is open read-only');
  }

  async createTournament(t: Omit<TournamentRecord, 'done' | 'total' | 'updatedAt' | 'finishedAt' | 'note'>): Promise<void> {
    this.writable();
    await this.pool.query(
      `INSERT INTO tournaments (id, name, game, format, spec, source, status, created_at, updated_at, finished_at, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL)`,
      [t.id, t.name, t.game, t.format, JSON.stringify(t.spec), t.source, t.status, t.createdAt, t.createdAt],
    );
  }

  async getTournament(id: string): Promise<TournamentRecord | null> {
    const row = (await this.pool.query<TournamentRow>(`${TOURNAMENT_SELECT} WHERE t.id = $1`, [id])).rows[0];
    return row ? toTournament(row) : null;
  }

  async listTournaments(options: { game?: string | undefined; limit?: number | undefined; offset?: number | undefined } = {}): Promise<TournamentRecord[]> {
    const where = options.game === undefined ? '' : ' WHERE t.game = ?';
    const args: (string | number)[] = options.game === undefined ? [] : [options.game];
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    const rows = (await this.pool.query<TournamentRow>(numbered(`${TOURNAMENT_SELECT}${where} ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`), args)).rows;
    return rows.map(toTournament);
  }

  async setTournamentStatus(id: string, status: TournamentStatus, at: number, note: string | null = null): Promise<void> {
    this.writable();
    const finished = status === 'finished' || status === 'failed' ? at : null;
    const r = await this.pool.query('UPDATE tournaments SET status = $1, updated_at = $2, finished_at = $3, note = $4 WHERE id = $5', [status, at, finished, note, id]);
    if (r.rowCount === 0) throw new Error(`no tournament ${id}`);
  }

  async addTournamentMatches(
    tournamentId: string,
    matches: readonly { id: string; round: number; index: number; seats: readonly string[]; seed: number; bye?: boolean | undefined }[],
  ): Promise<void> {
    this.writable();
    if (matches.length === 0) return;
    await this.pool.query(
      `INSERT INTO tournament_matches (tournament_id, id, round, match_index, seats, seed, bye, status, records, output, attempts)
       SELECT $1, id, round, match_index, seats, seed, bye, 'pending', '[]', '[]', 0
         FROM unnest($2::text[], $3::int[], $4::int[], $5::text[], $6::bigint[], $7::int[]) AS u(id, round, match_index, seats, seed, bye)
       ON CONFLICT (tournament_id, id) DO NOTHING`,
      [
        tournamentId,
        matches.map((m) => m.id),
        matches.map((m) => m.round),
        matches.map((m) => m.index),
        matches.map((m) => JSON.stringify(m.seats)),
        matches.map((m) => m.seed),
        matches.map((m) => (m.bye === true ? 1 : 0)),
      ],
    );
  }

  /** A change of one tournament match and its tournament's `updated_at`, in one transaction holding the tournament's row. */
  private async changeMatch(tournamentId: string, id: string, sql: string, args: unknown[], at: number | null): Promise<void> {
    this.writable();
    await this.transaction(async (c) => {
      // Concurrent finishes of one tournament (several workers) take turns: finish_seq stays unique.
      await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [tournamentId]);
      const r = await c.query(numbered(sql), args);
      if (r.rowCount === 0) throw new Error(`no tournament match ${tournamentId}/${id}`);
      if (at !== null) await c.query('UPDATE tournaments SET updated_at = CASE WHEN updated_at > $1 THEN updated_at ELSE $1 END WHERE id = $2', [at, tournamentId]);
    });
  }

  startTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Promise<void> {
    return this.changeMatch(
      tournamentId,
      id,
      `UPDATE tournament_matches SET status = 'running', started_at = ?, ended_at = NULL, worker = ?, attempts = attempts + 1
       WHERE tournament_id = ? AND id = ?`,
      [at, worker, tournamentId, id],
      at,
    );
  }

  finishTournamentMatch(tournamentId: string, id: string, end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] }): Promise<void> {
    return this.changeMatch(
      tournamentId,
      id,
      `UPDATE tournament_matches SET status = 'done', ended_at = ?, result = ?, records = ?, output = ?,
         finish_seq = (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM tournament_matches WHERE tournament_id = ?)
       WHERE tournament_id = ? AND id = ?`,
      [end.at, JSON.stringify(end.result ?? null), JSON.stringify(end.records), JSON.stringify(end.output), tournamentId, tournamentId, id],
      end.at,
    );
  }

  resetTournamentMatch(tournamentId: string, id: string): Promise<void> {
    return this.changeMatch(
      tournamentId,
      id,
      `UPDATE tournament_matches SET status = 'pending', result = NULL, records = '[]', output = '[]', ended_at = NULL, finish_seq = NULL
       WHERE tournament_id = ? AND id = ?`,
      [tournamentId, id],
      null,
    );
  }

  async claimTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Promise<TournamentClaim | null> {
    this.writable();
    return this.transaction(async (c) => {
      await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [tournamentId]);
      const r = await c.query<{ attempts: number }>(
        `UPDATE tournament_matches SET status = 'running', started_at = $1, ended_at = NULL, worker = $2, attempts = attempts + 1,
           result = NULL, records = '[]', output = '[]', finish_seq = NULL
         WHERE tournament_id = $3 AND id = $4 AND status <> 'done' RETURNING attempts`,
        [at, worker, tournamentId, id],
      );
      const row = r.rows[0];
      if (row === undefined) {
        const exists = await c.query('SELECT 1 FROM tournament_matches WHERE tournament_id = $1 AND id = $2', [tournamentId, id]);
        if (exists.rowCount === 0) throw new Error(`no tournament match ${tournamentId}/${id}`);
        return null;
      }
      await c.query('UPDATE tournaments SET updated_at = GREATEST(updated_at, $1) WHERE id = $2', [at, tournamentId]);
      return { worker, attempt: row.attempts };
    });
  }

  async finishClaimedTournamentMatch(
    tournamentId: string,
    id: string,
    claim: TournamentClaim,
    end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] },
  ): Promise<boolean> {
    this.writable();
    return this.transaction(async (c) => {
      // Finishes of one tournament take turns (its row locked): finish_seq stays unique.
      await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [tournamentId]);
      const r = await c.query(
        `UPDATE tournament_matches SET status = 'done', ended_at = $1, result = $2, records = $3, output = $4,
           finish_seq = (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM tournament_matches WHERE tournament_id = $5)
         WHERE tournament_id = $5 AND id = $6 AND status = 'running' AND worker = $7 AND attempts = $8`,
        [end.at, JSON.stringify(end.result ?? null), JSON.stringify(end.records), JSON.stringify(end.output), tournamentId, id, claim.worker, claim.attempt],
      );
      const done = (r.rowCount ?? 0) > 0;
      if (done) await c.query('UPDATE tournaments SET updated_at = GREATEST(updated_at, $1) WHERE id = $2', [end.at, tournamentId]);
      return done;
    });
  }

  async releaseTournamentMatch(tournamentId: string, id: string, claim: TournamentClaim): Promise<boolean> {
    this.writable();
    const r = await this.pool.query(
      `UPDATE tournament_matches SET status = 'pending', result = NULL, records = '[]', output = '[]', ended_at = NULL, finish_seq = NULL
       WHERE tournament_id = $1 AND id = $2 AND status = 'running' AND worker = $3 AND attempts = $4`,
      [tournamentId, id, claim.worker, claim.attempt],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async getTournamentMatch(tournamentId: string, id: string): Promise<TournamentMatchRecord | null> {
    const row = (await this.pool.query<TournamentMatchRow>('SELECT * FROM tournament_matches WHERE tournament_id = $1 AND id = $2', [tournamentId, id])).rows[0];
    return row ? toTournamentMatch(row) : null;
  }

  async liveRecordsOf(tournamentMatch: string): Promise<string[]> {
    await this.drain();
    const rows = (
      await this.pool.query<{ id: string }>(
        "SELECT id FROM matches WHERE status = 'running' AND meta::jsonb->>'tournamentMatch' = $1 ORDER BY started_at, row_id",
        [tournamentMatch],
      )
    ).rows;
    return rows.map((r) => r.id);
  }

  async abortLiveRecordsOf(tournamentMatch: string, at: number, reason: string): Promise<number> {
    this.writable();
    await this.drain();
    const r = await this.pool.query(
      "UPDATE matches SET status = 'aborted', ended_at = $1, result = $2 WHERE status = 'running' AND meta::jsonb->>'tournamentMatch' = $3",
      [at, JSON.stringify({ reason }), tournamentMatch],
    );
    return r.rowCount ?? 0;
  }

  async listTournamentMatches(
    tournamentId: string,
    options: { status?: TournamentMatchStatus | undefined; entrant?: string | undefined } = {},
  ): Promise<TournamentMatchRecord[]> {
    const status = options.status === undefined ? '' : ' AND status = $2';
    const args = options.status === undefined ? [tournamentId] : [tournamentId, options.status];
    const rows = (await this.pool.query<TournamentMatchRow>(`SELECT * FROM tournament_matches WHERE tournament_id = $1${status} ORDER BY round, match_index`, args)).rows;
    const matches = rows.map(toTournamentMatch);
    const entrant = options.entrant;
    return entrant === undefined ? matches : matches.filter((m) => m.seats.includes(entrant));
  }

  async listFinishedTournamentMatches(tournamentId: string): Promise<TournamentMatchRecord[]> {
    const rows = (
      await this.pool.query<TournamentMatchRow>(
        `SELECT * FROM tournament_matches WHERE tournament_id = $1 AND status = 'done' ORDER BY finish_seq, round, match_index`,
        [tournamentId],
      )
    ).rows;
    return rows.map(toTournamentMatch);
  }

  async appendEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): Promise<void> {
    if (this.eventSeq.has(matchId)) {
      this.addEvent(matchId, event);
      return;
    }
    this.writable();
    await this.drain();
    const data = event.data === undefined ? null : JSON.stringify(event.data);
    await this.transaction(async (c) => {
      // Two appends to one match at once must not pick the same seq.
      await c.query('SELECT 1 FROM matches WHERE id = $1 FOR UPDATE', [matchId]);
      await c.query(
        `INSERT INTO events (match_id, seq, at, seat, type, data)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 FROM events WHERE match_id = $1`,
        [matchId, event.at, event.seat ?? null, event.type, data],
      );
    });
  }

  /**
   * Retention on PostgreSQL (`prune`, the serving process's timer): matches that ended before
   * `matchesBefore` with everything recorded of them, and wire logs of matches that ended before
   * `wireBefore`, in batches of 500 rows so the games go on writing; running matches are never
   * touched. `maxBytes` is not applied here: a table's size on disk shrinks only by VACUUM, so
   * deleting until it drops under a cap would delete everything (PostgreSQL's autovacuum reuses
   * the space). The sizes reported are the schema's tables and indexes on disk.
   */
  async prune(o: PruneOptions): Promise<PruneResult> {
    this.writable();
    await this.drain();
    const bytesBefore = await this.usedBytes();
    const result: PruneResult = { matches: 0, wireRows: 0, bytesBefore, bytesAfter: bytesBefore };
    const game = o.game === undefined ? '' : ' AND game = $2';
    const ended = (before: number, extra = '') =>
      `SELECT id FROM matches WHERE status <> 'running' AND COALESCE(ended_at, started_at) < $1${game}${extra}`;
    const args = (before: number) => (o.game === undefined ? [before] : [before, o.game]);
    const count = async (sql: string, values: unknown[]): Promise<number> =>
      Number((await this.pool.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0);
    if (o.matchesBefore !== undefined) {
      const before = o.matchesBefore;
      if (o.dryRun) {
        result.matches += await count(`SELECT COUNT(*) AS n FROM (${ended(before)}) m`, args(before));
        result.wireRows += await count(`SELECT COUNT(*) AS n FROM wire WHERE match_id IN (${ended(before)})`, args(before));
      } else
        for (;;) {
          const n = await this.transaction(async (c) => {
            const ids = (await c.query<{ id: string }>(`DELETE FROM matches WHERE id IN (${ended(before)} ORDER BY started_at LIMIT 500) RETURNING id`, args(before))).rows.map((r) => r.id);
            if (ids.length > 0) result.wireRows += (await c.query('DELETE FROM wire WHERE match_id = ANY($1::text[])', [ids])).rowCount ?? 0;
            return ids.length;
          });
          result.matches += n;
          if (n === 0) break;
        }
    }
    if (o.wireBefore !== undefined) {
      const before = o.wireBefore;
      const loose = `FROM wire WHERE match_id IS NULL AND at < $1${game}`;
      if (o.dryRun) {
        result.wireRows += await count(`SELECT COUNT(*) AS n FROM wire WHERE match_id IN (${ended(before)})`, args(before));
        result.wireRows += await count(`SELECT COUNT(*) AS n ${loose}`, args(before));
      } else {
        for (;;) {
          const r = await this.pool.query(`DELETE FROM wire WHERE id IN (SELECT id FROM wire WHERE match_id IN (${ended(before)}) LIMIT 500)`, args(before));
          result.wireRows += r.rowCount ?? 0;
          if ((r.rowCount ?? 0) === 0) break;
        }
        result.wireRows += (await this.pool.query(`DELETE ${loose}`, args(before))).rowCount ?? 0;
      }
    }
    result.bytesAfter = await this.usedBytes();
    return result;
  }

  /** Bytes on disk of this schema's tables with their indexes and TOAST. */
  async usedBytes(): Promise<number> {
    const r = await this.pool.query<{ bytes: string | null }>(
      `SELECT SUM(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [this.schema],
    );
    return Number(r.rows[0]?.bytes ?? 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.mode !== 'read') {
      await this.drain();
      const open = [...this.eventSeq.keys()];
      if (this.mode === 'serve' && open.length > 0)
        await this.pool.query(
          "UPDATE matches SET status = 'aborted', ended_at = COALESCE(ended_at, $1), result = $2 WHERE id = ANY($3::text[]) AND status = 'running'",
          [Date.now(), JSON.stringify({ reason: SERVER_STOPPED }), open],
        );
    }
    this.closed = true;
    await this.pool.end();
  }
}
