import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, loadSettings, type Settings } from '../src/config.js';
import { silentLogger } from '../src/core/log.js';
import type { MatchRecord } from '../src/core/record-types.js';
import { PgRecordStore } from '../src/core/records-pg.js';
import { serve, type Running } from '../src/serve.js';

/**
 * `serve` with its records in PostgreSQL (issue #19): Mia's house bots play rounds into a schema
 * of its own, the dashboard lists them from there, the scores survive a restart (the next table
 * starts from them), and nothing is written to the data dir's SQLite file.
 */

const URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `serve_${process.pid}_${Date.now().toString(36)}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
});

function settings(): Settings {
  return {
    ...DEFAULT_SETTINGS,
    dataDir: mkdtempSync(join(tmpdir(), 'spielhalle-serve-pg-')),
    seed: 'serve-postgres',
    database: { url: URL, schema: SCHEMA },
    web: { enabled: true, host: '127.0.0.1', port: 0 },
    games: { ...DEFAULT_SETTINGS.games, mia: { ...DEFAULT_SETTINGS.games.mia, port: 0, houseBots: 3, startEarly: true } },
  };
}

async function until<T>(what: string, fn: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('serve with its records in PostgreSQL', () => {
  it('reads database.url from SPIELHALLE_DATABASE_URL', () => {
    const loaded = loadSettings({ env: { SPIELHALLE_DATABASE_URL: URL, SPIELHALLE_DATABASE_SCHEMA: 'courses' }, cwd: tmpdir() }).config;
    expect(loaded.database).toEqual({ url: URL, schema: 'courses' });
    expect(() => loadSettings({ env: { SPIELHALLE_DATABASE_URL: 'mysql://x' }, cwd: tmpdir() })).toThrow(/SPIELHALLE_DATABASE_URL/);
  });

  it('records Mia rounds there, lists them on the dashboard, and keeps the scores across a restart', async () => {
    let running: Running | null = await serve(settings(), ['mia'], silentLogger);
    try {
      expect(running.store.kind).toBe('postgres');
      const store = running.store;
      const rounds = await until('three finished rounds', async () => {
        const list = await store.listMatches({ game: 'mia', status: 'finished' });
        return list.length >= 3 ? list : null;
      });
      const detail = (await store.getMatch(rounds[0]!.id))!;
      expect(detail.wire.length).toBeGreaterThan(3);
      const api = (await (await fetch(`http://127.0.0.1:${running.webPort!}/api/matches?game=mia&status=finished`)).json()) as MatchRecord[];
      expect(api.map((m) => m.id)).toEqual(expect.arrayContaining(rounds.map((m) => m.id)));
      const wire = (await (await fetch(`http://127.0.0.1:${running.webPort!}/api/matches/${rounds[0]!.id}`)).json()) as { wire: unknown[] };
      expect(wire.wire).toHaveLength(detail.wire.length);
      await running.lifecycle.stop();
      running = null;

      const check = await PgRecordStore.open({ url: URL, schema: SCHEMA, mode: 'read' });
      const scores = await check.getScores('mia');
      expect(scores.size).toBeGreaterThan(0);
      const total = [...scores.values()].reduce((a, b) => a + b, 0);
      expect(await check.countListed({ game: 'mia', status: 'running' })).toBe(0);
      await check.close();

      // The next serve's table starts from the saved scores (before any round of its own).
      running = await serve({ ...settings(), bots: false }, ['mia'], silentLogger);
      const board = running.servers[0]!.leaderboard!();
      expect(new Map(board.map((e) => [e.name, e.points]))).toEqual(scores);
      expect(board.reduce((a, e) => a + e.points, 0)).toBe(total);
    } finally {
      await running?.lifecycle.stop();
    }
  }, 90_000);
});
