import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import type { RecordStore } from '../../src/core/records.js';
import { Rng } from '../../src/core/rng.js';
import { chooseMove, type BotLevel } from '../../src/games/connect4/bots/index.js';
import type { C4Engine } from '../../src/games/connect4/engine.js';
import { Connect4Hub } from '../../src/games/connect4/hub.js';
import { connect4 } from '../../src/games/connect4/index.js';
import { AutoPlayer, type PeerEvent, type PeerTiming } from '../../src/games/connect4/peer.js';
import type { C4State } from '../../src/games/connect4/rules.js';
import { startUdpPeer, type UdpPeer } from '../../src/games/connect4/transport.js';
import { Connect4LadderTable, connect4LossReason } from '../../src/ladder/connect4.js';
import type { Ladder, LadderSettings } from '../../src/ladder/ladder.js';
import type { LadderStore } from '../../src/ladder/store.js';
import type { RosterEntry } from '../../src/ladder/types.js';
import { has, LadderFixture, tenStudents } from './fixture.js';

/**
 * Die Liga on Connect Four (issue 34): a student's unchanged peer uses its ladder code as its
 * clientname and meets the hub's Liga peer. A code that invites the Liga peer moves first (seat 0),
 * one that only announces itself is invited (seat 1); two such codes play each other through the
 * Liga peer, which relays the moves between its two games. One alone plays a house level after
 * the wait; a revoked code gets no answer; a name that is no code still gets the house bot's game.
 * Everything on 127.0.0.1, ports chosen by the system, no broadcast.
 */

const FAST: Partial<PeerTiming> = {
  resendMs: 100,
  lobbyExpiryMs: 1000,
  inviteTimeoutMs: 1000,
  invitationValidMs: 1000,
  acceptTimeoutMs: 1000,
  silenceMs: 4000,
  moveTimeoutMs: 6000,
  finalMoveWaitMs: 500,
};

/** The engine without the worker: our bots in-process, by level (perfect plays strong here). */
class InProcessEngine implements C4Engine {
  choose(state: C4State, level: string, seed: string): Promise<number> {
    const l: BotLevel = level === 'easy' ? 'easy' : 'strong';
    return Promise.resolve(chooseMove(state, l, Rng.seeded(seed)));
  }
  analyse(): Promise<(number | null)[]> {
    return Promise.resolve([]);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const fixture = new LadderFixture<Connect4Hub>();
let ladder: Ladder | null = null;
let store: LadderStore | null = null;
let records: RecordStore | null = null;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await fixture.close();
  ladder = store = records = null;
});

async function open(settings: Partial<LadderSettings> = {}): Promise<{ entries: RosterEntry[]; hub: Connect4Hub; liga: number }> {
  let table: Connect4LadderTable | null = null;
  const o = await fixture.open(
    async (r) => {
      const hub = new Connect4Hub({ host: '127.0.0.1', port: 0, ladderPort: 0, broadcastAddress: null, peerPorts: [], store: r, log: silentLogger, timing: FAST, engine: new InProcessEngine() });
      await hub.start();
      return hub;
    },
    (l, hub) => (table = new Connect4LadderTable(l, hub, { log: silentLogger, seed: 'liga' })),
    settings,
  );
  ({ ladder, store, records } = o);
  const port = await table!.open();
  return { entries: o.entries, hub: o.server, liga: port.address.port };
}

interface Student {
  udp: UdpPeer;
  events: PeerEvent[];
}

/** A student's peer as `bot connect4 --name <code>` runs it: accepts invitations, plays a level. */
async function student(name: string, level: BotLevel, announceTo: number[]): Promise<Student> {
  const udp = await startUdpPeer({ name, port: 0, bindAddress: '127.0.0.1', peerPorts: announceTo, timing: FAST, log: silentLogger });
  let n = 0;
  const player = new AutoPlayer(udp.peer, (state) => chooseMove(state, level, Rng.seeded(`${name}:${n++}`)), { log: silentLogger });
  const events: PeerEvent[] = [];
  udp.peer.on((e) => events.push(e));
  cleanups.push(async () => {
    player.stop();
    await udp.close();
  });
  return { udp, events };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 12_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A free UDP port on 127.0.0.1 (a course client takes its port on the command line). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}


const ended = (s: Student) => s.events.some((e) => e.type === 'game-over' || e.type === 'aborted');

describe('Die Liga on Connect Four', () => {
  it('names the reason of a loss from how the Liga peer\'s game with the student ended', () => {
    expect(connect4LossReason('move-timeout', null)?.kind).toBe('timeout');
    expect(connect4LossReason('silence', null)?.kind).toBe('disconnect');
    const aborted = connect4LossReason('opponent-aborted', null);
    expect(aborted?.kind).toBe('disconnect');
    expect(aborted?.kind === 'disconnect' ? aborted.detail : '').toContain('99');
    const invalid = connect4LossReason('move-timeout', { reason: 'column-full', turn: 12, column: 3 });
    expect(invalid?.kind).toBe('invalid-move');
    expect(invalid?.kind === 'invalid-move' ? invalid.rule : '').toContain('§2');
    expect(connect4LossReason('move-timeout', { reason: 'out-of-turn', turn: 3, column: 3 })?.kind).toBe('protocol');
    expect(connect4LossReason('no-final-move', null)?.kind).toBe('protocol');
    // Our own side stopping does not count.
    expect(connect4LossReason('stopped', null)).toBeNull();
    expect(connect4LossReason('internal error', null)).toBeNull();
  });

  it('pairs an inviting code (first) with an announcing code (second) through the Liga peer: one game, both names, ratings move the right way', async () => {
    const { entries, liga } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    // Ben only shows himself to the Liga peer; Anna invites it, so she moves first.
    const b = await student(ben.code, 'easy', [liga]);
    const a = await student(anna.code, 'strong', []);
    expect(a.udp.peer.invite({ address: '127.0.0.1', port: liga }).ok).toBe(true);
    await until(() => ended(a) && ended(b), 'both games to end');
    const overA = a.events.find((e) => e.type === 'game-over');
    const overB = b.events.find((e) => e.type === 'game-over');
    // The same game on both boards: Anna first, Ben second, one winner (or a draw).
    expect(overA?.type).toBe('game-over');
    expect(overB?.type).toBe('game-over');
    if (overA?.type !== 'game-over' || overB?.type !== 'game-over') return;
    expect(overA.state.moves).toEqual(overB.state.moves);
    expect(overA.winner).toBe(overB.winner);
    expect(a.events.find((e) => e.type === 'game-started')).toMatchObject({ game: { localPlayer: 0 } });
    expect(b.events.find((e) => e.type === 'game-started')).toMatchObject({ game: { localPlayer: 1 } });

    await ladder!.settled();
    const games = await store!.listGames({ game: 'connect4' });
    expect(games).toHaveLength(1);
    const g = games[0]!;
    expect(g.seats.map((s) => s.name)).toEqual(['Anna Schmidt', 'Ben Müller']);
    expect(g.seats.map((s) => s.side)).toEqual([
      { kind: 'entry', entryId: anna.id },
      { kind: 'entry', entryId: ben.id },
    ]);
    const [sa, sb] = g.seats as [(typeof g.seats)[0], (typeof g.seats)[0]];
    const winner = overA.winner;
    expect(sa.score).toBe(winner === null ? 0.5 : winner === 0 ? 1 : 0);
    if (winner !== null) {
      const [w, l] = winner === 0 ? [sa, sb] : [sb, sa];
      expect(w.after.rating).toBeGreaterThan(w.before.rating);
      expect(l.after.rating).toBeLessThan(l.before.rating);
      expect(l.reason).toEqual({ kind: 'played' });
    }
    // The record store has the game once, with both names in its seats and the moves.
    const match = records!.getMatch(g.recordId!)!;
    expect(match.seats.map((s) => s.name)).toEqual(['Anna Schmidt', 'Ben Müller']);
    expect((match.result as { moves: string }).moves).toBe(overA.state.moves.join(''));
    // The codes, the students' secrets, are not in the public record: the client names read (Liga-Code).
    const wire = match.wire.map((w) => w.data).join('\n');
    expect(wire).toContain('"clientname":"(Liga-Code)"');
    for (const e of entries.slice(0, 2)) expect(wire).not.toContain(e.code);
  }, 20_000);

  it('gives ten codes, five inviting the Liga peer and five only announcing, at random times, every one a rated game', async () => {
    // No house wait in reach: an inviter meets an announcer through the Liga peer (a relayed game).
    const { liga } = await open();
    const all = await tenStudents(store!, ladder!);
    const season = (await store!.currentSeason('connect4')).id;
    const rated = async (): Promise<number[]> => {
      await ladder!.settled();
      return Promise.all(all.map(async (e) => (await store!.getRating('connect4', season, e.id))?.games ?? 0));
    };
    let done = false;
    const rng = Rng.seeded('arrivals');
    const students = await Promise.all(
      all.map(async (entry, i) => {
        await new Promise((r) => setTimeout(r, rng.int(0, 1000)));
        const inviter = i % 2 === 0;
        const s = await student(entry.code, i % 4 < 2 ? 'strong' : 'easy', inviter ? [] : [liga]);
        // An inviter invites again after each game (an announcer comes back by itself), so that an
        // announcer who played once cannot leave another without an inviter.
        if (inviter) {
          const again = async (): Promise<void> => {
            while (!done) {
              if (s.udp.peer.phase === 'lobby') s.udp.peer.invite({ address: '127.0.0.1', port: liga });
              await new Promise((r) => setTimeout(r, 200));
            }
          };
          void again();
        }
        return { entry, inviter, s };
      }),
    );
    cleanups.push(() => {
      done = true;
    });
    try {
      await until(async () => (await rated()).every((n) => n >= 1), 'every code to be rated', 45_000);
      // The ladder rates a game at its last move; the loser's peer sees that move a moment later.
      await until(() => students.every(({ s }) => s.events.some((e) => e.type === 'game-over')), 'every peer to see its game end', 10_000);
    } finally {
      done = true;
    }
    for (const { entry, inviter, s } of students) {
      const started = s.events.find((e) => e.type === 'game-started');
      expect(started, entry.name).toMatchObject({ game: { localPlayer: inviter ? 0 : 1 } });
    }
    // In every game the seats are where the protocol puts them: the inviter first; both students.
    const games = await store!.listGames({ game: 'connect4' });
    expect(games.length).toBeGreaterThanOrEqual(5);
    for (const g of games) {
      expect(g.recordId).not.toBeNull();
      for (const [i, seat] of g.seats.entries()) {
        expect(seat.side.kind, seat.name).toBe('entry');
        const id = seat.side.kind === 'entry' ? seat.side.entryId : '';
        expect(students.find((x) => x.entry.id === id)!.inviter, seat.name).toBe(i === 0);
        if (seat.score === 1) expect(seat.after.rating).toBeGreaterThan(seat.before.rating);
        else if (seat.score === 0) expect(seat.after.rating).toBeLessThan(seat.before.rating);
      }
    }
  }, 90_000);

  const langs = [
    { lang: 'c', tool: 'cc' },
    { lang: 'java', tool: 'javac' },
    { lang: 'python', tool: 'python3' },
  ].filter((l) => has(l.tool));
  it.skipIf(langs.length === 0)('plays the course clients (C, Java, Python) unchanged, their code as the client name, inviting the Liga peer: each game rated', async () => {
    // Each course client invites (it moves first) and meets one of our announcing students through
    // the Liga peer; no house wait in reach (a minute here).
    const { entries, liga } = await open();
    const ours = await store!.addEntries(
      Array.from({ length: langs.length }, (_, i) => ({ name: `Student ${i + 4}`, group: 'T3' })),
      Date.now(),
    );
    await ladder!.reload();
    for (const e of ours) await student(e.code, 'easy', [liga]);
    const dir = mkdtempSync(path.join(tmpdir(), 'liga-c4-clients-'));
    const children: ReturnType<typeof spawn>[] = [];
    try {
      cpSync(path.resolve(import.meta.dirname, '../fixtures/tournament/clients/connect4'), dir, { recursive: true });
      if (has('cc')) expect(spawnSync('cc', ['-O2', '-o', 'client', 'client.c'], { cwd: path.join(dir, 'c') }).status).toBe(0);
      if (has('javac')) expect(spawnSync('javac', ['-J-XX:TieredStopAtLevel=1', 'Client.java'], { cwd: path.join(dir, 'java') }).status).toBe(0);
      const runs = await Promise.all(
        langs.map(async ({ lang }, i) => {
          const port = await freeUdpPort();
          const args = ['127.0.0.1', String(port), `127.0.0.1:${liga}`, entries[i]!.code];
          const [cmd, pre] = lang === 'c' ? ['./client', []] : lang === 'java' ? ['java', ['-cp', '.', 'Client']] : ['python3', ['client.py']];
          const child = spawn(cmd, [...pre, ...args], { cwd: path.join(dir, lang), stdio: ['ignore', 'pipe', 'pipe'] });
          children.push(child);
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.stderr.on('data', (d: Buffer) => (out += d.toString()));
          const code = await new Promise<number | null>((resolve) => {
            const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
            child.on('close', (c) => {
              clearTimeout(kill);
              resolve(c);
            });
          });
          return { lang, code, out };
        }),
      );
      const said = runs.map((r) => `${r.lang}: ${r.out}`).join('\n');
      for (const r of runs) {
        expect(r.code, said).toBe(0);
        // It invited, so it is player 1 and moved first.
        expect(r.out, said).toMatch(/^game over: (win|loss|draw) as player 1, moves [1-7]{7,42}$/m);
      }
      const season = (await store!.currentSeason('connect4')).id;
      await ladder!.settled();
      for (const e of entries.slice(0, langs.length)) expect((await store!.getRating('connect4', season, e.id))?.games, said).toBe(1);
      const games = await store!.listGames({ game: 'connect4' });
      for (const [i, r] of runs.entries()) {
        const mine = games.filter((g) => g.seats[0]!.side.kind === 'entry' && g.seats[0]!.side.entryId === entries[i]!.id);
        // One game, the course client in seat 0 (it invited), one of ours in seat 1.
        expect(mine, said).toHaveLength(1);
        const g = mine[0]!;
        expect(ours.map((e) => e.name)).toContain(g.seats[1]!.name);
        // By the rules: a loss is on the board, never a timeout, an invalid move or a protocol error.
        for (const s of g.seats) if (s.reason !== null) expect(s.reason.kind, said).toBe('played');
        // The client agrees with the ladder: the moves in its line are the record's, and so is the result.
        const line = /^game over: (win|loss|draw) as player 1, moves ([1-7]+)$/m.exec(r.out)!;
        expect((records!.getMatch(g.recordId!)!.result as { moves: string }).moves, said).toBe(line[2]);
        expect(g.seats[0]!.score, said).toBe(line[1] === 'win' ? 1 : line[1] === 'loss' ? 0 : 0.5);
      }
    } finally {
      for (const c of children) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  // Its first move came in while it waited, before the game existed (it once got no answer: the
  // house level waited for a 'your-turn' that had already passed, and the student was rated a
  // 'disconnect' when its peer gave up).
  it('gives an inviting code alone a house level after the wait; the house answers its first move', async () => {
    const { entries, liga } = await open({ houseAfterMs: 300 });
    const anna = entries[0]!;
    const a = await student(anna.code, 'easy', []);
    expect(a.udp.peer.invite({ address: '127.0.0.1', port: liga }).ok).toBe(true);
    await until(() => ended(a), 'the house game to end', 15_000);
    expect(a.events.some((e) => e.type === 'game-over')).toBe(true);
    await ladder!.settled();
    const [g] = await store!.listGames({ entryId: anna.id });
    expect(g?.seats[0]?.name).toBe('Anna Schmidt');
    expect(g?.seats[1]?.side.kind).toBe('house');
    for (const s of g!.seats) if (s.reason !== null) expect(s.reason.kind).toBe('played');
  }, 20_000);

  it('gives a code alone a house level after the wait; it is invited, so the house moves first', async () => {
    const { entries, liga } = await open({ houseAfterMs: 300 });
    const cem = entries[2]!;
    const c = await student(cem.code, 'easy', [liga]);
    await until(() => ended(c), 'the house game to end');
    expect(c.events.find((e) => e.type === 'game-started')).toMatchObject({ game: { localPlayer: 1 } });
    await ladder!.settled();
    const [g] = await store!.listGames({ entryId: cem.id });
    expect(g?.seats[0]?.side.kind).toBe('house');
    expect(g?.seats[1]?.name).toBe('Cem Yılmaz');
    expect(g?.seats[1]?.after.games).toBe(1);
  }, 20_000);

  it('leaves a revoked code unanswered, and a name that is no code still gets the house bot', async () => {
    const { entries, hub, liga } = await open({ houseAfterMs: 300 });
    const anna = entries[0]!;
    await store!.revoke(anna.id, Date.now());
    await ladder!.reload();
    const settings: Settings = { ...DEFAULT_SETTINGS, games: { ...DEFAULT_SETTINGS.games, connect4: { ...DEFAULT_SETTINGS.games.connect4, port: 0, peerPorts: [], houseBots: 1, maxGamesPerHost: 0, hostPauseMs: 0 } } };
    const bots = await connect4.startHouseBots!({ settings, log: silentLogger, store: records! }, hub);
    cleanups.push(() => {
      for (const b of bots) void b.stop();
    });
    const a = await student(anna.code, 'easy', [liga]);
    expect(a.udp.peer.invite({ address: '127.0.0.1', port: liga }).ok).toBe(true);
    // Ben's code invites the house bot first, Fritz (no code) a moment later: the house bot takes
    // Fritz's and leaves the code to the Liga peer.
    const ben = entries[1]!;
    const b = await student(ben.code, 'easy', []);
    expect(b.udp.peer.invite({ address: '127.0.0.1', port: hub.port }).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const fritz = await student('Fritz', 'easy', []);
    expect(fritz.udp.peer.invite({ address: '127.0.0.1', port: hub.port }).ok).toBe(true);
    await until(() => fritz.events.some((e) => e.type === 'game-started'), 'the house game of a plain name');
    await until(() => a.events.some((e) => e.type === 'invite-expired'), 'the revoked code to give up');
    expect(a.events.some((e) => e.type === 'game-started')).toBe(false);
    await until(() => b.events.some((e) => e.type === 'invite-expired' || e.type === 'game-started'), 'the code to give up on the house bot');
    expect(b.events.some((e) => e.type === 'game-started')).toBe(false);
    expect(await store!.listGames({ game: 'connect4' })).toHaveLength(0);
  }, 20_000);
});
