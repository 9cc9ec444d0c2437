import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import type { MatchSeat, TournamentArena, TournamentMatchRequest } from '../../../src/core/tournament-match.js';
import { verifyOstseeschachMatch } from '../../../src/games/ostseeschach/replay.js';
import { layoutName, layoutOf } from '../../../src/games/ostseeschach/setup.js';
import { botBudgetMs, ostseeschachStart, ostseeschachTournament } from '../../../src/games/ostseeschach/tournament.js';
import { testLauncher, type TestLauncher } from '../../support/program-launcher.js';

/** Ostseeschach tournament matches through the real server over loopback (docs/ostseeschach.md "Tournaments"). */

const CLI = join(process.cwd(), 'dist', 'cli.js');
const bot = (name: string, botName: string, options: Record<string, unknown> = {}): MatchSeat => ({
  name,
  player: { kind: 'bot', bot: botName, options },
});
const program = (name: string, launcher: TestLauncher): MatchSeat => ({ name, player: { kind: 'program', launch: launcher.launch } });

/** Joins with its reservation, then answers the first move request with bytes that are not XML. */
const GARBAGE = `
const [host, port, code] = process.argv.slice(1);
const s = require('node:net').connect(Number(port), host);
s.write('<protocol><joinPrepared reservationCode="' + code + '"/>');
let seen = '';
s.on('data', (d) => {
  seen += d;
  if (seen.includes('moveRequest')) { seen = ''; s.write('this is <<< not xml'); }
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
  arena = await ostseeschachTournament.open({ store, log: silentLogger });
});
afterAll(async () => {
  await Promise.all(launchers.map((l) => l.stopAll()));
  await arena.close();
  store.close();
});

/** Aborts once the match's record is running (plus 100 ms); resolves with the time of the abort. */
async function abortOnceRunning(id: string, controller: AbortController): Promise<number> {
  const game = 'ostseeschach';
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
  moveTimeMs: 200,
  seats,
  ...extra,
});
const layoutOfRecord = (id: string): string => (store.getMatch(id)?.meta as { layout: string }).layout;

describe('ostseeschach tournament support', () => {
  it('checks bot names and options, and gives each seed one layout', () => {
    expect(ostseeschachTournament.bots.map((b) => b.name)).toEqual(['random', 'depth2', 'engine']);
    expect(ostseeschachTournament.checkBot('engine', { timeMs: 500, seed: 'x' })).toEqual([]);
    expect(ostseeschachTournament.checkBot('greedy', {})[0]).toMatch(/unknown Ostseeschach bot "greedy"/);
    expect(ostseeschachTournament.checkBot('random', { depth: 3 })[0]).toMatch(/options.depth: unknown option for bot:random/);
    expect(botBudgetMs(2000)).toBe(1700);
    const layout = (seed: number): string => layoutName(layoutOf(ostseeschachStart(seed)) ?? []);
    expect(layout(5)).toBe(layout(5));
    expect(new Set([1, 2, 3, 4, 5, 6].map(layout)).size).toBeGreaterThan(3);
  });

  it('plays bot against bot to the end with the seeded layout, recorded under the entrant names', async () => {
    const first = await arena.play(request([bot('anna', 'depth2'), bot('bert', 'random')], { seed: 21 }));
    expect(first.aborted).toBeUndefined();
    expect(first.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    expect(first.seats.map((s) => s.outcome).sort().join()).toMatch(/^(draw,draw|loss,win)$/);
    expect(first.seats.map((s) => s.points).sort().join()).toMatch(/^(1,1|0,2)$/);
    expect(first.reason).toMatch(/^REGULAR: /);
    expect(first.records).toHaveLength(1);
    const record = store.getMatch(first.records[0]!);
    expect(record?.status).toBe('finished');
    expect(record?.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    expect(record?.seed).toBe('21');
    expect((record?.meta as { tournamentMatch: string }).tournamentMatch).toBe(`t/${n}`);
    expect(layoutOfRecord(first.records[0]!)).toBe(layoutName(layoutOf(ostseeschachStart(21)) ?? []));
    // `replay` checks it from the seeded layout on.
    expect(verifyOstseeschachMatch(record!)).toEqual({ checked: true, problems: [] });
    // The seed replayed with the seats swapped starts from the same layout.
    const swapped = await arena.play(request([bot('bert', 'random'), bot('anna', 'depth2')], { seed: 21 }));
    expect(layoutOfRecord(swapped.records[0]!)).toBe(layoutOfRecord(first.records[0]!));
    expect(store.getMatch(swapped.records[0]!)?.seats.map((s) => s.name)).toEqual(['bert', 'anna']);
  });

  it('plays a whole match against the built CLI as a program seat, and runs the engine in a thread', async () => {
    const cli = launcher(['node', CLI, 'bot', 'ostseeschach', '-h', '{host}', '-p', '{port}', '-r', '{reservation}', '--bot', 'random', '--time-ms', '50']);
    const outcome = await arena.play(request([bot('engine', 'engine', { timeMs: 60 }), program('cli', cli)], { seed: 3, moveTimeMs: 300 }));
    expect(outcome.seats[1], cli.output.join('\n')).toMatchObject({ name: 'cli' });
    expect(outcome.seats[1]?.crashed).toBeUndefined();
    expect(outcome.seats.every((s) => s.timedOut === undefined)).toBe(true);
    expect(outcome.reason).toMatch(/^REGULAR: /);
    expect(outcome.records).toHaveLength(1);
    expect((await cli.runs[0]!.exited).code, cli.output.join('\n')).toBe(0);
    expect(cli.output[0]).toMatch(/"points":[012]/);
  });

  it('a program that exits at once loses with crashed; the other seat wins the cancelled room', async () => {
    const dead = launcher(['node', '-e', 'process.exit(3)']);
    const outcome = await arena.play(request([program('dead', dead), bot('random', 'random')]));
    expect(outcome.seats[0]).toMatchObject({ name: 'dead', outcome: 'loss', crashed: true, points: 0 });
    expect(outcome.seats[0]?.note).toMatch(/exited with code 3 before the game started/);
    expect(outcome.seats[1]).toMatchObject({ name: 'random', outcome: 'win', points: 2 });
    expect(outcome.reason).toMatch(/^LEFT: dead .*NOT_CONNECTED/);
  });

  it('a program that never connects loses within connectTimeoutMs; if both fail, both lose', async () => {
    const idle = launcher(['sleep', '30']);
    const started = Date.now();
    const outcome = await arena.play(request([bot('random', 'random'), program('sleepy', idle)], { connectTimeoutMs: 800 }));
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

  it('a program that sends garbage loses by the rules (LEFT: PROTOCOL_ERROR)', async () => {
    const garbage = launcher(['node', '-e', GARBAGE, '{host}', '{port}', '{reservation}']);
    const outcome = await arena.play(request([program('noisy', garbage), bot('random', 'random')]));
    expect(outcome.seats[0]).toMatchObject({ name: 'noisy', outcome: 'loss', points: 0 });
    expect(outcome.seats[0]?.note).toMatch(/PROTOCOL_ERROR$/);
    expect(outcome.seats[0]?.crashed).toBeUndefined();
    expect(outcome.seats[1]).toMatchObject({ outcome: 'win', points: 2 });
    expect(store.getMatch(outcome.records[0]!)?.seats.map((s) => s.name)).toEqual(['noisy', 'random']);
  });

  it('a bot too slow for the move time loses with timedOut', async () => {
    const slow = launcher(['node', CLI, 'bot', 'ostseeschach', '-h', '{host}', '-p', '{port}', '-r', '{reservation}', '--bot', 'engine', '--time-ms', '400']);
    const outcome = await arena.play(request([program('slow', slow), bot('random', 'random')], { moveTimeMs: 100 }));
    expect(outcome.seats[0]).toMatchObject({ name: 'slow', timedOut: true });
    expect(outcome.seats[1]).toMatchObject({ outcome: 'win', points: 2 });
    expect(outcome.reason).toMatch(/^SOFT_TIMEOUT: slow/);
  });

  it('runs two matches at once on one arena without mixing them up', async () => {
    const [a, b] = await Promise.all([
      arena.play(request([bot('a1', 'random'), bot('a2', 'depth2')], { seed: 1 })),
      arena.play(request([bot('b1', 'depth2'), bot('b2', 'random')], { seed: 2 })),
    ]);
    expect(a.records[0]).not.toBe(b.records[0]);
    expect(store.getMatch(a.records[0]!)?.seats.map((s) => s.name)).toEqual(['a1', 'a2']);
    expect(store.getMatch(b.records[0]!)?.seats.map((s) => s.name)).toEqual(['b1', 'b2']);
    expect(layoutOfRecord(b.records[0]!)).toBe(layoutName(layoutOf(ostseeschachStart(2)) ?? []));
  });

  it('ends the match at once when aborted, before and during the game', async () => {
    const idle = launcher(['sleep', '30']);
    const early = new AbortController();
    setTimeout(() => early.abort(), 200);
    const waiting = await arena.play(request([bot('random', 'random'), program('sleepy', idle)], { signal: early.signal }));
    expect(waiting.aborted).toBe(true);
    expect(idle.runs[0]?.done).toBe(true);

    const late = new AbortController();
    const match = request([bot('engine', 'engine'), bot('random', 'random')], { moveTimeMs: 2000, signal: late.signal });
    const playing = arena.play(match);
    const started = await abortOnceRunning(match.id, late);
    const running = await playing;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(running.aborted).toBe(true);
    expect(running.records).toHaveLength(1);
    expect(store.getMatch(running.records[0]!)?.status).toBe('aborted');
  });
});
