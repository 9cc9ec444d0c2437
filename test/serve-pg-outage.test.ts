import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../src/config.js';
import { silentLogger } from '../src/core/log.js';
import { PgRecordStore } from '../src/core/records-pg.js';
import { serve, type Running } from '../src/serve.js';
import { postgresBin, useOwnPostgres } from './support/own-postgres.js';

/**
 * Issue #31: `serve` with its records in PostgreSQL rides out an outage. Mia's house bots play on
 * while a PostgreSQL server of the test's own is stopped (`pg_ctl stop -m immediate`, 4 s); the
 * rounds played meanwhile are recorded once it is back, and nothing is left `running`. (Before,
 * `serve` died half a second into the outage, exit 70.) `/metrics` says so meanwhile:
 * `spielhalle_database_up` 0 and `spielhalle_database_down_seconds` growing, 1 and 0 once it is back.
 */

/** The value of a one-sample gauge in a /metrics text (null when it has no sample). */
function gauge(text: string, name: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const bin = postgresBin();
if (bin === null) console.log('skipped: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) to start and stop one of our own');

describe.skipIf(bin === null)('serve through a PostgreSQL outage (issue #31)', () => {
  const db = useOwnPostgres();

  it('keeps playing, and the rounds of the outage are recorded once the database is back', async () => {
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      dataDir: mkdtempSync(join(tmpdir(), 'spielhalle-serve-outage-')),
      seed: 'serve-outage',
      database: { url: db.url, schema: 'serve_outage' },
      web: { ...DEFAULT_SETTINGS.web, enabled: true, host: '127.0.0.1', port: 0 },
      games: { ...DEFAULT_SETTINGS.games, mia: { ...DEFAULT_SETTINGS.games.mia, port: 0, houseBots: 3, startEarly: true } },
    };
    let running: Running | null = await serve(settings, ['mia'], silentLogger);
    try {
      const store = running.store;
      const metrics = async (): Promise<string> => (await fetch(`http://127.0.0.1:${running!.webPort!}/metrics`)).text();
      const before = await metrics();
      expect(before).toContain('spielhalle_database_up{backend="postgres"} 1');
      expect(gauge(before, 'spielhalle_database_down_seconds')).toBe(0);
      for (const end = Date.now() + 30_000; (await store.countListed({ game: 'mia', status: 'finished' })) < 2; ) {
        if (Date.now() > end) throw new Error('no rounds');
        await new Promise((r) => setTimeout(r, 100));
      }
      db.stop('immediate');
      const downAt = Date.now();
      await new Promise((r) => setTimeout(r, 3000));
      // /healthz reads this: the records cannot be written while the database is gone.
      const gone = store.health?.();
      expect(gone?.failing).toBe(true);
      expect(gone?.reason).toMatch(/^PostgreSQL unreachable for \d+ s$/);
      // …and /metrics, for an alert: down, for about as long as it has been gone.
      const down = await metrics();
      expect(gauge(down, 'spielhalle_database_up')).toBe(0);
      expect(gauge(down, 'spielhalle_database_down_seconds')).toBeGreaterThan(1.5);
      expect(gauge(down, 'spielhalle_database_down_seconds')).toBeLessThanOrEqual((Date.now() - downAt) / 1000);
      await new Promise((r) => setTimeout(r, 1000));
      db.start();
      const upAt = Date.now();
      // Rounds that began while it was gone are there once it is back.
      let during = 0;
      for (const end = Date.now() + 20_000; during < 2 && Date.now() < end; ) {
        const list = await store.listMatches({ game: 'mia', status: 'finished', limit: 1000 });
        during = list.filter((m) => m.startedAt > downAt + 200 && m.startedAt < upAt).length;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(during).toBeGreaterThanOrEqual(2);
      expect(store.health?.()).toMatchObject({ failing: false });
      const after = await metrics();
      expect(gauge(after, 'spielhalle_database_up')).toBe(1);
      expect(gauge(after, 'spielhalle_database_down_seconds')).toBe(0);
      await running.lifecycle.stop();
      running = null;
      const check = await PgRecordStore.open({ url: db.url, schema: 'serve_outage', mode: 'read' });
      expect(await check.countListed({ game: 'mia', status: 'running' })).toBe(0);
      const sample = (await check.listMatches({ game: 'mia', status: 'finished', limit: 1000 })).find((m) => m.startedAt > downAt + 200 && m.startedAt < upAt);
      const detail = await check.getMatch(sample!.id);
      expect(detail?.wire.length).toBeGreaterThan(3);
      await check.close();
    } finally {
      await running?.lifecycle.stop();
    }
  }, 90_000);
});
