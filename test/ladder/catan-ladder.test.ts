import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import type { RecordStore } from '../../src/core/records.js';
import { Rng } from '../../src/core/rng.js';
import { createCatanBot } from '../../src/games/catan/bots/strategies.js';
import { CatanClient, type ClientResult } from '../../src/games/catan/client.js';
import { CatanServer } from '../../src/games/catan/server.js';
import { CatanLadderTable, catanPlaces, gameNames } from '../../src/ladder/catan.js';
import { groupNow } from '../../src/ladder/grouping.js';
import { placeShares, type Ladder, type LadderSettings } from '../../src/ladder/ladder.js';
import type { Waiter } from '../../src/ladder/pairing.js';
import type { LadderStore } from '../../src/ladder/store.js';
import type { RosterEntry } from '../../src/ladder/types.js';
import { serve } from '../../src/serve.js';
import { RawClient } from '../games/catan/tcp.js';
import { has, LadderFixture, tenStudents } from './fixture.js';

/**
 * Die Liga on Catan (issue 34): students' clients connect unchanged to the ladder port and give
 * their ladder code as their name. Three codes play one game together, one alone gets house bots
 * after the wait, the game is an ordinary recorded game with the roster names in its seats (and
 * no code anywhere in the record), and OpenSkill moves every student's rating. A revoked code and
 * a name that is no code are refused and closed.
 */

const fixture = new LadderFixture<CatanServer>();
let ladder: Ladder | null = null;
let store: LadderStore | null = null;
let records: RecordStore | null = null;
const raws: RawClient[] = [];
/** Every wire line the record store was given, in a game or not (the lines before a game have no match). */
const wired: string[] = [];

afterEach(async () => {
  for (const c of raws.splice(0)) c.close();
  wired.length = 0;
  await fixture.close();
  ladder = store = records = null;
});

async function open(settings: Partial<LadderSettings> = {}, timeoutMs = 2000): Promise<{ entries: RosterEntry[]; port: number }> {
  let table: CatanLadderTable | null = null;
  const o = await fixture.open(
    async (r) => {
      const addWire = r.addWire.bind(r);
      r.addWire = (entry) => {
        wired.push(entry.data);
        addWire(entry);
      };
      const server = new CatanServer({ host: '127.0.0.1', port: 0, seed: 'liga', log: silentLogger, store: r, idleLobbyTimeoutMs: null });
      await server.start();
      return server;
    },
    (l, server) => (table = new CatanLadderTable(l, server, { log: silentLogger, timeoutMs })),
    settings,
  );
  ({ ladder, store, records } = o);
  const port = await table!.open(0);
  return { entries: o.entries, port };
}

async function play(port: number, code: string, strategy: 'random' | 'weighted'): Promise<ClientResult> {
  const client = new CatanClient({ host: '127.0.0.1', port, name: code, bot: createCatanBot(strategy, code) });
  await client.start();
  return client.done;
}


const waiter = (ticket: string, rating: number, since = 0): Waiter => ({ ticket, entryId: `e_${ticket}`, rating, rd: 100, since, seat: null, lastOpponent: null, seats: [0, 0], host: ticket });
const options = { window: 150, widenPerSecond: 40, houseAfterMs: 10_000, sameHostAllowed: true };

describe('Die Liga on Catan', () => {
  it('groups 3–4 waiting clients nearest in rating, fills up to three with house seats after the wait', () => {
    const size = { min: 3, max: 4 };
    // Two near each other wait: no game yet; a third near them makes one.
    expect(groupNow([waiter('a', 1500), waiter('b', 1520)], 1000, options, size)).toEqual([]);
    const [g] = groupNow([waiter('a', 1500), waiter('b', 1520), waiter('c', 1480), waiter('far', 2400)], 1000, options, size);
    expect(g!.members.map((m) => m.ticket)).toEqual(['a', 'b', 'c']);
    expect(g!.house).toBe(0);
    // After the wait: the one waiting longest plays with whoever waits and one house seat.
    const due = groupNow([waiter('a', 1500, 0), waiter('far', 2400, 5000)], 10_000, options, size);
    expect(due).toEqual([{ members: [waiter('a', 1500, 0), waiter('far', 2400, 5000)], house: 1 }]);
    expect(groupNow([waiter('a', 1500, 0)], 10_000, options, size)).toEqual([{ members: [waiter('a', 1500, 0)], house: 2 }]);
  });

  it('places the winner first, the others by victory points, a failed seat last', () => {
    expect(catanPlaces([10, 7, 7], [false, false, false], 0)).toEqual([1, 2, 2]);
    expect(catanPlaces([5, 8, 6, 2], [false, true, false, false], null)).toEqual([2, 4, 1, 3]);
    expect(placeShares([1, 2, 2])).toEqual([1, 0.25, 0.25]);
    expect(placeShares([1, 2])).toEqual([1, 0]);
  });

  it('names each seat of a game once, within the protocol’s 40 characters', () => {
    const long = 'Abcdefghij'.repeat(5);
    expect(gameNames(['Anna', 'Anna', 'Anna', long])).toEqual(['Anna', 'Anna (2)', 'Anna (3)', long.slice(0, 40)]);
    expect(gameNames([long, long])[1]).toBe(`${long.slice(0, 35)} (2)`);
  });

  it('plays three codes in one game: roster names in the record, no codes, every rating moves, the winner’s up', async () => {
    const { entries, port } = await open();
    const [anna, ben, cem] = entries as [RosterEntry, RosterEntry, RosterEntry];
    const results = await Promise.all([play(port, anna.code, 'weighted'), play(port, ben.code, 'weighted'), play(port, cem.code, 'weighted')]);
    expect(results.every((r) => r.message !== null)).toBe(true);
    // On the wire each saw the others by their roster names (UTF-8).
    const seen = results[0].view.players.map((p) => p.name).sort();
    expect(seen).toEqual(['Anna Schmidt', 'Ben Müller', 'Cem Yılmaz']);
    await ladder!.settled();
    const games = await store!.listGames({ game: 'catan' });
    expect(games).toHaveLength(1);
    const g = games[0]!;
    expect(g.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller', 'Cem Yılmaz']);
    expect(g.seats.every((s) => s.side.kind === 'entry')).toBe(true);
    const record = records!.getMatch(g.recordId!);
    expect(record?.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller', 'Cem Yılmaz']);
    // The record is public: the codes, the students' secrets, are not in it.
    const text = JSON.stringify(record);
    for (const e of [anna, ben, cem]) expect(text).not.toContain(e.code);
    // Nor in the lines before the game (the Spieler with the code), which the store keeps too.
    const all = wired.join('\n');
    for (const e of [anna, ben, cem]) expect(all).not.toContain(e.code);
    expect(wired.filter((w) => w.includes('"Name":"(Liga-Code)"'))).toHaveLength(3);
    for (const s of g.seats) {
      expect(s.after.rating).not.toBe(s.before.rating);
      expect(s.after.games).toBe(1);
    }
    // Weighted bots finish a game: a winner, first place, whose rating goes up.
    expect(results.filter((r) => r.won)).toHaveLength(1);
    const top = g.seats.find((s) => s.score === 1)!;
    expect(top.after.rating).toBeGreaterThan(top.before.rating);
    expect(top.reason).toBeNull();
    expect(g.seats.filter((s) => s.score < 1).every((s) => s.reason?.kind === 'played' || s.reason?.kind === 'timeout')).toBe(true);
  }, 25_000);

  it('gives a code that waits alone house seats after the wait, anchored', async () => {
    const { entries, port } = await open({ houseAfterMs: 500 });
    const cem = entries[2]!;
    const started = Date.now();
    const r = await play(port, cem.code, 'weighted');
    expect(r.message).not.toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    await ladder!.settled();
    const [g] = await store!.listGames({ entryId: cem.id });
    expect(g!.seats).toHaveLength(3);
    const house = g!.seats.filter((s) => s.side.kind === 'house');
    expect(house).toHaveLength(2);
    for (const h of house) expect(h.after).toEqual(h.before);
    // A fresh 1500 gets the level nearest to it.
    expect(house[0]!.side).toEqual({ kind: 'house', level: 'weighted' });
    const me = g!.seats.find((s) => s.side.kind === 'entry')!;
    expect(me.after.games).toBe(1);
    expect(me.after.rating).not.toBe(me.before.rating);
    // Connecting again gives the next game, rated from the rating the first one left.
    expect((await play(port, cem.code, 'weighted')).message).not.toBeNull();
    await ladder!.settled();
    const games = await store!.listGames({ entryId: cem.id });
    expect(games).toHaveLength(2);
    const season = (await store!.currentSeason('catan')).id;
    expect((await store!.getRating('catan', season, cem.id))?.games).toBe(2);
  }, 25_000);

  it('gives ten codes arriving at random times their games: groups of three or four, house seats after the wait, every rating moves', async () => {
    const { port } = await open({ houseAfterMs: 1500 });
    const all = await tenStudents(store!, ladder!);
    const rng = Rng.seeded('arrivals');
    const results = await Promise.all(
      all.map(async (entry, i) => {
        await new Promise((r) => setTimeout(r, rng.int(0, 1000)));
        return { entry, r: await play(port, entry.code, i % 3 === 0 ? 'random' : 'weighted') };
      }),
    );
    for (const { entry, r } of results) {
      expect(r.message, entry.name).not.toBeNull();
      expect(r.lobbyTimedOut, entry.name).toBe(false);
    }
    await ladder!.settled();
    const games = await store!.listGames({ game: 'catan' });
    // Every code in exactly one game, each game of three or four seats (house seats fill up to three).
    const students = games.flatMap((g) => g.seats.filter((s) => s.side.kind === 'entry').map((s) => s.name));
    expect(students.sort()).toEqual(all.map((e) => e.name).sort());
    for (const g of games) {
      expect(g.seats.length).toBeGreaterThanOrEqual(3);
      expect(g.seats.length).toBeLessThanOrEqual(4);
      expect(g.recordId).not.toBeNull();
      const house = g.seats.filter((s) => s.side.kind === 'house');
      if (house.length > 0) expect(g.seats).toHaveLength(3);
      for (const h of house) expect(h.after).toEqual(h.before);
      for (const s of g.seats) if (s.side.kind === 'entry') expect(s.after.rating, s.name).not.toBe(s.before.rating);
    }
    const season = (await store!.currentSeason('catan')).id;
    for (const e of all) expect((await store!.getRating('catan', season, e.id))?.games, e.name).toBe(1);
  }, 90_000);

  it.skipIf(!has('cc') || !has('javac') || !has('python3'))('plays the course clients (C, Java, Python) unchanged in one game together, their codes as names, rated', async () => {
    // No house wait in reach (a cold JVM comes last), and a roomier decision time for it.
    const { entries, port } = await open({}, 5000);
    const dir = mkdtempSync(join(tmpdir(), 'liga-catan-clients-'));
    try {
      cpSync(resolvePath(import.meta.dirname, '../fixtures/tournament/clients/catan'), dir, { recursive: true });
      expect(spawnSync('cc', ['-O2', '-o', 'client', 'client.c'], { cwd: join(dir, 'c') }).status).toBe(0);
      expect(spawnSync('javac', ['-J-XX:TieredStopAtLevel=1', 'Client.java'], { cwd: join(dir, 'java') }).status).toBe(0);
      const commands: [string, string[], string][] = [
        ['./client', [], 'c'],
        ['java', ['-cp', '.', 'Client'], 'java'],
        ['python3', ['client.py'], 'python'],
      ];
      const runs = await Promise.all(
        commands.map(
          ([cmd, args, sub], i) =>
            new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
              const child = spawn(cmd, [...args, '127.0.0.1', String(port), entries[i]!.code], { cwd: join(dir, sub), stdio: ['ignore', 'pipe', 'pipe'] });
              let out = '';
              let err = '';
              child.stdout.on('data', (d: Buffer) => (out += d.toString()));
              child.stderr.on('data', (d: Buffer) => (err += d.toString()));
              const kill = setTimeout(() => child.kill('SIGKILL'), 75_000);
              child.on('close', (code) => {
                clearTimeout(kill);
                resolve({ code, out, err });
              });
            }),
        ),
      );
      const said = runs.map((r, i) => `${commands[i]![2]}: ${r.out}${r.err.split('\n').filter((l) => !l.startsWith('> ')).join('\n')}`).join('\n');
      for (const r of runs) {
        expect(r.code, said).toBe(0);
        expect(r.out, said).toMatch(/^game over: /m);
        expect(r.err, said).not.toContain('Fehler');
      }
      await ladder!.settled();
      const games = await store!.listGames({ game: 'catan' });
      // One game, the three of them, no house seat; each rated once, every rating moved.
      expect(games, said).toHaveLength(1);
      const g = games[0]!;
      expect(g.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller', 'Cem Yılmaz']);
      expect(g.seats.every((s) => s.side.kind === 'entry')).toBe(true);
      for (const s of g.seats) {
        expect(s.after.games).toBe(1);
        expect(s.after.rating).not.toBe(s.before.rating);
        // By the rules: a lower place is the game's, never a timeout, a fault or a disconnect.
        if (s.reason !== null) expect(s.reason.kind, said).toBe('played');
      }
      expect(g.seats.filter((s) => s.score === 1), said).toHaveLength(1);
      expect(records!.getMatch(g.recordId!)?.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller', 'Cem Yılmaz']);
      // Each client saw the same end, its own code nowhere in another's output.
      const ends = runs.map((r) => /^game over: (.*)$/m.exec(r.out)![1]);
      expect(new Set(ends).size, said).toBe(1);
      runs.forEach((r, i) => {
        for (const [j, e] of entries.entries()) if (j !== i) expect(r.out + r.err).not.toContain(e.code);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('rates a client that closes its connection in the game last, for a disconnect', async () => {
    const { entries, port } = await open();
    const [anna, ben, cem] = entries as [RosterEntry, RosterEntry, RosterEntry];
    // Cem's client joins with its code and goes once the game has started.
    const raw = await RawClient.open(port);
    raws.push(raw);
    await raw.until(() => raw.lines.some((l) => l.includes('Hallo')), 'Hallo');
    raw.send(JSON.stringify({ Hallo: { Version: 'Liga-Test (KI)' } }));
    raw.send(JSON.stringify({ Spieler: { Name: cem.code, Farbe: 'Rot' } }));
    raw.send(JSON.stringify({ 'Spiel starten': {} }));
    const others = Promise.all([play(port, anna.code, 'weighted'), play(port, ben.code, 'weighted')]);
    await raw.until(() => raw.lines.some((l) => l.includes('Spiel gestartet')), 'the start', 10_000);
    raw.close();
    const results = await others;
    expect(results.every((r) => r.message !== null && !r.won)).toBe(true);
    await ladder!.settled();
    const [g] = await store!.listGames({ game: 'catan' });
    const gone = g!.seats.find((s) => s.name === 'Cem Yılmaz')!;
    expect(gone.reason?.kind).toBe('disconnect');
    expect(gone.score).toBe(0);
    expect(gone.after.rating).toBeLessThan(gone.before.rating);
  }, 25_000);

  it('opens through serve with ladder.games ["catan"]: a code on the ladder port plays house bots', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-catan-ladder-'));
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      dataDir,
      bots: false,
      web: { ...DEFAULT_SETTINGS.web, enabled: false },
      games: { ...DEFAULT_SETTINGS.games, catan: { ...DEFAULT_SETTINGS.games.catan, port: 0, ladderPort: 0, houseGames: 0 } },
      ladder: { ...DEFAULT_SETTINGS.ladder, enabled: true, games: ['catan'], houseAfterSeconds: 1 },
    };
    const running = await serve(settings, ['catan'], silentLogger);
    try {
      const l = running.ladder!;
      expect(l.games).toEqual(['catan']);
      const [dora] = await l.store.addEntries([{ name: 'Dora Klein', group: '' }], Date.now());
      await l.reload();
      const server = running.servers[0] as CatanServer;
      const r = await play(server.ladderPortNumber!, dora!.code, 'weighted');
      expect(r.message).not.toBeNull();
      await l.settled();
      const [g] = await l.store.listGames({ entryId: dora!.id });
      expect(g!.seats.map((s) => s.side.kind).sort()).toEqual(['entry', 'house', 'house']);
    } finally {
      await running.lifecycle.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 25_000);

  it('refuses a revoked code in words and a name that is no code with the protocol’s error, and closes both', async () => {
    const { entries, port } = await open();
    const ben = entries[1]!;
    await store!.revoke(ben.id, Date.now());
    await ladder!.reload();
    const prolog = async (name: string): Promise<RawClient> => {
      const c = await RawClient.open(port);
      raws.push(c);
      await c.until(() => c.lines.some((l) => l.includes('Hallo')), 'Hallo');
      c.send(JSON.stringify({ Hallo: { Version: 'Liga-Test (KI)' } }));
      await c.until(() => c.lines.some((l) => l.includes('Willkommen')), 'Willkommen');
      c.send(JSON.stringify({ Spieler: { Name: name, Farbe: 'Rot' } }));
      await c.until(() => c.closed, 'the close');
      return c;
    };
    const revoked = await prolog(ben.code);
    expect(revoked.lines.at(-1)).toBe(JSON.stringify({ Fehler: { Meldung: 'Liga: this code was revoked; ask your tutor for a new one' } }));
    const stranger = await prolog('Ein Name');
    expect(stranger.lines.at(-1)).toBe(JSON.stringify({ Fehler: { Meldung: 'Ungueltiger Name' } }));
    expect(ladder!.live()[0]!.waiting).toHaveLength(0);
  }, 25_000);
});
