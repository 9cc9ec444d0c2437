import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import type { RecordStore } from '../../src/core/records.js';
import { Rng } from '../../src/core/rng.js';
import { createDameBot } from '../../src/games/dame/bots/index.js';
import { DameClient, type DameClientResult } from '../../src/games/dame/client.js';
import { createDameServer, type DameServer } from '../../src/games/dame/server.js';
import { DameLadderTable, wireName } from '../../src/ladder/dame.js';
import type { Ladder, LadderSettings } from '../../src/ladder/ladder.js';
import type { LadderStore } from '../../src/ladder/store.js';
import type { RosterEntry } from '../../src/ladder/types.js';
import { RawClient } from '../games/dame/raw-client.js';
import { has, LadderFixture, runProgram, tenStudents } from './fixture.js';

/**
 * Die Liga on Dame (issue 34): students' clients connect unchanged with their ladder code as the
 * Game-ID. Two codes are paired with each other, one alone gets a house bot after the wait, the
 * game is an ordinary recorded game with both names in its seats, and its result moves the
 * ratings the right way. A revoked code and a second connection of one code are refused in words.
 */

const fixture = new LadderFixture<DameServer>();
let ladder: Ladder | null = null;
let store: LadderStore | null = null;
let records: RecordStore | null = null;
const raws: RawClient[] = [];

afterEach(async () => {
  for (const c of raws.splice(0)) c.close();
  await fixture.close();
  ladder = store = records = null;
});

async function open(settings: Partial<LadderSettings> = {}, moveTimeMs = 300): Promise<{ entries: RosterEntry[]; port: number }> {
  const o = await fixture.open(
    async (r) => {
      const dame = createDameServer({ port: 0, log: silentLogger, store: r, motdDelayMs: 0, defaultMoveTimeMs: moveTimeMs, waitIdleMs: 200 });
      await dame.start();
      return dame;
    },
    (l, dame) => {
      const table = new DameLadderTable(l, dame);
      dame.setLadder(table);
      return table;
    },
    settings,
  );
  ({ ladder, store, records } = o);
  return { entries: o.entries, port: o.server.port };
}

const bot = (name: 'random' | 'greedy', seed: string) => {
  const b = createDameBot(name);
  const rng = Rng.seeded(seed);
  return (state: Parameters<typeof b>[0], budget: number) => b(state, budget, rng);
};

function play(port: number, code: string, player: 'random' | 'greedy', lines?: string[]): Promise<DameClientResult> {
  return new DameClient({ host: '127.0.0.1', port, gameId: code, player: bot(player, code), onLine: (dir, line) => dir === 'in' && lines?.push(line) }).run();
}

describe('Die Liga on Dame', () => {
  it('spells roster names in ASCII on the MNM wire', () => {
    expect(wireName('Ben Müller')).toBe('Ben Mueller');
    expect(wireName('Jürgen Weiß-Öztürk')).toBe('Juergen Weiss-Oeztuerk');
    expect(wireName('Chloé Núñez')).toBe('Chloe Nunez');
    expect(wireName('Yılmaz 李')).toBe('Y?lmaz ?');
  });

  it('pairs two codes with each other: both names in the player list and the record, ratings move the right way', async () => {
    const { entries, port } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    const annaLines: string[] = [];
    const [a, b] = await Promise.all([play(port, anna.code, 'greedy', annaLines), play(port, ben.code, 'random')]);
    expect([a.outcome, b.outcome].sort()).toEqual(a.outcome === 'draw' ? ['draw', 'draw'] : ['lost', 'won']);
    expect(a.gameName).toBe('Liga: Anna Schmidt');
    // The player list names the opponent, connected.
    const you = annaLines.find((l) => l.startsWith('+ YOU '))!;
    const seat = Number(you.split(' ')[2]);
    expect(you).toBe(`+ YOU ${seat} Anna Schmidt`);
    // On the wire, in ASCII (course clients read it so): the umlaut spelled out.
    expect(annaLines).toContain(`+ ${1 - seat} Ben Mueller 1`);
    await ladder!.settled();
    const games = await store!.listGames({ game: 'dame' });
    expect(games).toHaveLength(1);
    const g = games[0]!;
    expect(g.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller']);
    expect(g.recordId).not.toBeNull();
    const record = records!.getMatch(g.recordId!);
    expect(record?.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Mueller']);
    // The record is public (the Matches page): the codes, the students' secrets, are not in it.
    const wire = JSON.stringify(record?.wire);
    expect(wire).not.toContain(anna.code);
    expect(wire).not.toContain(ben.code);
    expect(record?.wire.filter((w) => w.data === 'ID <Liga-Code>')).toHaveLength(2);
    for (const s of g.seats) {
      const moved = s.after.rating - s.before.rating;
      if (s.score === 1) expect(moved).toBeGreaterThan(0);
      else if (s.score === 0) expect(moved).toBeLessThan(0);
      expect(s.after.games).toBe(1);
    }
    const season = await store!.currentSeason('dame');
    expect((await store!.standings('dame', season.id)).map((r) => r.entry.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller']);
  }, 30_000);

  it('rates a strong client above a weak one within two games, rematches allowed after half the house wait', async () => {
    // A quick wait here, so a window that widens as fast as a 10 s wait would let it (ratings part after one game).
    const { entries, port } = await open({ houseAfterMs: 1200, widenPerSecond: 1000 });
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    for (let i = 0; i < 2; i++) await Promise.all([play(port, anna.code, 'greedy'), play(port, ben.code, 'random')]);
    await ladder!.settled();
    const season = (await store!.currentSeason('dame')).id;
    const games = await store!.listGames({ game: 'dame' });
    // Every game between the two of them (no house bot stepped in).
    expect(games).toHaveLength(2);
    expect(games.every((g) => g.seats.every((s) => s.side.kind === 'entry'))).toBe(true);
    const strong = (await store!.getRating('dame', season, anna.id))!;
    const weak = (await store!.getRating('dame', season, ben.id))!;
    expect(strong.games).toBe(2);
    expect(strong.rating).toBeGreaterThan(weak.rating + 100);
    // Colours balanced: each had White once.
    expect(await store!.seatCounts('dame', season, anna.id)).toEqual([1, 1]);
  }, 40_000);

  it('gives ten clients arriving at random times their games, none waiting much past the house wait', async () => {
    const { port } = await open({ houseAfterMs: 1500 });
    const all = await tenStudents(store!, ladder!);
    const rng = Rng.seeded('arrivals');
    const waits: number[] = [];
    const errors: string[] = [];
    await Promise.all(
      all.map(async (entry, i) => {
        await new Promise((r) => setTimeout(r, rng.int(0, 2000)));
        for (let g = 0; g < 1; g++) {
          let asked = 0;
          const r = await new DameClient({
            host: '127.0.0.1',
            port,
            gameId: entry.code,
            player: bot(i % 2 === 0 ? 'greedy' : 'random', `${entry.code}${g}`),
            onLine: (dir, line) => {
              if (dir === 'out' && line.startsWith('PLAYER')) asked = Date.now();
              if (dir === 'in' && line.startsWith('+ YOU ')) waits.push(Date.now() - asked);
            },
          }).run();
          if (r.error !== null) errors.push(`${entry.name}: ${r.error}`);
        }
      }),
    );
    expect(errors).toEqual([]);
    expect(waits).toHaveLength(10);
    // The house wait, the pairing tick and a loaded machine's slack.
    expect(Math.max(...waits)).toBeLessThan(1500 + 1500);
    await ladder!.settled();
    const season = (await store!.currentSeason('dame')).id;
    for (const entry of all) expect((await store!.getRating('dame', season, entry.id))?.games).toBe(1);
  }, 40_000);

  it.skipIf(spawnSync('sh', ['-c', 'command -v python3']).status !== 0)('plays a course client (the Python fixture) unchanged against a student of ours, its code as the Game-ID', async () => {
    const { entries, port } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    const client = path.resolve(import.meta.dirname, '../fixtures/tournament/clients/dame/python/client.py');
    const course = new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('python3', [client, '127.0.0.1', String(port), anna.code, '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => resolve({ code, out }));
    });
    const [theirs, ours] = await Promise.all([course, play(port, ben.code, 'greedy')]);
    expect(theirs.code, theirs.out).toBe(0);
    expect(theirs.out).toMatch(/^Python client: game over, (won|lost|draw) \(player 1\)$/m);
    expect(ours.error).toBeNull();
    await ladder!.settled();
    const [g] = await store!.listGames({ game: 'dame' });
    // It asked for Black (its player 2 is PLAYER 1): the ladder kept that seat for it.
    expect(g!.seats.map((s) => s.name)).toEqual(['Ben Müller', 'Anna Schmidt']);
  }, 30_000);

  it.skipIf(!has('cc') || !has('javac'))('pairs two course clients (the C and the Java fixture) unchanged with each other, their codes as Game-IDs', async () => {
    // A roomier move time: a cold JVM's first moves on a loaded machine.
    const { entries, port } = await open({}, 2000);
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    const dir = mkdtempSync(path.join(tmpdir(), 'liga-dame-clients-'));
    try {
      cpSync(path.resolve(import.meta.dirname, '../fixtures/tournament/clients/dame'), dir, { recursive: true });
      expect(spawnSync('cc', ['-O2', '-o', 'client', 'client.c'], { cwd: path.join(dir, 'c') }).status).toBe(0);
      expect(spawnSync('javac', ['Client.java'], { cwd: path.join(dir, 'java') }).status).toBe(0);
      const [c, java] = await Promise.all([
        runProgram('./client', ['127.0.0.1', String(port), anna.code, '1'], path.join(dir, 'c')),
        runProgram('java', ['-cp', '.', 'Client', '127.0.0.1', String(port), ben.code, '2'], path.join(dir, 'java')),
      ]);
      expect(c.code, c.out).toBe(0);
      expect(java.code, java.out).toBe(0);
      expect(c.out).toMatch(/^C client: game over, (won|lost|draw) \(player 0\)$/m);
      expect(java.out).toMatch(/^Java client: game over, (won|lost|draw) \(player 1\)$/m);
      await ladder!.settled();
      const games = await store!.listGames({ game: 'dame' });
      expect(games).toHaveLength(1);
      // Each asked for its seat (player 1 and 2: PLAYER 0 and PLAYER 1); the ladder kept them.
      expect(games[0]!.seats.map((s) => s.name)).toEqual(['Anna Schmidt', 'Ben Müller']);
      // Both played by the rules: a loss is on the board (or a draw), never a fault.
      for (const s of games[0]!.seats) if (s.reason !== null) expect(s.reason.kind, c.out + java.out).toBe('played');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('gives a code that waits alone a house bot after the wait, rated against the bot’s fixed anchor', async () => {
    const { entries, port } = await open({ houseAfterMs: 700 });
    const started = Date.now();
    const cem = entries[2]!;
    const r = await play(port, cem.code, 'greedy');
    expect(r.error).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    await ladder!.settled();
    const [g] = await store!.listGames({ entryId: cem.id });
    const house = g!.seats.find((s) => s.side.kind === 'house')!;
    expect(house.after).toEqual(house.before);
    // A fresh rating of 1500 gets the house level nearest to it.
    expect(house.side).toEqual({ kind: 'house', level: 'depth4' });
  }, 30_000);

  it('refuses a revoked code and a second connection of a code that already waits, in words, and leaves other ids alone', async () => {
    const { entries, port } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    await store!.revoke(ben.id, Date.now());
    await ladder!.reload();
    const prolog = async (id: string): Promise<RawClient> => {
      const c = await RawClient.open(port);
      raws.push(c);
      await c.waitFor(/^\+ MNM Gameserver/);
      c.send('VERSION 2.3');
      await c.waitFor(/^\+ Client version accepted/);
      c.send(`ID ${id}`);
      return c;
    };
    const revoked = await prolog(ben.code);
    expect(await revoked.next()).toBe('- Liga: this code was revoked; ask your tutor for a new one');
    const first = await prolog(anna.code);
    expect(await first.next()).toBe('+ PLAYING Checkers');
    expect(await first.next()).toBe('+ Liga: Anna Schmidt');
    first.send('PLAYER');
    await expect.poll(() => ladder!.live()[0]!.waiting.length).toBe(1);
    const second = await prolog(anna.code);
    expect(await second.next()).toMatch(/^- Liga: this code already has a ladder game waiting or running/);
    // Nothing is asked of a waiting client: a line from it is a protocol error, and it leaves the queue.
    first.send('OKWAIT');
    expect(await first.next()).toBe('- Did not expect response from client');
    await expect.poll(() => ladder!.live()[0]!.waiting.length).toBe(0);
    // A client that just goes leaves the queue too.
    const again = await prolog(anna.code);
    await again.waitFor('+ Liga: Anna Schmidt');
    again.send('PLAYER 1');
    await expect.poll(() => ladder!.live()[0]!.waiting.length).toBe(1);
    again.close();
    await expect.poll(() => ladder!.live()[0]!.waiting.length).toBe(0);
    // Any other id is an ordinary game, as before.
    const other = await prolog('abcdefghijklm');
    expect(await other.next()).toBe('+ PLAYING Checkers');
  }, 30_000);
});
