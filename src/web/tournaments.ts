import { hostname } from 'node:os';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { DEFAULT_SETTINGS, type Settings } from '../config.js';
import type { Logger } from '../core/log.js';
import type { TournamentMatchRecord, TournamentRecord } from '../core/record-types.js';
import type { Records } from '../core/record-backend.js';
import { GAMES } from '../games/registry.js';
import type { GameModule } from '../games/types.js';
import {
  createTournament,
  openStandings,
  runTournament,
  tournamentResults,
  type TournamentProgress as RunProgress,
} from '../tournament/coordinator.js';
import { FORMATS_BY_GAME, parseTournament, type TournamentSpec } from '../tournament/file.js';
import { tournamentHints } from '../tournament/hints.js';
import { preflight } from '../tournament/preflight.js';
import type { PortRange } from '../core/ports.js';
import type { MatchQueue } from '../tournament/queue.js';
import { LiveStandings } from '../tournament/live-standings.js';
import type { StandingsTracker } from '../tournament/standings-store.js';
import { RESULTS_PAGE, type TournamentResultRow } from '../core/standings-rows.js';
import {
  matchesCsv,
  standingsCsv,
  standingsJson,
  type MatchResult,
  type Standings,
} from '../tournament/standings.js';
import type {
  EntrantMatch,
  EntrantView,
  HistoryPoint,
  ProgramView,
  PublicEntrant,
  TournamentCreated,
  TournamentErrors,
  TournamentHistory,
  TournamentMatchView,
  TournamentOptions,
  TournamentProgress,
  TournamentSummary,
  TournamentView,
  TournamentWarning,
} from './tournament-api.js';

/**
 * The dashboard's tournaments: list, standings, history, per-entrant output, exports, and creating,
 * stopping and resuming a tournament that then runs in this serving process. The browser never
 * sends a command line: program entrants are names of programs staff registered in the settings
 * (`tournaments.programs`). State-changing routes are POSTs, so the dashboard token guards them
 * like every other change (exposure.ts).
 */

export type RegisteredProgram = Settings['tournaments']['programs'][number];

export interface TournamentRoutesOptions {
  store: Records;
  log: Logger;
  /** Where tournaments keep their files (programs' working directories): the settings' data dir. */
  dataDir?: string;
  programs?: readonly RegisteredProgram[];
  /** The games the dashboard offers (tests pass their own); default: every registered game. */
  games?: readonly GameModule[];
  /**
   * Records in PostgreSQL (`database.url`): tournaments started or resumed here are queued for
   * `spielhalle worker` processes (issue #19) instead of played in this process.
   */
  queue?: { url: string; schema: string };
  /** Ports the arenas listen on (settings `tournaments.ports`) unless a tournament names its own. */
  ports?: PortRange | null;
}

/** At most this many points in the rating chart (and the first and the last). */
const HISTORY_POINTS = 50;
/** Rating charts kept in memory, for the tournaments looked at last. */
const HISTORY_CHARTS = 16;
/** Each captured stream sent at most this long (the store bounds it too). */
const OUTPUT_CHARS = 64 * 1024;
/** The rate is measured over this many recent finished matches. */
const RATE_WINDOW = 30;

const emptyToUndefined = (v: unknown): unknown => (v === '' ? undefined : v);

const listQuery = z.strictObject({
  game: z.preprocess(emptyToUndefined, z.string().max(64).optional()),
  limit: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(200).optional()),
  offset: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(1e9).optional()),
});

const matchesQuery = z.strictObject({
  status: z.preprocess(emptyToUndefined, z.enum(['pending', 'running', 'done']).optional()),
  limit: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(5000).optional()),
  offset: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(1e9).optional()),
});

const NAME = z.string().max(64);

const entrantBody = z.union([
  z.strictObject({
    name: NAME,
    bot: z.string().min(1).max(64),
    options: z.record(z.string(), z.unknown()).optional(),
  }),
  z.strictObject({ name: NAME.optional(), program: z.string().min(1).max(64) }),
]);

const count = z.number().int().positive().max(100_000).optional();

const createBody = z.strictObject({
  name: z.string().max(200),
  game: z.string().max(64),
  format: z.string().max(64),
  entrants: z.array(entrantBody).max(1024),
  gamesPerPairing: count,
  rounds: count,
  tableSize: count,
  gamesPerTable: count,
  moveTime: z.number().positive().max(3600).optional(),
  seed: z.union([z.string().max(200), z.number().int()]).optional(),
  parallel: z.number().int().positive().max(256).optional(),
});

/** The top-level fields of a POST /api/tournaments body, each checked on its own. */
const BODY_FIELDS = createBody.shape;

/**
 * The request body with what does not fit left out (and reported into `errors`): a field of the
 * wrong type, an entrant that is neither a bot nor a program (kept as a nameless bot, so the other
 * entrants keep their indexes). Null when the body is not an object at all.
 */
function lenientBody(body: unknown, errors: TournamentErrors['errors'], malformed: Set<number>): z.infer<typeof createBody> | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.push(errorLine('', 'the body must be a JSON object'));
    return null;
  }
  const record = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (!(key in BODY_FIELDS)) errors.push(errorLine(key, 'unknown key'));
  }
  for (const [key, schema] of Object.entries(BODY_FIELDS)) {
    if (key === 'entrants' || !(key in record)) continue;
    const r = (schema as z.ZodType).safeParse(record[key]);
    if (r.success) out[key] = r.data;
    else errors.push(...r.error.issues.map((i) => errorLine([key, ...i.path.map(String)].join('.'), i.message)));
  }
  for (const key of ['name', 'game', 'format'] as const) if (typeof out[key] !== 'string') out[key] = '';
  const list = Array.isArray(record.entrants) ? record.entrants.slice(0, 1024) : [];
  if (!Array.isArray(record.entrants)) errors.push(errorLine('entrants', 'must be a list'));
  out.entrants = list.map((e, i) => {
    const r = entrantBody.safeParse(e);
    if (r.success) return r.data;
    errors.push(errorLine(`entrants[${i}]`, 'must be {name, bot, options} or {program, name}'));
    malformed.add(i);
    return { name: `entrant-${i + 1}`, bot: '?' };
  });
  return out as z.infer<typeof createBody>;
}

const exportQuery = z.strictObject({ kind: z.enum(['standings', 'matches']).optional() });

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

const errorLine = (path: string, message: string) => ({
  path,
  message,
  line: path === '' ? message : `${path}: ${message}`,
});

function specOf(t: TournamentRecord): TournamentSpec | null {
  const spec = t.spec as Partial<TournamentSpec> | null;
  return spec && Array.isArray(spec.entrants) ? (spec as TournamentSpec) : null;
}

function publicEntrants(spec: TournamentSpec | null): PublicEntrant[] {
  return (spec?.entrants ?? []).map((e) =>
    e.kind === 'bot'
      ? { name: e.name, kind: 'bot', bot: e.bot, options: e.options }
      : { name: e.name, kind: 'program' },
  );
}

function progressOf(
  t: TournamentRecord,
  finished: readonly Pick<TournamentResultRow, 'bye' | 'startedAt' | 'endedAt'>[],
  live: boolean,
  run: RunProgress | null,
): TournamentProgress {
  const recent = finished.filter((m) => m.endedAt !== null && !m.bye).slice(-RATE_WINDOW);
  let perMinute: number | null = null;
  if (recent.length >= 2) {
    const first = Math.min(...recent.map((m) => m.startedAt ?? m.endedAt ?? 0));
    const last = Math.max(...recent.map((m) => m.endedAt ?? 0));
    if (last > first) perMinute = (recent.length / (last - first)) * 60_000;
  }
  // Swiss rounds not yet paired count from the run's own total (the store holds only those paired).
  const total = Math.max(t.total, run?.total ?? 0);
  const left = total - t.done;
  const etaMs = live && perMinute !== null && perMinute > 0 ? Math.round((left / perMinute) * 60_000) : null;
  return { done: t.done, total, perMinute, etaMs };
}

/** The last finished matches the rate needs (RATE_WINDOW that are not byes), not every one. */
async function recentResults(store: Records, id: string): Promise<TournamentResultRow[]> {
  let rows = await store.listTournamentResults(id, { newest: true, limit: 2 * RATE_WINDOW });
  if (rows.length === 2 * RATE_WINDOW && rows.filter((m) => !m.bye).length < RATE_WINDOW)
    rows = await store.listTournamentResults(id, { newest: true, limit: RESULTS_PAGE });
  return rows;
}

/** A tournament's rating chart as far as it was folded (issue 38: read by cursor, not every result per refresh). */
interface ChartState {
  live: LiveStandings;
  /** finish_seq of the last result folded in. */
  seq: number;
  /** A point every `step` results: a power of two, doubled when there would be more than HISTORY_POINTS. */
  step: number;
  points: HistoryPoint[];
  /** Requests take turns (a result is folded once). */
  turn?: Promise<unknown>;
}

/**
 * The chart brought up to date: the results finished since are folded in page by page, with the
 * ratings at every `step`-th; the points are those and the ratings now. A step that doubles keeps
 * every other point, so a point once shown stays where it was.
 */
function chartOf(store: Records, t: TournamentRecord, entrants: readonly string[], chart: ChartState): Promise<TournamentHistory> {
  const id = t.id;
  const next = (chart.turn ?? Promise.resolve()).then(async () => {
    // A chart started late starts at the step its results call for (a fit per point, not per result).
    if (chart.live.results === 0) while (t.done > HISTORY_POINTS * chart.step) chart.step *= 2;
    for (;;) {
      const page = await store.listTournamentResults(id, { after: chart.seq });
      for (const row of page) {
        chart.seq = row.seq;
        const result = resultOf({ result: row.result });
        if (result === null) continue;
        chart.live.add(result);
        const done = chart.live.results;
        if (done % chart.step !== 0) continue;
        chart.points.push({ done, ratings: chart.live.ratingsByName() });
        if (chart.points.length > HISTORY_POINTS) {
          chart.step *= 2;
          chart.points = chart.points.filter((p) => p.done % chart.step === 0);
        }
      }
      if (page.length < RESULTS_PAGE) break;
    }
    const done = chart.live.results;
    const method = chart.live.method;
    // Everyone starts at the method's prior: Bradley–Terry 1500 on the Elo scale, OpenSkill μ = 25.
    const start = method === 'openskill' ? 25 : 1500;
    const points: HistoryPoint[] =
      done === 0
        ? []
        : [
            { done: 0, ratings: Object.fromEntries(entrants.map((e) => [e, start])) },
            ...chart.points,
            ...(chart.points.at(-1)?.done === done ? [] : [{ done, ratings: chart.live.ratingsByName() }]),
          ];
    return { method, entrants: [...entrants], points };
  });
  chart.turn = next.catch(() => undefined);
  return next;
}

/** A result with the record ids as replay links when the coordinator left them out. */
function resultOf(m: Pick<TournamentMatchRecord, 'result'>): MatchResult | null {
  const r = m.result as MatchResult | null;
  return r !== null && typeof r === 'object' && Array.isArray(r.seats) ? r : null;
}

function clip(text: string): string {
  return text.length > OUTPUT_CHARS
    ? `${text.slice(0, OUTPUT_CHARS)}\n… (${text.length - OUTPUT_CHARS} more characters)`
    : text;
}

/** True if a local process with this pid runs (another `spielhalle tournament run`, say). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `host:pid` of a running match played by another live process on this machine, if any. */
function otherWorker(matches: readonly TournamentMatchRecord[]): string | null {
  const host = hostname();
  for (const m of matches) {
    if (m.status !== 'running' || m.worker === null) continue;
    const at = m.worker.lastIndexOf(':');
    const pid = Number(m.worker.slice(at + 1));
    if (m.worker.slice(0, at) !== host) return m.worker;
    if (Number.isSafeInteger(pid) && pid !== process.pid && processRuns(pid)) return m.worker;
  }
  return null;
}

function attachment(reply: FastifyReply, type: string, filename: string, body: string): FastifyReply {
  return reply
    .type(type)
    .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .send(body);
}

export interface TournamentRoutes {
  /** Stops every tournament this process runs (their cut-off matches are played again on resume). */
  stopAll(): Promise<void>;
}

export function registerTournamentRoutes(
  app: FastifyInstance,
  options: TournamentRoutesOptions,
): TournamentRoutes {
  const { store } = options;
  const log = options.log.child({ component: 'tournaments' });
  const games = options.games ?? GAMES;
  const programs = options.programs ?? [];
  const workDir = options.dataDir ?? DEFAULT_SETTINGS.dataDir;
  const running = new Map<
    string,
    { controller: AbortController; done: Promise<void>; progress: RunProgress | null }
  >();
  /** Standings per tournament, read again when a match has finished since. */
  const standingsCache = new Map<string, { key: string; standings: Standings }>();
  /** The live standings of the tournaments looked at last. */
  const trackers = new Map<string, Promise<StandingsTracker>>();
  /** The rating chart per tournament: live standings folded up to a cursor, and their points so far. */
  const historyCache = new Map<string, ChartState>();

  const findGame = (name: string) => games.find((g) => g.name === name);

  const standingsOf = async (t: TournamentRecord): Promise<Standings> => {
    const key = `${t.done}/${t.updatedAt}`;
    const cached = standingsCache.get(t.id);
    if (cached?.key === key) return cached.standings;
    // Issue 38: the live standings of the tournament, opened once from the coordinator's saved ones
    // (one row, then what finished since), and from then on brought up to date by cursor.
    let tracker = trackers.get(t.id);
    if (tracker === undefined) {
      tracker = openStandings(store, t.id, { save: true });
      trackers.set(t.id, tracker);
      tracker.catch(() => trackers.delete(t.id));
      for (const old of trackers.keys()) if (trackers.size > HISTORY_CHARTS) trackers.delete(old);
    }
    const live = await tracker;
    await live.catchUp();
    const standings = live.live.standings();
    standingsCache.set(t.id, { key, standings });
    return standings;
  };

  const summaryOf = async (t: TournamentRecord): Promise<TournamentSummary> => {
    const { spec: _spec, source: _source, ...rest } = t;
    const leader = t.done > 0 ? ((await standingsOf(t)).rows[0]?.name ?? null) : null;
    return { ...rest, live: running.has(t.id), leader };
  };

  /** The match queue, opened at the first tournament that needs it. */
  let queueOpen: Promise<MatchQueue> | null = null;
  const queueOf = (q: { url: string; schema: string }): Promise<MatchQueue> => {
    // Imported only now: a dashboard on SQLite does not load pg-boss.
    queueOpen ??= import('../tournament/queue.js')
      .then(({ MatchQueue, jobsSchema }) =>
        MatchQueue.open(
          { url: q.url, schema: jobsSchema(q.schema), applicationName: 'spielhalle dashboard', log },
          games.filter((g) => g.tournament).map((g) => g.name),
        ),
      )
      .then((queue) => {
      queue.onError((err) => log.warn({ err }, 'queue maintenance failed'));
      return queue;
    });
    queueOpen.catch(() => (queueOpen = null));
    return queueOpen;
  };

  /** Runs a tournament here, or coordinates its queued matches; resolves once it is under way. */
  const start = (id: string): Promise<void> => {
    const controller = new AbortController();
    const entry: { controller: AbortController; done: Promise<void>; progress: RunProgress | null } = {
      controller,
      done: Promise.resolve(),
      progress: null,
    };
    let started!: () => void;
    const underWay = new Promise<void>((resolve) => (started = resolve));
    const onProgress = (p: RunProgress) => {
      entry.progress = p;
    };
    const q = options.queue;
    const run =
      q === undefined
        ? runTournament(store, id, { log, signal: controller.signal, workDir, games, onProgress, ports: options.ports ?? null })
        : Promise.all([queueOf(q), import('../tournament/distributed.js')]).then(([queue, { runQueuedTournament }]) =>
            runQueuedTournament(store, id, {
              queue,
              url: q.url,
              log,
              games,
              signal: controller.signal,
              onProgress,
              onStarted: started,
            }),
          );
    if (q === undefined) started();
    entry.done = run.then(
      (outcome) => log.info({ tournament: id, outcome }, 'tournament ended'),
      (err: unknown) => log.error({ err, tournament: id }, 'tournament failed'),
    );
    running.set(id, entry);
    void entry.done.finally(() => {
      if (running.get(id) === entry) running.delete(id);
    });
    const failed = run.then(
      () => undefined,
      (err: unknown) => {
        throw err;
      },
    );
    return Promise.race([underWay, failed]);
  };

  const stop = async (id: string): Promise<void> => {
    const entry = running.get(id);
    if (!entry) return;
    entry.controller.abort();
    await entry.done;
  };

  app.addHook('onClose', async () => {
    await Promise.all([...running.keys()].map(stop));
    if (queueOpen !== null) await (await queueOpen.catch(() => null))?.close();
  });

  const notFound = (reply: FastifyReply, id: string) =>
    reply.code(404).send({ error: `no tournament with id ${id}` });

  app.get('/api/tournaments', async (request, reply) => {
    const parsed = listQuery.safeParse(request.query);
    if (!parsed.success) return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
    const { game, limit = 20, offset = 0 } = parsed.data;
    // One more than asked: whether an older page exists.
    const rows = await store.listTournaments({ game, limit: limit + 1, offset });
    void reply.header('x-has-more', rows.length > limit ? '1' : '0');
    return reply.send(await Promise.all(rows.slice(0, limit).map(summaryOf)));
  });

  app.get('/api/tournaments/programs', (request, reply) => {
    const game = (request.query as Record<string, unknown>).game;
    const list: ProgramView[] = programs
      .filter((p) => typeof game !== 'string' || game === '' || p.game === game)
      .map((p) => ({ name: p.name, game: p.game }));
    return reply.send(list);
  });

  app.get('/api/tournaments/options', (_request, reply) => {
    const body: TournamentOptions = {
      games: games.flatMap((g) =>
        g.tournament
          ? [
              {
                game: g.name,
                formats: [...FORMATS_BY_GAME[g.name]],
                bots: g.tournament.bots.map((b) => ({ name: b.name, description: b.description })),
              },
            ]
          : [],
      ),
    };
    return reply.send(body);
  });

  app.get<{ Params: { id: string } }>('/api/tournaments/:id', async (request, reply) => {
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    const spec = specOf(t);
    const live = running.has(t.id);
    const matches = live ? [] : await store.listTournamentMatches(t.id, { status: 'running' });
    const view: TournamentView = {
      ...(await summaryOf(t)),
      entrants: publicEntrants(spec),
      settings: spec
        ? {
            gamesPerPairing: spec.gamesPerPairing,
            rounds: spec.rounds,
            tableSize: spec.tableSize,
            gamesPerTable: spec.gamesPerTable,
            moveTime: spec.moveTime,
            seed: spec.seed,
            parallel: spec.parallel,
          }
        : null,
      progress: progressOf(t, await recentResults(store, t.id), live, running.get(t.id)?.progress ?? null),
      standings: await standingsOf(t),
      resumable: !live && t.status !== 'finished' && (options.queue !== undefined || otherWorker(matches) === null),
    };
    return reply.send(view);
  });

  app.get<{ Params: { id: string } }>('/api/tournaments/:id/matches', async (request, reply) => {
    const parsed = matchesQuery.safeParse(request.query);
    if (!parsed.success) return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    const { status, limit = 1000, offset = 0 } = parsed.data;
    // One page from the store (issue 38: not every match of a season per refresh); the count from
    // the tournament's where it has it.
    const counted = status === undefined ? t.total : status === 'done' ? t.done : null;
    const all = counted === null ? await store.listTournamentMatches(t.id, { status }) : null;
    const page = all?.slice(offset, offset + limit) ?? (await store.listTournamentMatches(t.id, { status, limit, offset }));
    void reply.header('x-total-count', String(counted ?? all?.length ?? 0));
    const rows: TournamentMatchView[] = await Promise.all(
      page.map(async (m) => ({
        id: m.id,
        round: m.round,
        index: m.index,
        seats: m.seats,
        seed: m.seed,
        bye: m.bye,
        status: m.status,
        result: resultOf(m),
        // A running match (here or on a worker machine) links to its records as they are written.
        records: m.status === 'running' ? await store.liveRecordsOf(`${t.id}/${m.id}`) : m.records,
        startedAt: m.startedAt,
        endedAt: m.endedAt,
        attempts: m.attempts,
        worker: m.worker,
      })),
    );
    return reply.send(rows);
  });

  app.get<{ Params: { id: string } }>('/api/tournaments/:id/history', async (request, reply) => {
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    const entrants = publicEntrants(specOf(t)).map((e) => e.name);
    let chart = historyCache.get(t.id);
    if (chart === undefined) {
      chart = { live: new LiveStandings(entrants), seq: 0, step: 1, points: [] };
      historyCache.delete(t.id);
      historyCache.set(t.id, chart);
      // the charts of the tournaments looked at last
      for (const old of historyCache.keys()) if (historyCache.size > HISTORY_CHARTS) historyCache.delete(old);
    }
    const history = await chartOf(store, t, entrants, chart);
    return reply.send(history);
  });

  app.get<{ Params: { id: string; name: string } }>(
    '/api/tournaments/:id/entrants/:name',
    async (request, reply) => {
      const t = await store.getTournament(request.params.id);
      if (!t) return notFound(reply, request.params.id);
      const { name } = request.params;
      const entrant = publicEntrants(specOf(t)).find((e) => e.name === name);
      if (!entrant) return reply.code(404).send({ error: `no entrant ${name} in ${t.id}` });
      const matches: EntrantMatch[] = (await store.listTournamentMatches(t.id, { entrant: name })).map((m) => {
        const result = resultOf(m);
        const seat = m.seats.indexOf(name);
        const own = result?.seats.find((s) => s.name === name) ?? result?.seats[seat] ?? null;
        const output = m.output.find((o) => o.name === name) ?? m.output.find((o) => o.seat === seat) ?? null;
        return {
          id: m.id,
          round: m.round,
          status: m.status,
          seats: m.seats,
          seat,
          result: own,
          reason: result?.reason ?? null,
          records: m.records,
          output: output ? { ...output, stdout: clip(output.stdout), stderr: clip(output.stderr) } : null,
          endedAt: m.endedAt,
        };
      });
      const view: EntrantView = {
        tournament: { id: t.id, name: t.name, game: t.game, status: t.status },
        entrant,
        row: (await standingsOf(t)).rows.find((r) => r.name === name) ?? null,
        matches,
      };
      return reply.send(view);
    },
  );

  app.get<{ Params: { id: string } }>('/api/tournaments/:id/export.csv', async (request, reply) => {
    const parsed = exportQuery.safeParse(request.query);
    if (!parsed.success) return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    const kind = parsed.data.kind ?? 'standings';
    const body =
      kind === 'standings' ? standingsCsv(await standingsOf(t)) : matchesCsv(await tournamentResults(store, t.id));
    return attachment(reply, 'text/csv; charset=utf-8', `${t.id}-${kind}.csv`, body);
  });

  app.get<{ Params: { id: string } }>('/api/tournaments/:id/export.json', async (request, reply) => {
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    const body = standingsJson(await standingsOf(t), await tournamentResults(store, t.id));
    return attachment(reply, 'application/json; charset=utf-8', `${t.id}.json`, body);
  });

  app.post('/api/tournaments', async (request, reply) => {
    // Every problem in one answer (issue #33): what does not fit the request's shape is reported
    // and left out, and the rest is checked like a tournament file all the same.
    const errors: TournamentErrors['errors'] = [];
    const malformed = new Set<number>();
    const checked = lenientBody(request.body, errors, malformed);
    if (checked === null) return reply.code(400).send({ error: 'invalid tournament', errors } satisfies TournamentErrors);
    const { entrants, ...rest } = checked;
    // Hints stop nothing; every answer carries them, as the CLI prints them beside its errors (issue #33).
    const warnings: TournamentWarning[] = tournamentHints(rest).map((h) => ({ code: h.code, path: h.key, message: h.message, line: `${h.key}: ${h.message}`, values: h.values }));
    const game = findGame(rest.game);
    if (!game?.tournament)
      errors.push(errorLine('game', `${rest.game} cannot be played in a tournament here`));
    const file = {
      ...rest,
      entrants: entrants.map((e, i) => {
        if ('bot' in e) {
          const options = e.options ?? {};
          for (const problem of game?.tournament?.checkBot(e.bot, options) ?? [])
            errors.push(errorLine(`entrants[${i}].bot`, problem));
          return { name: e.name, bot: e.bot, options };
        }
        const program = programs.find((p) => p.name === e.program && p.game === rest.game);
        if (!program) {
          errors.push(errorLine(`entrants[${i}].program`, `no registered ${rest.game} program ${e.program}`));
          return { name: e.name ?? e.program, bot: 'unknown' };
        }
        return {
          name: e.name === undefined || e.name === '' ? program.name : e.name,
          command: program.command,
          ...(program.cwd === undefined ? {} : { cwd: program.cwd }),
          ...(program.limits === undefined ? {} : { limits: program.limits }),
        };
      }),
    };
    const text = JSON.stringify(file, null, 2);
    const result = parseTournament(text, { file: 'tournament.json' });
    // The form has fields, not a file: each error names its field's path (the form shows it there).
    const reported = new Set(errors.map((e) => e.path));
    if (!result.ok) {
      for (const e of result.errors) if (!reported.has(e.path)) errors.push(errorLine(e.path, e.message));
    }
    if (errors.length > 0 || !result.ok) {
      // A malformed entrant is reported once, not again for the stand-in that kept its place.
      const shown = errors.filter((e) => {
        const i = /^entrants\[(\d+)\]/.exec(e.path)?.[1];
        return i === undefined || !malformed.has(Number(i)) || e.path === `entrants[${i}]`;
      });
      const body: TournamentErrors = { error: 'invalid tournament', errors: shown, warnings };
      return reply.code(400).send(body);
    }
    // The registered programs' preflight, as `tournament run` does it: found, executable, starting.
    const problems = await preflight(result.spec, { games, ports: options.ports ?? null });
    if (problems.length > 0) {
      const body: TournamentErrors = {
        error: 'entrants that cannot play',
        errors: problems.map((p) => {
          // A program's command and cwd are the server's secret: the form's field is its program.
          const path = `entrants[${p.index}]${p.key === 'bot' ? '.bot' : p.key === null ? '' : '.program'}`;
          return errorLine(path, p.message);
        }),
        warnings,
      };
      return reply.code(400).send(body);
    }
    let id: string;
    try {
      id = await createTournament(store, result.spec, text, Date.now(), games);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const body: TournamentErrors = {
        error: 'invalid tournament',
        errors: message.split('\n').map((m) => errorLine('', m.trim())),
        warnings,
      };
      return reply.code(400).send(body);
    }
    try {
      await start(id);
    } catch (err) {
      log.error({ err, tournament: id }, 'the tournament could not start');
      return reply.code(500).send({ error: `${id} could not start: ${(err as Error).message}` });
    }
    log.info(
      { tournament: id, game: result.spec.game, entrants: result.spec.entrants.length },
      'tournament started from the dashboard',
    );
    return reply.code(201).send({ id, warnings } satisfies TournamentCreated);
  });

  app.post<{ Params: { id: string } }>('/api/tournaments/:id/stop', async (request, reply) => {
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    if (!running.has(t.id) && options.queue !== undefined && t.status === 'running') {
      // Coordinated elsewhere (another node, a CLI): the store says stop; its coordinator cancels the
      // queued matches and the workers cut off those in play.
      await store.setTournamentStatus(t.id, 'stopped', Date.now(), 'stopped from the dashboard');
      return reply.send(await summaryOf((await store.getTournament(t.id)) ?? t));
    }
    if (!running.has(t.id)) return reply.code(409).send({ error: `${t.id} is not running in this server` });
    await stop(t.id);
    return reply.send(await summaryOf((await store.getTournament(t.id)) ?? t));
  });

  app.post<{ Params: { id: string } }>('/api/tournaments/:id/resume', async (request, reply) => {
    const t = await store.getTournament(request.params.id);
    if (!t) return notFound(reply, request.params.id);
    if (running.has(t.id)) return reply.code(409).send({ error: `${t.id} is running already` });
    if (t.status === 'finished') return reply.code(409).send({ error: `${t.id} is finished` });
    // Queued matches are the workers' (the coordinator's lock keeps a second coordinator out).
    const other = options.queue ? null : otherWorker(await store.listTournamentMatches(t.id, { status: 'running' }));
    if (other !== null) return reply.code(409).send({ error: `${t.id} is being played by ${other}` });
    // Another request may have resumed it while this one read the store.
    if (running.has(t.id)) return reply.code(409).send({ error: `${t.id} is running already` });
    try {
      await start(t.id);
    } catch (err) {
      if ((err as Error).name === 'CoordinatedElsewhereError') return reply.code(409).send({ error: (err as Error).message });
      throw err;
    }
    return reply.send(await summaryOf((await store.getTournament(t.id)) ?? t));
  });

  return { stopAll: async () => Promise.all([...running.keys()].map(stop)).then(() => undefined) };
}
