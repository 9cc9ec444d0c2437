import { Socket as DgramSocket } from 'node:dgram';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main, summarizeMatch, uncheckedWhy } from '../../src/cli-program.js';
import { createLogger } from '../../src/core/log.js';
import { parsePortRange, setDefaultPortRange, type PortRange } from '../../src/core/ports.js';
import type { MatchRecord, TournamentRecord } from '../../src/core/record-types.js';
import { RecordStore } from '../../src/core/records.js';
import { GAMES } from '../../src/games/registry.js';
import { useTournamentGames } from '../../src/tournament/cli.js';
import { createTournament, runTournament } from '../../src/tournament/coordinator.js';
import { formatError, formatWarning, parseTournament } from '../../src/tournament/file.js';
import { preflight, SMOKE_MS, smokeWindow } from '../../src/tournament/preflight.js';
import { formatStatus } from '../../src/tournament/report.js';

/**
 * Issue #33, tutor items 1, 2, 7, 8, 9: the preflight of entrants (`tournament check`, `run`
 * refusing with every bad entrant), the file's errors in one pass, the status and replay wording,
 * Mia's rounds hint, and port ranges for tournaments and check-client.
 */

const work = mkdtempSync(join(tmpdir(), 'spielhalle-preflight-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => useTournamentGames(GAMES));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    const code = await main(['node', 'spielhalle', ...args]);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}

describe('the preflight of entrants (item 1)', () => {
  it('`tournament check` and `run` refuse with exit 2, naming every bad entrant and why, before anything is recorded', async () => {
    useTournamentGames(GAMES);
    const dir = join(work, 'check');
    mkdirSync(dir);
    // A client that cannot start: what `java -jar missing.jar` does, without a JVM.
    writeFileSync(join(dir, 'quits.sh'), '#!/bin/sh\necho "Error: Unable to access jarfile client.jar" >&2\nexit 1\n');
    chmodSync(join(dir, 'quits.sh'), 0o755);
    writeFileSync(join(dir, 'waits.sh'), '#!/bin/sh\nexec sleep 30\n');
    chmodSync(join(dir, 'waits.sh'), 0o755);
    writeFileSync(join(dir, 'plain.txt'), 'not a program');
    const file = join(dir, 't.yaml');
    writeFileSync(
      file,
      `name: Check
game: dame
format: round-robin
entrants:
  - { name: good, bot: random }
  - { name: nosuch, command: "/does/not/exist -h {host} -p {port}" }
  - { name: nocwd, command: "./waits.sh {host} {port}", cwd: ./missing-dir }
  - { name: quits, command: "./quits.sh {host} {port} {gameId} {player}", cwd: . }
  - { name: notexec, command: "./plain.txt", cwd: . }
  - { name: badbot, bot: engin }
  - { name: waits, command: "./waits.sh {host} {port}", cwd: . }
`,
    );
    const data = join(dir, 'data');
    const check = await cli('--data-dir', data, 'tournament', 'check', file);
    expect(check.code, check.err).toBe(2);
    const lines = check.err.trim().split('\n');
    expect(lines).toEqual([
      'entrant nosuch: no such program: /does/not/exist',
      `entrant nocwd: no such directory (cwd): ${join(dir, 'missing-dir')}`,
      expect.stringMatching(/^entrant quits: exited with code 1 within \d+\.\d s of its start without connecting: Error: Unable to access jarfile client\.jar$/) as unknown,
      `entrant notexec: not executable: ${join(dir, 'plain.txt')}`,
      expect.stringMatching(/^entrant badbot: unknown Dame bot "engin"/) as unknown,
      `spielhalle: ${file}: 5 entrants cannot play, the tournament cannot run`,
    ]);
    const run = await cli('--data-dir', data, 'tournament', 'run', file);
    expect(run.code).toBe(2);
    expect(run.err).toContain('entrant nosuch: no such program: /does/not/exist');
    expect(run.err).toContain('5 entrants cannot play, nothing started');
    // Nothing played, nothing recorded.
    expect(existsSync(join(data, 'spielhalle.db'))).toBe(false);
  }, 30_000);

  it('passes a program that starts (our own client reaches the silent server) and one still running after the window', async () => {
    const dir = join(work, 'ok');
    mkdirSync(dir);
    writeFileSync(join(dir, 'waits.sh'), '#!/bin/sh\nexec sleep 30\n');
    chmodSync(join(dir, 'waits.sh'), 0o755);
    const text = `name: Ok
game: mia
format: tables
rounds: 1
gamesPerTable: 1
isolation: none
entrants:
  - { name: rnd, bot: random }
  - { name: ours, command: "${process.execPath} ${join(process.cwd(), 'node_modules', 'tsx', 'dist', 'cli.mjs')} ${join(process.cwd(), 'src', 'cli.ts')} bot mia --host {host} --port {port} --name {name}" }
  - { name: waits, command: "./waits.sh {host} {port}", cwd: ${dir} }
`;
    const parsed = parseTournament(text);
    if (!parsed.ok) throw new Error(parsed.errors.map(formatError).join('\n'));
    const started = Date.now();
    expect(await preflight(parsed.spec, { games: GAMES, smokeMs: 1500 })).toEqual([]);
    // Both were watched at once, and stopped: no minutes of waiting.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  it('gives a program the placeholders in the shapes a real match gives (a client that checks them does not exit)', async () => {
    const dir = join(work, 'shapes');
    mkdirSync(dir);
    // Exits at once, as `bot dame -g preflight` did, unless the game id is an MNM id (Dame) or the
    // reservation a UUID (Ostseeschach).
    writeFileSync(
      join(dir, 'checks.sh'),
      '#!/bin/sh\ncase "$1" in\n' +
        '  id) echo "$2" | grep -Eq "^[A-Za-z0-9]{13}$" || { echo "bad game id $2" >&2; exit 2; } ;;\n' +
        '  uuid) echo "$2" | grep -Eiq "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$" || { echo "bad reservation $2" >&2; exit 2; } ;;\n' +
        'esac\nexec sleep 30\n',
    );
    chmodSync(join(dir, 'checks.sh'), 0o755);
    for (const [game, kind, placeholder] of [
      ['dame', 'id', '{gameId}'],
      ['ostseeschach', 'uuid', '{reservation}'],
    ] as const) {
      const text = `name: Shapes
game: ${game}
format: round-robin
isolation: none
entrants:
  - { name: rnd, bot: random }
  - { name: checks, command: "./checks.sh ${kind} ${placeholder} {host} {port}", cwd: ${dir} }
`;
      const parsed = parseTournament(text);
      if (!parsed.ok) throw new Error(parsed.errors.map(formatError).join('\n'));
      expect(await preflight(parsed.spec, { games: GAMES, smokeMs: 1500 }), game).toEqual([]);
    }
  }, 30_000);
});

describe('tournament-file errors in one pass (item 2) and the Mia hint (item 8)', () => {
  it('reports a missing key in words together with the value errors it used to hide', () => {
    const r = parseTournament('name: x\nformat: round-robin\ngamesPerPairing: 3\nmoveTime: -1\nentrants:\n  - { name: a, bot: random }\n  - { name: a, bot: random }\n', { file: 't.yaml' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map(formatError)).toEqual([
      't.yaml:1:1: missing key "game"',
      't.yaml:3:18: gamesPerPairing: must be even: every seed is played from both sides',
      't.yaml:4:11: moveTime: must be above 0 (got -1)',
      't.yaml:7:13: entrants[1].name: duplicate name a (also entrants[0])',
    ]);
  });

  it('reports a wrongly indented line at its own line, with the value errors of the rest', () => {
    const text = `name: x
game: dame
format: round-robin
entrants:
  - name: a
    bot: random
  - name: b
    bot: random
      options: {}
gamesPerPairing: 3
`;
    const r = parseTournament(text, { file: 't.yaml' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map(formatError)).toEqual([
      't.yaml:9:7: wrong indentation: this line is indented deeper than the line above it',
      't.yaml:10:18: gamesPerPairing: must be even: every seed is played from both sides',
    ]);
  });

  it('gives a Mia file with rounds but no gamesPerTable a hint, and runs it', () => {
    const mia = (extra: string) => `name: m\ngame: mia\nformat: tables\n${extra}entrants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\n`;
    const r = parseTournament(mia('rounds: 20\n'), { file: 'm.yaml' });
    expect(r.ok).toBe(true);
    expect(r.warnings.map(formatWarning)).toEqual([
      'm.yaml:4:9: warning: rounds: rounds: 20 means 20 tournament rounds (each a round of tables); the rounds of Mäxchen each table plays are gamesPerTable (default 20). If you meant those, write gamesPerTable: 20 instead; writing both keys silences this hint',
    ]);
    expect(parseTournament(mia('rounds: 20\ngamesPerTable: 5\n')).warnings).toEqual([]);
    expect(parseTournament(mia('gamesPerTable: 20\n')).warnings).toEqual([]);
  });
});

describe('status and replay wording (item 7)', () => {
  it('never repeats a status as its own reason, and says why a cut-off record is not checked', () => {
    const t = { id: 't-1', name: 'n', game: 'dame', format: 'round-robin', status: 'stopped', note: 'stopped', done: 1, total: 2, createdAt: 0, updatedAt: 0, finishedAt: null } as unknown as TournamentRecord;
    expect(formatStatus(t, [], null)).toContain('status:   stopped\n');
    expect(formatStatus({ ...t, status: 'failed', note: 'match 1-1 failed 3 times' }, [], null)).toContain('status:   failed (match 1-1 failed 3 times)\n');
    const aborted = { id: 'm', game: 'dame', status: 'aborted', result: { reason: 'aborted' }, seats: [], startedAt: 0 } as unknown as MatchRecord;
    expect(summarizeMatch(aborted).result).toBe('aborted');
    expect(uncheckedWhy(aborted)).toBe('not possible: the match is aborted (cut off before its end), and only a finished game is replayed to its recorded end');
  });

  it('names --database and database.url when the store is not found', async () => {
    const r = await cli('--data-dir', join(work, 'nothing-here'), 'tournament', 'status', 't-x');
    expect(r.code).toBe(2);
    expect(r.err).toContain(`no record store at ${join(work, 'nothing-here', 'spielhalle.db')}`);
    expect(r.err).toContain('tournament --database postgres://');
    expect(r.err).toContain('database.url');
  });
});

/** Every port a TCP server or UDP socket of this process listened on while `body` ran (and who bound it). */
async function boundPorts(body: () => Promise<void>): Promise<{ port: number; stack: string }[]> {
  const seen: { port: number; stack: string }[] = [];
  const listen = Server.prototype.listen;
  const bind = DgramSocket.prototype.bind;
  const note = (emitter: Server | DgramSocket, stack: string) => {
    emitter.once('listening', () => {
      const a = emitter.address();
      if (typeof a === 'object' && a !== null) seen.push({ port: a.port, stack });
    });
  };
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    note(this, new Error().stack ?? '');
    return (listen as (...a: unknown[]) => Server).apply(this, args);
  } as typeof listen;
  DgramSocket.prototype.bind = function (this: DgramSocket, ...args: unknown[]) {
    note(this, new Error().stack ?? '');
    return (bind as (...a: unknown[]) => DgramSocket).apply(this, args);
  };
  try {
    await body();
  } finally {
    Server.prototype.listen = listen;
    DgramSocket.prototype.bind = bind;
  }
  return seen;
}

describe('port ranges for firewalled labs (item 9)', () => {
  const base = 41000 + Math.floor(Math.random() * 500) * 20;
  const range = parsePortRange(`${base}-${base + 19}`) as PortRange;

  it('watches longer on a loaded machine: 1 s times the load per core, from 1 to 5 s', () => {
    expect(smokeWindow(0, 2)).toBe(SMOKE_MS);
    expect(smokeWindow(2, 2)).toBe(SMOKE_MS);
    expect(smokeWindow(6, 2)).toBe(3 * SMOKE_MS);
    expect(smokeWindow(100, 2)).toBe(5 * SMOKE_MS);
    expect(smokeWindow(3, 0)).toBe(3 * SMOKE_MS);
  });

  it('parses ranges and says what is wrong', () => {
    expect(parsePortRange('20000-20999')).toEqual({ from: 20000, to: 20999 });
    expect(parsePortRange('20000')).toEqual({ from: 20000, to: 20000 });
    expect(parsePortRange('2-1')).toMatch(/ends below its start/);
    expect(parsePortRange('abc')).toMatch(/must be a range of ports/);
    expect(parseTournament('name: x\ngame: dame\nformat: round-robin\nports: 9-x\nentrants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\n').ok).toBe(false);
  });

  it('a tournament in Dame, Connect Four and Mia listens only on ports of its range', async () => {
    for (const game of ['dame', 'connect4', 'mia'] as const) {
      const format = game === 'mia' ? 'tables' : 'round-robin';
      const bots = game === 'connect4' ? ['easy', 'easy'] : ['random', 'random'];
      const text = `name: ports-${game}\ngame: ${game}\nformat: ${format}\nmoveTime: 0.05\nparallel: 2\nports: "${range.from}-${range.to}"\n${game === 'mia' ? 'rounds: 1\ngamesPerTable: 2\n' : ''}entrants:\n${bots.map((b, i) => `  - { name: e${i}, bot: ${b} }`).join('\n')}\n`;
      const parsed = parseTournament(text);
      if (!parsed.ok) throw new Error(parsed.errors.map(formatError).join('\n'));
      expect(parsed.spec.ports).toEqual(range);
      const store = new RecordStore(':memory:');
      const dir = mkdtempSync(join(work, `ports-${game}-`));
      let outcome = '';
      const ports = await boundPorts(async () => {
        const id = await createTournament(store, parsed.spec, text);
        outcome = await runTournament(store, id, { log: createLogger({ level: 'silent' }), workDir: dir, games: GAMES });
      });
      store.close();
      expect(outcome, game).toBe('finished');
      // Mia's bots are clients: their sockets take what the system gives, as any client's.
      const listening = ports.filter((p) => !p.stack.includes('mia/client'));
      expect(listening.length, game).toBeGreaterThan(0);
      expect(listening.filter((p) => p.port < range.from || p.port > range.to).map((p) => p.port), game).toEqual([]);
    }
  }, 60_000);

  it('check-client --ports puts its scripted server in the range', async () => {
    let result = { code: -1, out: '', err: '' };
    const ports = await boundPorts(async () => {
      result = await cli('check-client', 'dame', '--ports', `${range.from}-${range.to}`, '--scenario', 'full-game', '--', process.execPath, join(process.cwd(), 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(process.cwd(), 'src', 'cli.ts'), 'bot', 'dame', '--host', '{host}', '--port', '{port}', '-g', '{gameId}', '-p', '{player}', '--bot', 'random');
    });
    expect(result.code, result.out + result.err).toBe(0);
    expect(ports.length).toBeGreaterThan(0);
    expect(ports.filter((p) => p.port < range.from || p.port > range.to)).toEqual([]);
    setDefaultPortRange(null);
    const bad = await cli('check-client', 'dame', '--ports', 'x', '--', 'true');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--ports must be a range of ports');
  }, 60_000);
});
