/**
 * The rows of the record store as both backends read and write them (records.ts: SQLite,
 * records-pg.ts: PostgreSQL): the listing filter, the packed wire format, and rows to records.
 */
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { WireLine } from './record-backend.js';
import type { ListOptions, MatchRecord, MatchStatus, ProgramOutput, SeatRecord, TournamentMatchRecord, TournamentMatchStatus, TournamentRecord, TournamentStatus, WireRecord } from './record-types.js';

/** The tournament tables (issue #17), the same SQL in SQLite and PostgreSQL: JSON in TEXT, 0/1 flags. */
export const TOURNAMENT_TABLES = `CREATE TABLE tournaments (
   id TEXT PRIMARY KEY,
   name TEXT NOT NULL,
   game TEXT NOT NULL,
   format TEXT NOT NULL,
   spec TEXT NOT NULL,
   source TEXT,
   status TEXT NOT NULL,
   created_at BIGINT NOT NULL,
   updated_at BIGINT NOT NULL,
   finished_at BIGINT,
   note TEXT
 );
 CREATE INDEX tournaments_created ON tournaments (created_at DESC);
 CREATE TABLE tournament_matches (
   tournament_id TEXT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
   id TEXT NOT NULL,
   round INTEGER NOT NULL,
   match_index INTEGER NOT NULL,
   seats TEXT NOT NULL,
   seed BIGINT NOT NULL,
   bye INTEGER NOT NULL,
   status TEXT NOT NULL,
   result TEXT,
   records TEXT NOT NULL,
   output TEXT NOT NULL,
   started_at BIGINT,
   ended_at BIGINT,
   worker TEXT,
   attempts INTEGER NOT NULL,
   finish_seq INTEGER,
   PRIMARY KEY (tournament_id, id)
 );
 CREATE INDEX tournament_matches_order ON tournament_matches (tournament_id, round, match_index);`;

/** The WHERE clause (with its arguments) of a listing's filters. */
export function listFilter(options: ListOptions): [string, (string | number)[]] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const add = (clause: string, value: string | number | undefined) => {
    if (value === undefined) return;
    where.push(clause);
    args.push(value);
  };
  add('game = ?', options.game);
  add('game <> ?', options.notGame);
  add('status = ?', options.status);
  add('id IN (SELECT match_id FROM seats WHERE name = ?)', options.player);
  add('tournament_id = ?', options.tournament);
  add('started_at < ?', options.before);
  add('started_at >= ?', options.since);
  return [where.length ? `WHERE ${where.join(' AND ')}` : '', args];
}

/**
 * A batch of wire messages: JSON `[conns, [dt, conn index, 1 if in, data], …]` (dt: ms since the
 * previous message, the first since the row's `at`), deflated.
 */
export function packWire(at: number, entries: readonly WireLine[]): string {
  const conns: string[] = [];
  const index = new Map<string, number>();
  let prev = at;
  const rows: unknown[] = [conns];
  for (const e of entries) {
    let c = index.get(e.conn);
    if (c === undefined) {
      c = conns.push(e.conn) - 1;
      index.set(e.conn, c);
    }
    rows.push([e.at - prev, c, e.dir === 'in' ? 1 : 0, e.data]);
    prev = e.at;
  }
  return JSON.stringify(rows);
}

/** The messages of a batch row; their `seq` are the row's id plus fractions, so they stay in order and unique. */
export function unpackWire(seq: number, at: number, data: Uint8Array): WireRecord[] {
  const [conns, ...rows] = JSON.parse(inflateRawSync(data).toString('utf8')) as [string[], ...[number, number, 0 | 1, string][]];
  let t = at;
  return rows.map(([dt, c, dir, line], i) => {
    t += dt;
    return { seq: seq + i / rows.length, at: t, conn: conns[c] ?? '?', dir: dir === 1 ? 'in' : 'out', data: line };
  });
}

/** A new match's id: the game, the start in base 36 and 4 random bytes. */
export function newMatchId(game: string, now = Date.now()): string {
  return `${game}-${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** A match row with its seats as a record (seats in seat order). */
export function toMatchRecord(r: MatchRow, seats: readonly SeatRecord[]): MatchRecord {
  return {
    id: r.id,
    game: r.game,
    seed: r.seed,
    status: r.status as MatchStatus,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
    meta: r.meta === null ? null : (JSON.parse(r.meta) as unknown),
    seats: seats.map((s) => ({ seat: s.seat, name: s.name, kind: s.kind, address: s.address ?? undefined })),
  };
}

export interface MatchRow {
  id: string;
  game: string;
  seed: string | null;
  status: string;
  started_at: number;
  ended_at: number | null;
  result: string | null;
  meta: string | null;
}

export const TOURNAMENT_SELECT = `SELECT t.*,
    (SELECT COUNT(*) FROM tournament_matches m WHERE m.tournament_id = t.id) AS total,
    (SELECT COUNT(*) FROM tournament_matches m WHERE m.tournament_id = t.id AND m.status = 'done') AS done
  FROM tournaments t`;

export interface TournamentRow {
  id: string;
  name: string;
  game: string;
  format: string;
  spec: string;
  source: string | null;
  status: string;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  archived_at?: number | null;
  note: string | null;
  total: number;
  done: number;
}

export function toTournament(r: TournamentRow): TournamentRecord {
  return {
    id: r.id,
    name: r.name,
    game: r.game,
    format: r.format,
    spec: JSON.parse(r.spec) as unknown,
    source: r.source,
    status: r.status as TournamentStatus,
    total: r.total,
    done: r.done,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
    archivedAt: r.archived_at ?? null,
    note: r.note,
  };
}

export interface TournamentMatchRow {
  tournament_id: string;
  id: string;
  round: number;
  match_index: number;
  seats: string;
  seed: number;
  bye: number;
  status: string;
  result: string | null;
  records: string;
  output: string;
  started_at: number | null;
  ended_at: number | null;
  worker: string | null;
  attempts: number;
}

export function toTournamentMatch(r: TournamentMatchRow): TournamentMatchRecord {
  return {
    tournamentId: r.tournament_id,
    id: r.id,
    round: r.round,
    index: r.match_index,
    seats: JSON.parse(r.seats) as string[],
    seed: r.seed,
    bye: r.bye === 1,
    status: r.status as TournamentMatchStatus,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
    records: JSON.parse(r.records) as string[],
    output: JSON.parse(r.output) as ProgramOutput[],
    startedAt: r.started_at,
    endedAt: r.ended_at,
    worker: r.worker,
    attempts: r.attempts,
  };
}

/** At most this many wire messages go into one packed row, and they wait at most this long. */
export const WIRE_PACK = 256;
export const WIRE_PACK_MS = 5000;

/**
 * Gathers the wire messages of running matches and hands them on packed: up to WIRE_PACK of a
 * match at once, at the latest WIRE_PACK_MS after the first, and whenever the store asks (a
 * finished match, a read, a flush). Both backends write what it hands on as one packed row.
 */
export class WireGatherer {
  private readonly pending = new Map<string, { game: string; entries: WireLine[] }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly emit: (matchId: string, game: string, entries: WireLine[]) => void) {}

  get size(): number {
    return this.pending.size;
  }

  add(matchId: string, game: string, entry: WireLine): void {
    let pending = this.pending.get(matchId);
    if (!pending) {
      pending = { game, entries: [] };
      this.pending.set(matchId, pending);
    }
    pending.entries.push(entry);
    if (pending.entries.length >= WIRE_PACK) this.pack(matchId);
    else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.packAll();
      }, WIRE_PACK_MS);
      this.timer.unref();
    }
  }

  /** Hands on the gathered messages of one match. */
  pack(matchId: string): void {
    const pending = this.pending.get(matchId);
    if (!pending) return;
    this.pending.delete(matchId);
    this.emit(matchId, pending.game, pending.entries);
  }

  packAll(): void {
    for (const matchId of [...this.pending.keys()]) this.pack(matchId);
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}
