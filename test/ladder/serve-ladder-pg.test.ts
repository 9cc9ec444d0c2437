import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { Rng } from '../../src/core/rng.js';
import { createDameBot } from '../../src/games/dame/bots/index.js';
import { DameClient } from '../../src/games/dame/client.js';
import { serve, type Running } from '../../src/serve.js';

/**
 * Die Liga with two `serve` processes behind one PostgreSQL database (issue 34, docs/ladder.md
 * "Several servers"): staff import the roster at one, a student plays at the other, and both see
 * the same rated game, standings and student page; the SQLite file in the data dir stays unused.
 * Skipped when no PostgreSQL answers at SPIELHALLE_TEST_DATABASE_URL (127.0.0.1:5432/test).
 */

const URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `ladder_serve_${process.pid}_${Date.now().toString(36)}`;
const TOKEN = 'ladder-test-token-0123456789';
const dirs: string[] = [];
const running: Running[] = [];
let reachable = false;

beforeAll(async () => {
  const client = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    reachable = true;
  } catch {
    return;
  } finally {
    await client.end().catch(() => undefined);
  }
  for (let i = 0; i < 2; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-ladder-pg-'));
    dirs.push(dataDir);
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      dataDir,
      bots: false,
      database: { url: URL, schema: SCHEMA },
      web: { ...DEFAULT_SETTINGS.web, port: 0, token: TOKEN },
      games: { ...DEFAULT_SETTINGS.games, dame: { ...DEFAULT_SETTINGS.games.dame, port: 0, moveTimeMs: 300, motdDelayMs: 0 } },
      ladder: { ...DEFAULT_SETTINGS.ladder, enabled: true, houseAfterSeconds: 1 },
    };
    running.push(await serve(settings, ['dame'], silentLogger));
  }
});

afterAll(async () => {
  for (const r of running.splice(0)) await r.lifecycle.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  if (!reachable) return;
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
});

describe('Die Liga on PostgreSQL behind two serve processes', () => {
  it('shares the roster, the rated games and the standings between them', async (ctx) => {
    if (!reachable) ctx.skip();
    const [a, b] = running as [Running, Running];
    const web = (r: Running): string => `http://127.0.0.1:${r.webPort!}`;
    const added = await fetch(`${web(a)}/api/ladder/roster`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ csv: 'Name\nAnna Schmidt\n' }),
    });
    expect(added.status).toBe(201);
    const [anna] = ((await added.json()) as { entries: { code: string; page: string }[] }).entries;
    // B reads the roster again within 5 s; its door then knows the code.
    const damePortB = b.servers.find((s) => s.game === 'dame')!.info().port;
    await b.ladder!.reload();
    const rng = Rng.seeded(7);
    const random = createDameBot('random');
    const result = await new DameClient({ host: '127.0.0.1', port: damePortB, gameId: anna!.code, player: (s, ms) => random(s, ms, rng) }).run();
    expect(result.error).toBeNull();
    await b.ladder!.settled();
    // A's dashboard shows the game that B's ladder rated: one store.
    const standings = (await (await fetch(`${web(a)}/api/ladder/dame/standings`)).json()) as { rows: { name: string; games: number }[] };
    expect(standings.rows.find((r) => r.name === 'Anna Schmidt')?.games).toBe(1);
    const page = (await (await fetch(`${web(a)}/api${anna!.page.replace('/liga/', '/ladder/me/')}`)).json()) as { games: { game: string; games: { recordId: string | null }[] }[] };
    const game = page.games.find((g) => g.game === 'dame')!.games[0]!;
    expect(game.recordId).not.toBeNull();
    // The game's record is in the shared record store too: A serves it.
    expect((await fetch(`${web(a)}/api/matches/${game.recordId!}`)).status).toBe(200);
    const client = new pg.Client({ connectionString: URL });
    await client.connect();
    try {
      const rows = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.ladder_games`);
      expect(rows.rows[0]?.n).toBe(1);
    } finally {
      await client.end();
    }
  }, 60_000);
});
