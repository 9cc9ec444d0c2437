import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import type { MatchSeat, TournamentArena, TournamentMatchRequest } from '../../../src/core/tournament-match.js';
import { boardLines } from '../../../src/games/dame/notation.js';
import { verifyDameMatch } from '../../../src/games/dame/replay.js';
import { initialState } from '../../../src/games/dame/rules.js';
import { dameOpening, dameTournament, OPENING_PLIES } from '../../../src/games/dame/tournament.js';
import { testLauncher, type TestLauncher } from '../../support/program-launcher.js';

/** Dame tournament matches through the real server over loopback (docs/dame.md "Tournaments"). */

const CLI = join(process.cwd(), 'dist', 'cli.js');
const bot = (name: string, botName: string, options: Record<string, unknown> = {}): MatchSeat => ({
  name,
  player: { kind: 'bot', bot: botName, options },
});
const program = (name: string, launcher: TestLauncher): MatchSeat => ({ name, player: { kind: 'program', launch: launcher.launch } });

/** Joins its seat, then answers its first move request with garbage. */
const GARBAGE = `
const [host, port, gameId, player] = process.argv.slice(1);
const s = require('node:net').connect(Number(port), host);
let buf = '';
s.on('data', (d) => {
  buf += d; const lines = buf.split('\\n'); buf = lines.pop();
  for (const l of lines) {
    if (l.startsWith('+ MNM Gameserver')) s.write('VERSION 2.0\\n');
    else if (l.startsWith('+ Client version accepted')) s.write('ID ' + gameId + '\\n');
    else if (l.startsWith('+ PLAYING')) s.write('PLAYER ' + (Number(player) - 1) + '\\n');
    else if (l === '+ WAIT') s.write('OKWAIT\\n');
    else if (l === '+ ENDBOARD') s.write('HELLO THERE\\n');
  }
});
s.on('close', () => process.exit(0));
`;

let store: RecordStore;
let arena: TournamentArena;
const launchers: TestLauncher[] = [];
const launcher = (argv: string[]): TestLauncher => {
  const l = testLauncher(argv);
  launchers.push(l);
  return l;
};

beforeAll(async () => {
  store = new RecordStore(':memory:');
  arena = await dameTournament.open({ store, log: silentLogger });
});
afterAll(async () => {
  await Promise.all(launchers.map((l) => l.stopAll()));
  await arena.close();
  store.close();
});

/** Aborts once the match's record is running (plus 100 ms); resolves with the time of the abort. */
async function abortOnceRunning(id: string, controller: AbortController): Promise<number> {
  const game = 'dame';
  for (let i = 0; i < 500; i++) {
    const running = store.listMatches({ game, status: 'running' }).some((m) => (m.meta as { tournamentMatch?: string } | null)?.tournamentMatch === id);
    if (running) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  controller.abort();
  return Date.now();
}

let n = 0;
const request = (seats: MatchSeat[], extra: Partial<TournamentMatchRequest> = {}): TournamentMatchRequest => ({
  id: `t/${++n}`,
  seed: 7,
  moveTimeMs: 150,
  seats,
  ...extra,
});

describe('dame tournament support', () => {
  it('checks bot names and options', () => {
    expect(dameTournament.bots.map((b) => b.name)).toEqual(['random', 'greedy', 'depth2', 'depth4', 'engine']);
    expect(dameTournament.checkBot('engine', { timeMs: 500, seed: 3 })).toEqual([]);
    expect(dameTournament.checkBot('greedy', {})).toEqual([]);
    expect(dameTournament.checkBot('alphazero', {})[0]).toMatch(/unknown Dame bot "alphazero"/);
    expect(dameTournament.checkBot('greedy', { timeMs: 5 })[0]).toMatch(/options.timeMs: unknown option for bot:greedy/);
    expect(dameTournament.checkBot('engine', { timeMs: -1 })[0]).toMatch(/whole number of ms/);
  });

  it('gives each seed one opening, White to move', () => {
    const a = dameOpening(11);
    expect(boardLines(a)).toEqual(boardLines(dameOpening(11)));
    expect(boardLines(a)).not.toEqual(boardLines(initialState()));
    expect(a.toMove).toBe('white');
    const pieces = (s: typeof a): number => (s.white.toString(2).match(/1/g) ?? []).length + (s.black.toString(2).match(/1/g) ?? []).length;
    expect(pieces(a)).toBeLessThanOrEqual(24);
    expect(OPENING_PLIES % 2).toBe(0);
    const seeds = new Set([1, 2, 3, 4, 5, 6].map((s) => boardLines(dameOpening(s)).join('/')));
    expect(seeds.size).toBeGreaterThan(3);
  });

  it('plays bot against bot to the end and records it under the entrant names, the seed and the opening', async () => {
    const first = await arena.play(request([bot('anna', 'greedy'), bot('bert', 'random')], { seed: 21 }));
    expect(first.aborted).toBeUndefined();
    expect(first.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    expect(first.seats.map((s) => s.outcome).sort()).toSatisfy((o: string[]) => o.join() === 'draw,draw' || o.join() === 'loss,win');
    expect(first.records).toHaveLength(1);
    const record = store.getMatch(first.records[0]!);
    expect(record?.status).toBe('finished');
    expect(record?.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    expect(record?.seed).toBe('21');
    const meta = record?.meta as { board: string[]; tournamentMatch: string };
    expect(meta.board).toEqual(boardLines(dameOpening(21)));
    expect(meta.tournamentMatch).toBe(`t/${n}`);
    // `replay` checks it from the opening on.
    expect(verifyDameMatch(record!)).toEqual({ checked: true, problems: [] });
    // The seed replayed with the seats swapped starts from the same position.
    const swapped = await arena.play(request([bot('bert', 'random'), bot('anna', 'greedy')], { seed: 21 }));
    const again = store.getMatch(swapped.records[0]!);
    expect((again?.meta as { board: string[] }).board).toEqual(meta.board);
    expect(again?.seats.map((s) => s.name)).toEqual(['bert', 'anna']);
  });

  it('plays a whole match against the built CLI as a program seat', async () => {
    const cli = launcher(['node', CLI, 'bot', 'dame', '--host', '{host}', '--port', '{port}', '-g', '{gameId}', '-p', '{player}', '--bot', 'greedy']);
    const outcome = await arena.play(request([bot('random', 'random'), program('cli', cli)], { seed: 3, moveTimeMs: 400 }));
    expect(outcome.seats[1], cli.output.join('\n')).toMatchObject({ name: 'cli' });
    expect(outcome.seats[1]?.crashed).toBeUndefined();
    expect(outcome.seats[1]?.timedOut).toBeUndefined();
    expect(outcome.records).toHaveLength(1);
    const run = cli.runs[0]!;
    expect((await run.exited).code, cli.output.join('\n')).toBe(0);
    expect(cli.output[0]).toMatch(/"outcome":"(won|lost|draw)"/);
  });

  it('a program that exits at once loses with crashed', async () => {
    const dead = launcher(['node', '-e', 'process.exit(3)']);
    const outcome = await arena.play(request([program('dead', dead), bot('greedy', 'greedy')]));
    expect(outcome.seats[0]).toMatchObject({ name: 'dead', outcome: 'loss', crashed: true });
    expect(outcome.seats[0]?.note).toMatch(/exited with code 3 before the game started/);
    expect(outcome.seats[1]).toMatchObject({ name: 'greedy', outcome: 'win' });
    expect(outcome.records).toEqual([]);
  });

  it('a program that never connects loses within connectTimeoutMs; if both fail, both lose', async () => {
    const idle = launcher(['sleep', '30']);
    const started = Date.now();
    const outcome = await arena.play(request([bot('greedy', 'greedy'), program('sleepy', idle)], { connectTimeoutMs: 800 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.seats[1]).toMatchObject({ name: 'sleepy', outcome: 'loss', crashed: true, note: 'never connected within 800 ms' });
    expect(outcome.seats[0]).toMatchObject({ outcome: 'win' });
    expect(idle.runs[0]?.done).toBe(true);

    const dead = launcher(['node', '-e', 'process.exit(1)']);
    const both = await arena.play(request([program('a', dead), program('b', idle)], { connectTimeoutMs: 800 }));
    expect(both.seats.map((s) => [s.outcome, s.crashed])).toEqual([
      ['loss', true],
      ['loss', true],
    ]);
  });

  it('a program that sends garbage loses by the rules', async () => {
    const garbage = launcher(['node', '-e', GARBAGE, '{host}', '{port}', '{gameId}', '{player}']);
    const outcome = await arena.play(request([program('noisy', garbage), bot('greedy', 'greedy')]));
    expect(outcome.seats[0]).toMatchObject({ name: 'noisy', outcome: 'loss' });
    expect(outcome.seats[0]?.note).toMatch(/^protocol-error: HELLO THERE/);
    expect(outcome.seats[0]?.crashed).toBeUndefined();
    expect(outcome.reason).toBe('protocol-error: HELLO THERE: noisy loses');
    expect(store.getMatch(outcome.records[0]!)?.seats.map((s) => s.name)).toEqual(['noisy', 'greedy']);
  });

  it('runs two matches at once on one arena without mixing them up', async () => {
    const [a, b] = await Promise.all([
      arena.play(request([bot('a1', 'greedy'), bot('a2', 'depth2')], { seed: 1 })),
      arena.play(request([bot('b1', 'random'), bot('b2', 'greedy')], { seed: 2 })),
    ]);
    expect(a.records).toHaveLength(1);
    expect(b.records).toHaveLength(1);
    expect(a.records[0]).not.toBe(b.records[0]);
    expect(store.getMatch(a.records[0]!)?.seats.map((s) => s.name)).toEqual(['a1', 'a2']);
    expect(store.getMatch(b.records[0]!)?.seats.map((s) => s.name)).toEqual(['b1', 'b2']);
    expect(store.getMatch(b.records[0]!)?.seed).toBe('2');
  });

  it('ends the match at once when aborted, before and during the game', async () => {
    const idle = launcher(['sleep', '30']);
    const early = new AbortController();
    setTimeout(() => early.abort(), 200);
    const waiting = await arena.play(request([bot('greedy', 'greedy'), program('sleepy', idle)], { signal: early.signal }));
    expect(waiting.aborted).toBe(true);
    expect(idle.runs[0]?.done).toBe(true);

    const late = new AbortController();
    const match = request([bot('engine', 'engine', { timeMs: 1500 }), bot('random', 'random')], { moveTimeMs: 2000, signal: late.signal });
    const playing = arena.play(match);
    const started = await abortOnceRunning(match.id, late);
    const running = await playing;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(running.aborted).toBe(true);
    expect(running.records).toHaveLength(1);
    expect(store.getMatch(running.records[0]!)?.status).toBe('aborted');
  });
});
