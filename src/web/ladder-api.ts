import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Logger } from '../core/log.js';
import type { Ladder } from '../ladder/ladder.js';
import { interval95, isEstablished } from '../ladder/ratings.js';
import { standingsLines } from '../ladder/standings.js';
import { csvField } from '../tournament/standings.js';
import { parseRosterCsv } from '../ladder/roster.js';
import { LadderStoreError } from '../ladder/store.js';
import { LADDER_GAMES, type LadderGame, type RosterEntry } from '../ladder/types.js';
import { admitAdmin } from './exposure.js';

/**
 * Die Liga's API (issue 34, docs/ladder.md). Public: the live ladder and the standings per game
 * (names and ratings, never codes). A student's page: `GET /api/ladder/me/<pageToken>` (the token
 * is the private link's secret). Staff, behind the admin token (`web.token`) as registering
 * programs is: the roster with its codes, importing a CSV, revoking and renewing codes, seasons.
 */

export interface LadderRoutesOptions {
  ladder: Ladder;
  adminToken: string | null;
  log: Logger;
}

const ADMIN_TEXTS = {
  closed:
    'the ladder roster needs an admin token: set web.token (SPIELHALLE_WEB_TOKEN) and open the dashboard with ?token=…, or use `spielhalle ladder` on the server (docs/ladder.md)',
  missing: 'the ladder roster needs the admin token (web.token)',
};

const gameParam = z.strictObject({ game: z.enum(LADDER_GAMES as [LadderGame, ...LadderGame[]]) });
const idParam = z.strictObject({ id: z.string().regex(/^e_[a-z0-9]{10}$/) });
const importBody = z.union([
  z.strictObject({ csv: z.string().min(1).max(1_000_000) }),
  z.strictObject({ entries: z.array(z.strictObject({ name: z.string(), group: z.string().optional() })).min(1).max(5000) }),
]);
const seasonBody = z.strictObject({ action: z.enum(['freeze', 'unfreeze', 'new']), name: z.string().min(1).max(40).optional() });

/** What staff see of an entry: its codes and its page's link. */
const staffEntry = (e: RosterEntry) => ({ id: e.id, name: e.name, group: e.group, code: e.code, reservation: e.reservation, page: `/liga/${e.pageToken}`, revoked: e.revoked, createdAt: e.createdAt });

export function registerLadderRoutes(app: FastifyInstance, o: LadderRoutesOptions): void {
  const { ladder } = o;
  const store = ladder.store;
  const log = o.log.child({ component: 'ladder-api' });
  const minGames = ladder.settings.minGames;

  app.get('/api/ladder', async () => ({
    enabled: true,
    games: await Promise.all(
      ladder.games.map(async (game) => ({ game, season: await store.currentSeason(game), live: ladder.live().find((l) => l.game === game) ?? null })),
    ),
    houseAfterMs: ladder.settings.houseAfterMs,
    minGames,
  }));

  app.get('/api/ladder/:game/standings', async (request, reply) => {
    const p = gameParam.safeParse(request.params);
    if (!p.success || !ladder.games.includes(p.data.game)) return reply.code(404).send({ error: 'no ladder for this game' });
    const game = p.data.game;
    const season = await store.currentSeason(game);
    const rows = standingsLines(await store.standings(game, season.id), minGames);
    const query = request.query as { format?: unknown };
    if (query.format === 'csv') {
      const head = ['place', 'name', 'group', 'rating', 'rd', 'low', 'high', 'games', 'established', 'wins', 'draws', 'losses'] as const;
      const lines = [head.join(','), ...rows.map((r) => head.map((h) => csvField(r[h])).join(','))];
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="liga-${game}-${season.id}.csv"`)
        .send(lines.join('\n') + '\n');
    }
    return { game, season, minGames, rows };
  });

  app.get('/api/ladder/me/:token', async (request, reply) => {
    const token = (request.params as { token?: string }).token ?? '';
    const entry = await store.byPageToken(token);
    if (entry === null || entry.revoked) return reply.code(404).send({ error: 'no ladder page here (the link may have been renewed: ask your tutor)' });
    const games = await Promise.all(
      ladder.games.map(async (game) => {
        const season = await store.currentSeason(game);
        const rating = await store.getRating(game, season.id, entry.id);
        const history = await store.ratingHistory(game, season.id, entry.id);
        const played = await store.listGames({ game, season: season.id, entryId: entry.id, limit: 200 });
        return {
          game,
          season,
          rating: rating === null ? null : { ...rating, interval: interval95(rating), established: isEstablished(rating, minGames) },
          history,
          games: played.map((g) => {
            const mine = g.seats.findIndex((s) => s.side.kind === 'entry' && s.side.entryId === entry.id);
            const me = g.seats[mine]!;
            // Catan seats 3–4: every other seat is an opponent.
            const others = g.seats.filter((_, i) => i !== mine);
            return {
              id: g.id,
              at: g.endedAt,
              seat: mine,
              opponent: others.map((s) => s.name).join(', '),
              opponentIsHouse: others.every((s) => s.side.kind === 'house'),
              score: me.score,
              // Catan: the place among all seats (ties share it), and how many played.
              place: 1 + others.filter((s) => s.score > me.score).length,
              players: g.seats.length,
              ratingBefore: Math.round(me.before.rating),
              ratingAfter: Math.round(me.after.rating),
              reason: me.reason,
              recordId: g.recordId,
            };
          }),
        };
      }),
    );
    return { entry: { name: entry.name, group: entry.group, code: entry.code, reservation: entry.reservation }, games, minGames };
  });

  app.get('/api/ladder/roster', async (request, reply) => {
    if (!admitAdmin(request, reply, o.adminToken, ADMIN_TEXTS)) return reply;
    return { entries: (await store.listEntries({ includeRevoked: true })).map(staffEntry) };
  });

  app.post('/api/ladder/roster', async (request, reply) => {
    if (!admitAdmin(request, reply, o.adminToken, ADMIN_TEXTS)) return reply;
    const body = importBody.safeParse(request.body);
    if (!body.success) return reply.code(400).send({ error: 'send {"csv": "name,group\\n…"} or {"entries": [{"name": …, "group": …}]}' });
    let rows: { name: string; group: string }[];
    if ('csv' in body.data) {
      const parsed = parseRosterCsv(body.data.csv);
      if (parsed.errors.length > 0) return reply.code(400).send({ error: 'the roster has errors', errors: parsed.errors });
      rows = parsed.rows;
    } else rows = body.data.entries.map((e) => ({ name: e.name.trim(), group: (e.group ?? '').trim() }));
    try {
      const added = await store.addEntries(rows, Date.now());
      await ladder.reload();
      log.info({ entries: added.length }, 'ladder: roster entries added');
      return await reply.code(201).send({ entries: added.map(staffEntry) });
    } catch (err) {
      if (err instanceof LadderStoreError) return reply.code(409).send({ error: err.message });
      throw err;
    }
  });

  for (const action of ['revoke', 'renew'] as const) {
    app.post(`/api/ladder/roster/:id/${action}`, async (request, reply) => {
      if (!admitAdmin(request, reply, o.adminToken, ADMIN_TEXTS)) return reply;
      const p = idParam.safeParse(request.params);
      if (!p.success || (await store.getEntry(p.data.id)) === null) return reply.code(404).send({ error: 'no such roster entry' });
      let entry: RosterEntry;
      try {
        entry = action === 'revoke' ? await store.revoke(p.data.id, Date.now()) : await store.renew(p.data.id, Date.now());
      } catch (err) {
        // Renewing a revoked entry: refused in words (add the student again instead).
        if (err instanceof LadderStoreError) return reply.code(409).send({ error: err.message });
        throw err;
      }
      await ladder.reload();
      log.info({ entry: p.data.id }, `ladder: code ${action === 'revoke' ? 'revoked' : 'renewed'}`);
      return staffEntry(entry);
    });
  }

  app.post('/api/ladder/:game/season', async (request, reply) => {
    if (!admitAdmin(request, reply, o.adminToken, ADMIN_TEXTS)) return reply;
    const p = gameParam.safeParse(request.params);
    const body = seasonBody.safeParse(request.body);
    if (!p.success || !ladder.games.includes(p.data.game)) return reply.code(404).send({ error: 'no ladder for this game' });
    if (!body.success) return reply.code(400).send({ error: 'send {"action": "freeze" | "unfreeze" | "new", "name"?: …}' });
    const game = p.data.game;
    const now = Date.now();
    try {
      if (body.data.action === 'freeze') await store.freezeSeason(game, now);
      else if (body.data.action === 'unfreeze') await store.unfreezeSeason(game, now);
      else await store.startSeason(game, body.data.name ?? `Season from ${new Date(now).toISOString().slice(0, 10)}`, now);
    } catch (err) {
      // A name the store refuses (control characters, say): the form shows why.
      if (err instanceof LadderStoreError) return reply.code(400).send({ error: err.message });
      throw err;
    }
    await ladder.reload();
    return store.currentSeason(game);
  });
}
