import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli.js';
import { silentLogger } from '../../../src/core/log.js';
import { OstseeschachAdmin } from '../../../src/games/ostseeschach/admin.js';
import { randomBot } from '../../../src/games/ostseeschach/bots/index.js';
import { OstseeschachClient, playOnServer } from '../../../src/games/ostseeschach/client.js';
import { createOstseeschachServer, type OstseeschachServer } from '../../../src/games/ostseeschach/server.js';

/**
 * `spielhalle bot ostseeschach` as a contest runner starts it: `-h <host> -p <port> -r <code>`
 * (the official player's flags), `--room`, a plain join, and its exit codes. Two runs are real
 * child processes (a fresh Node with the TypeScript loader each, in parallel); the rest go
 * through the CLI's `main` in this process.
 */

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'src', 'cli.ts');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, cli, ...args], { cwd: root, env: { ...process.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const SLOW = 120_000;

/** The same command through `main` in this process: fast, for everything but the real start-up. */
async function inProcess(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  try {
    const code = await main(['node', 'spielhalle', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

interface Line {
  roomId: string;
  team: string;
  points: number;
  winner: string | null;
  moves: number;
  scores: { team: string; cause: string; parts: number[] }[];
}

describe('spielhalle bot ostseeschach', () => {
  const servers: OstseeschachServer[] = [];
  const newServer = async (): Promise<OstseeschachServer> => {
    const server = createOstseeschachServer({ port: 0, seed: 'cli', log: silentLogger, store: null });
    await server.start();
    servers.push(server);
    return server;
  };
  let closedPort = 0;

  beforeAll(async () => {
    // A port with nobody listening: bound, noted and released.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const address = probe.address();
    closedPort = typeof address === 'object' && address ? address.port : 1;
    await new Promise<void>((r) => probe.close(() => r()));
  });

  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  it('plays with -h -p -r as a contest runner starts it, and exits 0 after the game', async () => {
    // -r: an administrator prepares the room; the other seat is an in-process bot.
    const prepared = await newServer();
    const admin = new OstseeschachAdmin({ host: '127.0.0.1', port: prepared.port, password: 'examplepassword' });
    await admin.start();
    const { roomId, reservations } = await admin.prepare([
      { displayName: 'cli', canTimeout: true, reserved: true },
      { displayName: 'local', canTimeout: true, reserved: true },
    ]);
    const local = playOnServer({ host: '127.0.0.1', port: prepared.port, join: { kind: 'prepared', reservationCode: reservations[1]! }, bot: randomBot, budgetMs: 50 });
    const [a, refused] = await Promise.all([
      run(['bot', 'ostseeschach', '-h', '127.0.0.1', '-p', String(prepared.port), '-r', reservations[0]!, '--bot', 'depth2', '--time-ms', '100', '--log-level', 'warn']),
      run(['bot', 'ostseeschach', '-h', '127.0.0.1', '-p', String(closedPort)]),
    ]);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const line = JSON.parse(a.stdout) as Line;
    const localOutcome = await local;
    expect(line).toMatchObject({ roomId, team: 'ONE' });
    expect(line.scores).toEqual(localOutcome.result?.scores.map((s) => ({ team: s.team, cause: s.cause, reason: s.reason, parts: s.parts })));
    expect(line.points + (localOutcome.points ?? 0)).toBe(2);
    expect(line.moves).toBeGreaterThan(0);
    await admin.close();

    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`spielhalle: cannot connect to 127.0.0.1:${closedPort} (ECONNREFUSED)\n`);
  }, SLOW);

  it('joins with --room and with a plain join (in-process runs of the same command)', async () => {
    // --room: an in-process bot opens the room with a plain join.
    const roomServer = await newServer();
    let opened: (id: string) => void = () => undefined;
    const openedRoom = new Promise<string>((r) => (opened = r));
    const host = new OstseeschachClient({
      host: '127.0.0.1',
      port: roomServer.port,
      join: { kind: 'join' },
      bot: randomBot,
      budgetMs: 50,
      onPacket: (p) => {
        if (p.type === 'joined') opened(p.roomId);
      },
    });
    await host.start();
    const room = await openedRoom;
    const b = await inProcess(['bot', 'ostseeschach', '--host', '127.0.0.1', '--port', String(roomServer.port), '--room', room, '--bot', 'random', '--log-level', 'warn']);
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ roomId: room, team: 'TWO' });
    expect((await host.finished).result?.scores).toHaveLength(2);

    // A plain join (long flags), paired with an in-process plain join.
    const joinServer = await newServer();
    const partner = playOnServer({ host: '127.0.0.1', port: joinServer.port, join: { kind: 'join' }, bot: randomBot, budgetMs: 50 });
    const c = await inProcess(['bot', 'ostseeschach', '--host', '127.0.0.1', '--port', String(joinServer.port), '--bot', 'engine', '--time-ms', '20', '--log-level', 'warn']);
    expect(c.code).toBe(0);
    const lineC = JSON.parse(c.stdout) as Line;
    const partnerOutcome = await partner;
    expect(lineC.roomId).toBe(partnerOutcome.roomId);
    expect([lineC.team, partnerOutcome.team].sort()).toEqual(['ONE', 'TWO']);
    expect(lineC.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
  });

  it('exits 1 when the server refuses the code, and 2 on usage errors; -h is the host, help is --help', async () => {
    const server = await newServer();
    const badCode = await inProcess(['bot', 'ostseeschach', '-h', '127.0.0.1', '-p', String(server.port), '-r', 'no-such-code', '--log-level', 'silent']);
    expect(badCode.code).toBe(1);
    expect(badCode.stderr).toBe(
      'spielhalle: no game played: sc.server.gaming.UnknownReservationException: Couldn\'t find a reservation for the provided token.\n',
    );
    const usage: [string[], string][] = [
      [['-r', 'abc', '--room', 'def'], 'spielhalle: give either -r/--reservation or --room, not both\n'],
      [['-p', 'http'], 'spielhalle: -p/--port must be a whole number from 1 to 65535, got "http"\n'],
      [['--time-ms', '5'], 'spielhalle: --time-ms must be a whole number from 10 to 60000, got "5"\n'],
      [['--log-level', 'loud'], 'spielhalle: --log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n'],
    ];
    for (const [args, message] of usage) {
      const r = await inProcess(['bot', 'ostseeschach', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(message);
    }
    const bot = await inProcess(['bot', 'ostseeschach', '--bot', 'psychic']);
    expect(bot.code).toBe(2);
    expect(bot.stderr).toMatch(/psychic/);
    const help = await inProcess(['bot', 'ostseeschach', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/-h, --host <host>/);
    expect(help.stdout).toMatch(/-p, --port <port>/);
    expect(help.stdout).toMatch(/-r, --reservation <code>/);
    expect(help.stdout).toMatch(/--help +display help/);
    expect(help.stdout).not.toMatch(/-h, --help/);
  });
});
