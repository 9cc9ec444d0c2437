import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allGamesOnFreePorts, measureStartup } from './support/serve-probe.js';

/**
 * Issue 15, "Start-up": `node dist/cli.js serve` (the built program, as a user runs it: the tsx
 * loader would time the compiler) binds every port soon after it starts, and says so once per
 * server. On a quiet machine every port answers within about 0.5 s (docs/benchmarks.md,
 * bench/serve-startup.ts); the bound here leaves room for a busy CI machine.
 */

const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli.js');
const LIMIT_MS = 5000;

beforeAll(() => {
  // Compiles only what changed since the last build (npm test has built it already).
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--server-only', '--quiet'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0 && !existsSync(cli)) throw new Error(`build failed: ${r.stderr}`);
}, 300_000);

describe('spielhalle serve start-up', () => {
  it('binds every game port and the dashboard within the bound, and logs one `listening` line per server', async () => {
    const { args, ports } = await allGamesOnFreePorts();
    const run = await measureStartup({ cli, args: [...args, '--log-level', 'info'], ports, limitMs: LIMIT_MS, listeningLines: 6 });
    for (const p of ports) expect(run.ready[p.name], `${p.name} (${p.transport} ${p.port}) answered within ${LIMIT_MS} ms; stderr:\n${run.stderr}`).not.toBeNull();
    expect(run.all).toBeLessThan(LIMIT_MS);

    const lines = run.listening.map((l) => l.line);
    const games = lines.filter((l) => typeof l.game === 'string');
    expect(games.map((l) => l.game).sort()).toEqual(['catan', 'connect4', 'dame', 'mia', 'ostseeschach']);
    for (const l of games) {
      const probe = ports.find((p) => p.name === l.game);
      expect(l, String(l.game)).toMatchObject({ transport: probe?.transport, host: '127.0.0.1', port: probe?.port });
    }
    const dashboard = lines.filter((l) => l.component === 'web');
    expect(dashboard).toHaveLength(1);
    expect(dashboard[0]).toMatchObject({ transport: 'http', host: '127.0.0.1', port: ports.find((p) => p.name === 'dashboard')?.port });
    expect(lines).toHaveLength(6);
    // No second, older-style line (a game's own "… server listening", fastify's "Server listening at …").
    expect(run.stderr).not.toMatch(/"msg":"[^"]*[Ll]istening[^"]+"/);
    // Every game server listens before the dashboard, whose import and set-up come after them.
    const dashboardAt = run.listening.find((l) => l.line.component === 'web')?.at ?? 0;
    for (const l of run.listening.filter((x) => typeof x.line.game === 'string')) expect(l.at).toBeLessThanOrEqual(dashboardAt);
  }, 60_000);

  it('refuses to listen beyond loopback with the default Ostseeschach admin password, in one line with exit code 2', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-exposed-cli-'));
    // The default password, whatever this shell has set.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'SPIELHALLE_OSTSEESCHACH_ADMIN_PASSWORD'));
    try {
      for (const flags of [['--host', '0.0.0.0'], ['--web-host', '0.0.0.0', '--web-port', '0']]) {
        const r = spawnSync(process.execPath, [cli, 'serve', '--data-dir', dataDir, ...flags], { cwd: dataDir, encoding: 'utf8', timeout: 10_000, env });
        expect(r.status, flags.join(' ')).toBe(2);
        expect(r.stderr, flags.join(' ')).toMatch(/^spielhalle: refusing to listen on 0\.0\.0\.0 with the default Ostseeschach admin password: set games\.ostseeschach\.adminPassword/);
        expect(r.stderr.trim().split('\n'), flags.join(' ')).toHaveLength(1);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
