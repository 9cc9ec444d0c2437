import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { createCatanBot } from '../../../src/games/catan/client.js';
import { createCatanServer, type CatanServer } from '../../../src/games/catan/server.js';

/** `spielhalle bot catan` as a user runs it: a whole game on a real server, exit codes, one-line errors. */

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'src', 'cli.ts');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
// Each case starts a fresh Node with the TypeScript loader: seconds apiece on a busy machine.
const SLOW = 120_000;

function run(
  args: string[],
  onStart?: () => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', tsx, cli, 'bot', 'catan', ...args], {
    cwd: root,
    env: process.env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  onStart?.();
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('spielhalle bot catan', () => {
  const store = new RecordStore(':memory:');
  let server: CatanServer;

  beforeAll(async () => {
    server = createCatanServer({
      host: '127.0.0.1',
      port: 0,
      seed: 'cli',
      log: silentLogger,
      store,
      botStrategy: (seed) => createCatanBot('builder', seed),
    });
    await server.start();
  });

  afterAll(async () => {
    await server.stop();
    store.close();
  });

  it(
    'plays one game on a server with our house bots and exits 0 with the outcome',
    async () => {
      // House bots take the other seats as soon as the CLI's bot is in the lobby.
      const watcher = setInterval(() => {
        const lobby = server.hall
          .lobbyRows()
          .find((l) => l.players.some((p) => p.name === 'CLI Bot' && p.status === 'Wartet auf Spielbeginn'));
        if (lobby) server.fillLobbyWithBots(lobby.id, 4);
      }, 50);
      const r = await run([
        '--port',
        String(server.port),
        '--name',
        'CLI Bot',
        '--colour',
        'weiß',
        '--strategy',
        'builder',
        '--seed',
        'cli',
      ]);
      clearInterval(watcher);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout.trim()) as {
        name: string;
        colour: string;
        won: boolean;
        winner: number;
        message: string;
        actions: number;
      };
      // (Offers by others may lapse before an acceptance arrives: a refusal or two is a race, not a bug.)
      expect(out).toMatchObject({ name: 'CLI Bot', colour: 'Weiss' });
      expect(out.actions).toBeGreaterThan(20);
      expect(out.message).toMatch(/^Spieler .* hat das Spiel gewonnen\.$/);
      store.flush();
      const [record] = store.listMatches({ game: 'catan', status: 'finished' });
      expect(record!.seats.find((s) => s.name === 'CLI Bot')).toMatchObject({ kind: 'ai' });
      expect((record!.result as { winner: number }).winner).toBe(out.winner);
    },
    SLOW,
  );

  it(
    'leaves a lobby that never fills after --lobby-timeout and exits 3 with one line',
    async () => {
      // Nobody else joins: the bot sits alone in the lobby, ready, until its timeout.
      let seen = false;
      const watcher = setInterval(() => {
        seen ||= server.hall.lobbyRows().some((l) => l.players.some((p) => p.name === 'Lonely Bot' && p.status === 'Wartet auf Spielbeginn'));
      }, 20);
      const started = Date.now();
      const r = await run(['--port', String(server.port), '--name', 'Lonely Bot', '--strategy', 'random', '--lobby-timeout', '1500ms']);
      clearInterval(watcher);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(
        `spielhalle: no game started at 127.0.0.1:${server.port} within 1500 ms (the lobby did not fill); left the lobby\n`,
      );
      expect(r.stdout).toBe('');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      expect(seen, 'the bot waited in the lobby, ready').toBe(true);
      // It left: the server no longer has it in a lobby.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(server.hall.lobbyRows().some((l) => l.players.some((p) => p.name === 'Lonely Bot'))).toBe(false);
    },
    SLOW,
  );

  it(
    'exits 1 with one line when no server listens there',
    async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as { port: number }).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const r = await run(['--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `spielhalle: cannot connect to the Catan server at 127.0.0.1:${port} (ECONNREFUSED)\n`,
      );
    },
    SLOW,
  );

  it(
    'exits 2 with one line for usage errors',
    async () => {
      const cases: [string[], RegExp][] = [
        [['--port', 'six'], /--port must be a whole number from 1 to 65535, got "six"/],
        [['--strategy', 'psychic'], /psychic.*invalid|Allowed choices/i],
        [['--colour', 'Gruen'], /--colour must be one of Rot, Orange, Blau, Weiss, got "Gruen"/],
        [['--name', ' '], /--name must have 1 to 40 characters/],
        [['--lobby-timeout', 'soon'], /--lobby-timeout must be a duration such as 120s, 2m or 500ms \(0: wait for ever\), up to 24h, got "soon"/],
      ];
      for (const [args, message] of cases) {
        const r = await run(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr, args.join(' ')).toMatch(message);
        expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      }
    },
    SLOW,
  );
});
