import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import type { MatchSeat, ProgramLauncher, TournamentArena } from '../../../src/core/tournament-match.js';
import { connect4 } from '../../../src/games/connect4/index.js';
import { connect4Tournament } from '../../../src/games/connect4/tournament.js';
import { testLauncher, type TestLauncher } from '../../support/program-launcher.js';

const CLI = ['node', 'dist/cli.js', 'bot', 'connect4', '--port', '{port}', '--invite', '{invite}', '--once', '--level', 'easy', '--seed', 'cli'];
const bot = (name: string, level = 'strong'): MatchSeat => ({ name, player: { kind: 'bot', bot: level, options: {} } });
const program = (name: string, launch: ProgramLauncher): MatchSeat => ({ name, player: { kind: 'program', launch } });

/** Accepts the referee's invitation, then sends garbage and a move out of turn. */
const CHEAT = `
const s = require('dgram').createSocket('udp4');
s.on('message', (m, r) => {
  let j; try { j = JSON.parse(m) } catch { return }
  if (j.stage !== 2 || typeof j.clientname !== 'string') return;
  s.send('{"version":2,"clienttype":0,"stage":2}', r.port, r.address);
  s.send('garbage!', r.port, r.address);
  setTimeout(() => s.send('{"version":2,"clienttype":0,"stage":4,"turn":0,"column":4}', r.port, r.address), 50);
});
s.bind(+process.argv[1], '127.0.0.1');
`;

describe('Connect Four tournament referee', () => {
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
    arena = await connect4Tournament.open({ store, log: silentLogger });
  });
  afterAll(async () => {
    await Promise.all(launchers.map((l) => l.stopAll()));
    await arena.close();
    store.close();
  });

  it('checks bot names and options', () => {
    expect(connect4Tournament.bots.map((b) => b.name)).toEqual(['perfect', 'strong', 'easy']);
    expect(connect4Tournament.checkBot('strong', { seed: 'x' })).toEqual([]);
    expect(connect4Tournament.checkBot('grandmaster', { depth: 3 })).toHaveLength(2);
  });

  it('referees two real CLI programs over UDP, seat 0 first, and records the game under the entrant names', async () => {
    const a = launcher(CLI);
    const b = launcher(CLI);
    const outcome = await arena.play({ id: 't/0', seed: 1, moveTimeMs: 200, connectTimeoutMs: 20_000, seats: [program('anna', a.launch), program('bert', b.launch)] });
    expect(outcome.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    expect(outcome.seats.some((s) => s.crashed === true), JSON.stringify(outcome) + a.output.join('') + b.output.join('')).toBe(false);
    const detail = store.getMatch(outcome.records[0] as string);
    expect(detail?.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    expect(detail?.meta).toMatchObject({ tournamentMatch: 't/0' });
    const result = detail?.result as { outcome: string; winner: number | null; moves: string; reason: string };
    expect(['four', 'board-full']).toContain(result.reason);
    const [first, second] = outcome.seats;
    if (result.winner === null) expect([first?.outcome, second?.outcome]).toEqual(['draw', 'draw']);
    else expect(outcome.seats[result.winner]?.outcome).toBe('win');
    // Seat 0 moved first: the wire shows anna's first move (turn 0) reaching her referee peer.
    expect(detail?.wire.some((w) => w.dir === 'in' && w.conn === detail.seats[0]?.address && /"stage":4/.test(w.data) && /"turn":0/.test(w.data))).toBe(true);
    expect(connect4.verify?.(detail as NonNullable<typeof detail>)).toEqual({ checked: true, problems: [] });
    // Both programs exit by themselves (code 0) after the game.
    expect(await a.runs[0]?.exited).toEqual({ code: 0, signal: null });
    expect(await b.runs[0]?.exited).toEqual({ code: 0, signal: null });
  });

  it('lets a program that exits, one that never connects and one that cheats lose', async () => {
    const exits = launcher(['node', '-e', 'process.exit(3)']);
    const sleeps = launcher(['sleep', '30']);
    const cheat = launcher(['node', '-e', CHEAT, '{port}']);
    const started = Date.now();
    const [crashed, silent, cheated] = await Promise.all([
      arena.play({ id: 't/1', seed: 2, moveTimeMs: 100, connectTimeoutMs: 1000, seats: [bot('anna', 'easy'), program('exits', exits.launch)] }),
      arena.play({ id: 't/2', seed: 3, moveTimeMs: 100, connectTimeoutMs: 1000, seats: [program('sleepy', sleeps.launch), bot('bert', 'easy')] }),
      arena.play({ id: 't/3', seed: 4, moveTimeMs: 100, connectTimeoutMs: 10_000, seats: [bot('cleo', 'easy'), program('cheat', cheat.launch)] }),
    ]);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(crashed.seats).toMatchObject([{ name: 'anna', outcome: 'win' }, { name: 'exits', outcome: 'loss', crashed: true }]);
    expect(crashed.seats[1]?.note).toMatch(/exited with code 3/);
    expect(silent.seats).toMatchObject([{ name: 'sleepy', outcome: 'loss', crashed: true }, { name: 'bert', outcome: 'win' }]);
    expect(silent.seats[0]?.note).toMatch(/never invited the referee within 1 s/);
    expect(cheated.seats).toMatchObject([{ name: 'cleo', outcome: 'win' }, { name: 'cheat', outcome: 'loss' }]);
    expect(cheated.seats[1]?.note).toMatch(/illegal move/);
    expect(store.getMatch(cheated.records[0] as string)?.result).toMatchObject({ outcome: 'won', winner: 0, winnerName: 'cleo', reason: 'forfeit' });
    expect(sleeps.runs[0]?.done).toBe(true);
  });

  it('plays bots in parallel to a result, and ends a match at an abort', async () => {
    const games = await Promise.all([
      arena.play({ id: 't/4', seed: 5, moveTimeMs: 100, seats: [bot('p', 'strong'), bot('q', 'easy')] }),
      arena.play({ id: 't/5', seed: 6, moveTimeMs: 100, seats: [bot('r', 'easy'), bot('s', 'strong')] }),
    ]);
    for (const g of games) {
      const result = store.getMatch(g.records[0] as string)?.result as { reason: string; moves: string };
      expect(['four', 'board-full']).toContain(result.reason);
      expect(g.seats.map((s) => s.outcome).sort()).toEqual(result.reason === 'four' ? ['loss', 'win'] : ['draw', 'draw']);
    }
    // The strong bot beats the easy one from either side.
    expect(games[0].seats[0]?.outcome).toBe('win');
    expect(games[1].seats[1]?.outcome).toBe('win');

    const controller = new AbortController();
    const sleeps = launcher(['sleep', '30']);
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const aborted = await arena.play({ id: 't/6', seed: 7, moveTimeMs: 100, signal: controller.signal, seats: [bot('x'), program('y', sleeps.launch)] });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(aborted.aborted).toBe(true);
    expect(sleeps.runs[0]?.done).toBe(true);
  });
});
