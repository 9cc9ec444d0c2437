import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RecordStore } from '../src/core/records.js';
import { allGamesOnFreePorts } from './support/serve-probe.js';

/**
 * Issue #33, item 6 (docs/operations.md, "Logs"): on a terminal `spielhalle serve` logs readable
 * lines (pino-pretty) and ends its start-up with a framed banner of every address, after every
 * `listening`; into a pipe it logs JSON lines as before. Either way the house games' routine
 * (their games, seats, rooms, connections) is logged at debug, so nothing at info follows the
 * banner while only house bots play.
 */

const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli.js');
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
// eslint-disable-next-line no-control-regex
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');

beforeAll(() => {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--server-only', '--quiet'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0 && !existsSync(cli)) throw new Error(`build failed: ${r.stderr}`);
}, 300_000);

/** House games that start at once and (but Dame's, whose bot must not time out on a busy machine) go fast. */
const FAST_HOUSE = {
  SPIELHALLE_DAME_HOUSE_PAUSE_MS: '10',
  SPIELHALLE_OSTSEESCHACH_HOUSE_MOVE_TIME_MS: '20',
  SPIELHALLE_OSTSEESCHACH_HOUSE_PAUSE_MS: '0',
  SPIELHALLE_CATAN_BOT_THINK_MS: '0',
  SPIELHALLE_CATAN_HOUSE_PAUSE_MS: '10',
};

interface Serve {
  child: ChildProcess;
  dir: string;
  webPort: number;
  /** Everything on stderr (through `script`: the terminal's output) so far, without colours. */
  output(): string;
}

const running: Serve[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      const exited = new Promise((r) => s.child.once('exit', r));
      // Its own process group (detached): `script` and the serve under it.
      process.kill(-s.child.pid!, 'SIGTERM');
      const killer = setTimeout(() => process.kill(-s.child.pid!, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(s.dir, { recursive: true, force: true });
  }
});

async function startServe(o: { tty: boolean; args?: string[] }): Promise<Serve> {
  const { args, ports } = await allGamesOnFreePorts();
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-logs-'));
  const argv = [cli, 'serve', '--data-dir', dir, ...args, ...(o.args ?? [])];
  // Only the settings of this test, whatever the shell has set.
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SPIELHALLE_') && k !== 'NO_COLOR')), ...FAST_HOUSE };
  const quoted = [process.execPath, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = o.tty
    ? spawn('script', ['-qfec', quoted, '/dev/null'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, argv, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let text = '';
  // Through `script`, the terminal's output (stderr included) comes on its stdout.
  const read = o.tty ? child.stdout : child.stderr;
  if (!read) throw new Error('no output stream');
  read.setEncoding('utf8').on('data', (d: string) => (text += d));
  if (o.tty) child.stderr.resume();
  const serve: Serve = { child, dir, webPort: ports.find((p) => p.name === 'dashboard')!.port, output: () => plain(text) };
  running.push(serve);
  return serve;
}

async function until(test: () => boolean, what: string, serve: Serve, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline || serve.child.exitCode !== null) throw new Error(`no ${what}; output:\n${serve.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ROWS = ['Dashboard', 'Die Siedler von Catan', 'Mäxchen (Mia)', '4 Gewinnt (Connect Four)', 'Dame (Checkers)', 'Ostseeschach (Software-Challenge 2022)'];

/** The lines from the banner's head on (the banner has a head and one row per address). */
function bannerAt(lines: readonly string[]): number {
  return lines.findIndex((l) => l.startsWith('Spielhalle is running (Ctrl-C stops it; records in '));
}

describe('serve logs', () => {
  it.skipIf(!hasScript)('on a terminal: readable lines, and the framed banner with every address after every listening', async () => {
    const serve = await startServe({ tty: true });
    await until(() => /\n─+\n[^]*Spielhalle is running[^]*\n─+\n/.test(serve.output()), 'framed banner', serve);
    // A few seconds of house games after it.
    await new Promise((r) => setTimeout(r, 3000));
    const lines = serve.output().split('\n');
    const head = bannerAt(lines);
    const before = lines.slice(0, head - 1).filter((l) => l.trim() !== '');
    // Readable, not JSON: `[HH:MM:SS] INFO: listening {…}`.
    expect(before.some((l) => l.startsWith('{'))).toBe(false);
    const listening = before.filter((l) => /^\[\d\d:\d\d:\d\d\] INFO: listening /.test(l));
    expect(listening).toHaveLength(6);
    // The banner: a rule, the head, one row per address, a rule; after the last line of the start.
    expect(lines[head - 1]).toMatch(/^─{20,}$/);
    for (const [i, title] of ROWS.entries()) expect(lines[head + 1 + i]).toMatch(new RegExp(`^  ${title.replace(/[()]/g, '\\$&')} +(tcp|udp|http)`));
    expect(lines[head + 1]).toContain(`http://127.0.0.1:${serve.webPort}/`);
    expect(lines[head + 1 + ROWS.length]).toMatch(/^─{20,}$/);
    // Nothing at info after it: the house games play at debug.
    const after = lines.slice(head + 2 + ROWS.length).filter((l) => l.trim() !== '');
    expect(after.filter((l) => /^\[\d\d:\d\d:\d\d\] INFO/.test(l)), after.join('\n')).toEqual([]);
  }, 60_000);

  it('into a pipe: JSON lines as before, the plain banner after them, and no info line while house games play', async () => {
    const serve = await startServe({ tty: false });
    await until(() => serve.output().includes(`\n  Ostseeschach (Software-Challenge 2022) tcp 127.0.0.1:`), 'banner', serve);
    const start = Date.now();
    // House games play: Dame, Ostseeschach and Catan games, Mia rounds, all recorded.
    const records = async (game: string): Promise<{ status: string }[]> =>
      (await (await fetch(`http://127.0.0.1:${serve.webPort}/api/matches?game=${game}&limit=20`)).json()) as { status: string }[];
    const played = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const game of ['catan', 'dame', 'mia', 'ostseeschach']) if ((await records(game)).length > 0) out.push(game);
      return out;
    };
    const ended = async (game: string): Promise<number> => (await records(game)).filter((m) => m.status === 'finished').length;
    let games: string[] = [];
    while (Date.now() - start < 30_000) {
      games = await played();
      if (games.length === 4 && (await ended('ostseeschach')) > 0 && Date.now() - start > 6000) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(games).toEqual(expect.arrayContaining(['catan', 'dame', 'mia', 'ostseeschach']));
    expect(await ended('ostseeschach'), 'an Ostseeschach house game played to its end').toBeGreaterThan(0);
    // Nobody from outside played: every record is a house game's, which retention takes first (issue 37).
    const store = new RecordStore(join(serve.dir, 'spielhalle.db'), { mode: 'read' });
    try {
      const classes = new Map<string, Set<string>>();
      for (const m of store.listMatches({ limit: 500 })) {
        const set = classes.get(m.game) ?? new Set<string>();
        set.add(store.keepOf(m.id)?.keep ?? 'none');
        classes.set(m.game, set);
      }
      expect([...classes.keys()]).toEqual(expect.arrayContaining(['catan', 'dame', 'mia', 'ostseeschach']));
      for (const [game, set] of classes) expect([...set], game).toEqual(['house']);
    } finally {
      store.close();
    }

    const lines = serve.output().split('\n').filter((l) => l !== '');
    const head = bannerAt(lines);
    expect(head).toBeGreaterThan(0);
    // Before the banner: JSON lines only, as tools parse them, six of them `listening`.
    const before = lines.slice(0, head);
    for (const l of before) expect(() => JSON.parse(l) as unknown, l).not.toThrow();
    const entries = before.map((l) => JSON.parse(l) as { level: number; msg: string; time: number });
    expect(entries.filter((e) => e.msg === 'listening')).toHaveLength(6);
    expect(entries.every((e) => typeof e.level === 'number' && typeof e.time === 'number')).toBe(true);
    // The banner as it always was: no rules, the rows right below the head.
    for (const [i, title] of ROWS.entries()) expect(lines[head + 1 + i]!.startsWith(`  ${title} `)).toBe(true);
    // After it, while the house games played: JSON only, and nothing at info (30) or above.
    const after = lines.slice(head + 1 + ROWS.length);
    const parsed = after.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(parsed.filter((e) => e.level >= 30), after.join('\n')).toEqual([]);
  }, 60_000);

  it('takes --log-format pretty into a pipe (and json on a terminal)', async () => {
    const serve = await startServe({ tty: false, args: ['--log-format', 'pretty', '--no-bots', '--no-web', '--game', 'mia'] });
    await until(() => bannerAt(serve.output().split('\n')) > 0 && /\n─+\n$/.test(serve.output()), 'framed banner', serve);
    const lines = serve.output().split('\n').filter((l) => l !== '');
    expect(lines.filter((l) => /^\[\d\d:\d\d:\d\d\] INFO: listening /.test(l))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith('{'))).toBe(false);
    if (!hasScript) return;
    const json = await startServe({ tty: true, args: ['--log-format', 'json', '--no-bots', '--no-web', '--game', 'mia'] });
    await until(() => json.output().includes('\n  Mäxchen (Mia)'), 'banner', json);
    const jl = json.output().split('\n').filter((l) => l !== '');
    const head = bannerAt(jl);
    expect(jl.slice(0, head).filter((l) => /"msg":"listening"/.test(l))).toHaveLength(1);
    for (const l of jl.slice(0, head)) expect(() => JSON.parse(l) as unknown, l).not.toThrow();
  }, 60_000);
});
