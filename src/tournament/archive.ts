import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Records } from '../core/record-backend.js';
import { WIRE_PACK } from '../core/record-rows.js';
import type { MatchDetail, TournamentMatchRecord, TournamentRecord } from '../core/record-types.js';
import { tournamentStandings } from './coordinator.js';
import type { Standings } from './standings.js';

/**
 * A tournament's archive (issue 37): one self-contained file that a course keeps with its grades.
 * Gzipped JSON lines, so that a season of many thousand matches is written and read as a stream:
 *
 *     {"kind":"header","format":"spielhalle-tournament-archive","version":1,"exportedAt":…,"tournament":{…}}
 *     {"kind":"match","match":{…}}        one per tournament match (result, record ids, program output)
 *     {"kind":"record","record":{…}}      one per game record, with its events and wire log
 *     {"kind":"end","matches":n,"records":n,"standings":{…}}
 *
 * The tournament line carries the tournament file as given (`source`) and its validated spec. The
 * standings at the end are for a person reading the file; `tournament import` computes them again
 * from the matches. A file without its end line is cut off and is refused.
 */

export const ARCHIVE_FORMAT = 'spielhalle-tournament-archive';
export const ARCHIVE_VERSION = 1;

type Line =
  | { kind: 'header'; format: string; version: number; exportedAt: number; tournament: TournamentRecord }
  | { kind: 'match'; match: TournamentMatchRecord }
  | { kind: 'record'; record: MatchDetail }
  | { kind: 'end'; matches: number; records: number; standings: Standings };

export interface ArchiveCounts {
  id: string;
  matches: number;
  records: number;
}

/** The record ids of a tournament: those its matches name, and every record tagged with it (superseded attempts). */
async function recordIdsOf(store: Records, id: string, matches: readonly TournamentMatchRecord[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const m of matches) for (const r of m.records) ids.add(r);
  for (let offset = 0; ; offset += 1000) {
    const page = await store.listMatches({ tournament: id, limit: 1000, offset });
    for (const r of page) ids.add(r.id);
    if (page.length < 1000) break;
  }
  return [...ids];
}

/** Writes the archive of tournament `id` to `out` (gzipped); what it holds. Records missing from the store are counted as missing. */
export async function writeArchive(store: Records, id: string, out: Writable, now = Date.now()): Promise<ArchiveCounts & { missing: string[] }> {
  const found = await store.getTournament(id);
  if (!found) throw new Error(`no tournament ${id}`);
  const tournament = found;
  // The done matches in the order they finished (standings depend on it), then the rest.
  const finished = await store.listFinishedTournamentMatches(id);
  const doneIds = new Set(finished.map((m) => m.id));
  const matches = [...finished, ...(await store.listTournamentMatches(id)).filter((m) => !doneIds.has(m.id))];
  const recordIds = await recordIdsOf(store, id, matches);
  const standings = await tournamentStandings(store, id);
  const missing: string[] = [];
  let records = 0;
  async function* lines(): AsyncGenerator<string> {
    const line = (l: Line): string => JSON.stringify(l) + '\n';
    yield line({ kind: 'header', format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, exportedAt: now, tournament });
    for (const match of matches) yield line({ kind: 'match', match });
    for (const rid of recordIds) {
      const record = await store.getMatch(rid);
      if (!record) {
        missing.push(rid);
        continue;
      }
      records++;
      yield line({ kind: 'record', record });
    }
    yield line({ kind: 'end', matches: matches.length, records, standings });
  }
  await pipeline(Readable.from(lines()), createGzip(), out);
  return { id, matches: matches.length, records, missing };
}

/** Writes the archive to `file` (through a temporary file, so a cut-off write never looks complete). */
export async function writeArchiveFile(store: Records, id: string, file: string): Promise<ArchiveCounts & { missing: string[] }> {
  mkdirSync(dirname(file), { recursive: true });
  const part = `${file}.part`;
  try {
    const r = await writeArchive(store, id, createWriteStream(part));
    await rename(part, file);
    return r;
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
}

/** Thrown for a file that is not a complete archive of ours. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

/** The lines of an archive file, checked: a header first, an end line last. */
async function* readLines(file: string): AsyncGenerator<Line> {
  const rl = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  let n = 0;
  let ended = false;
  try {
    for await (const text of rl) {
      if (text === '') continue;
      n++;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        throw new ArchiveError(`${file}: line ${n} is not JSON`);
      }
      if (n === 1 && (line.kind !== 'header' || line.format !== ARCHIVE_FORMAT))
        throw new ArchiveError(`${file} is not a Spielhalle tournament archive`);
      if (n === 1 && line.kind === 'header' && line.version > ARCHIVE_VERSION)
        throw new ArchiveError(`${file} was written by a newer Spielhalle (archive version ${line.version})`);
      if (ended) throw new ArchiveError(`${file}: lines after the end`);
      if (line.kind === 'end') ended = true;
      yield line;
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`${file} cannot be read: ${(err as Error).message}`);
  }
  if (n === 0) throw new ArchiveError(`${file} is empty`);
  if (!ended) throw new ArchiveError(`${file} is cut off (no end line): not imported`);
}

/** The tournament an archive holds and its counts, without importing it (read through once). */
async function inspectArchive(file: string): Promise<{ tournament: TournamentRecord; matches: number; records: number }> {
  let tournament: TournamentRecord | null = null;
  let matches = 0;
  let records = 0;
  for await (const line of readLines(file)) {
    if (line.kind === 'header') tournament = line.tournament;
    else if (line.kind === 'match') matches++;
    else if (line.kind === 'record') records++;
  }
  return { tournament: tournament!, matches, records };
}

/**
 * Reads an archive back into a store: the tournament, its matches in the order they finished, and
 * every game record with its events and wire log under its own id. Checked whole first (a file cut
 * off imports nothing); a tournament already in the store is refused.
 */
export async function importArchive(store: Records, file: string): Promise<ArchiveCounts> {
  const { tournament } = await inspectArchive(file);
  if (await store.getTournament(tournament.id)) throw new ArchiveError(`tournament ${tournament.id} is in the store already: delete it first to import it again`);
  const done: TournamentMatchRecord[] = [];
  let matches = 0;
  let records = 0;
  const t = tournament;
  await store.createTournament({ id: t.id, name: t.name, game: t.game, format: t.format, spec: t.spec, source: t.source, status: t.status, createdAt: t.createdAt });
  const scheduled: TournamentMatchRecord[] = [];
  const flushScheduled = async (): Promise<void> => {
    if (scheduled.length === 0) return;
    await store.addTournamentMatches(
      t.id,
      scheduled.map((m) => ({ id: m.id, round: m.round, index: m.index, seats: m.seats, seed: m.seed, bye: m.bye })),
    );
    scheduled.length = 0;
  };
  for await (const line of readLines(file)) {
    if (line.kind === 'match') {
      matches++;
      scheduled.push(line.match);
      if (line.match.status === 'done') done.push(line.match);
      if (scheduled.length >= 500) await flushScheduled();
    } else if (line.kind === 'record') {
      await flushScheduled();
      importRecord(store, line.record);
      records++;
      if (records % 200 === 0) await store.drain();
    }
  }
  await flushScheduled();
  await store.drain();
  // In the order they finished (the file's order): the standings depend on it (sequential Elo, Swiss pairings).
  for (const m of done) {
    await store.startTournamentMatch(t.id, m.id, m.startedAt ?? m.endedAt ?? t.createdAt, m.worker ?? 'import');
    await store.finishTournamentMatch(t.id, m.id, { at: m.endedAt ?? t.createdAt, result: m.result, records: m.records, output: m.output });
  }
  await store.setTournamentStatus(t.id, t.status, t.finishedAt ?? t.updatedAt, t.note);
  return { id: t.id, matches, records };
}

/** One game record under its own id: seats, events, wire log and end as recorded. */
function importRecord(store: Records, r: MatchDetail): void {
  const id = store.startMatch({ id: r.id, game: r.game, seed: r.seed, startedAt: r.startedAt, seats: r.seats, meta: r.meta });
  for (const e of r.events) store.addEvent(id, { at: e.at, seat: e.seat, type: e.type, data: e.data });
  for (let i = 0; i < r.wire.length; i += WIRE_PACK)
    store.addWireBatch(id, r.game, r.wire.slice(i, i + WIRE_PACK).map((w) => ({ conn: w.conn, at: w.at, dir: w.dir, data: w.data })));
  if (r.status !== 'running') store.finishMatch(id, { status: r.status, endedAt: r.endedAt ?? r.startedAt, result: r.result });
}
