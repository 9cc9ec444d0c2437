import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { Rng } from '../../src/core/rng.js';
import { greedyBot } from '../../src/games/ostseeschach/bots/greedy.js';
import { randomBot } from '../../src/games/ostseeschach/bots/random.js';
import type { Bot } from '../../src/games/ostseeschach/bots/types.js';
import { playOnServer, type ClientOutcome } from '../../src/games/ostseeschach/client.js';
import type { ScoreEntry } from '../../src/games/ostseeschach/protocol.js';
import { createOstseeschachServer, type OstseeschachServer } from '../../src/games/ostseeschach/server.js';
import type { OstseeschachResultRow } from '../../src/games/ostseeschach/snapshot.js';
import { Ladder, type LadderSettings } from '../../src/ladder/ladder.js';
import { OSTSEESCHACH_CHECK_COMMAND, OSTSEESCHACH_HOUSE_PLAYERS, OstseeschachLadderTable, ostseeschachOutcome } from '../../src/ladder/ostseeschach.js';
import { HOUSE_LEVELS } from '../../src/ladder/ratings.js';
import type { LadderStore } from '../../src/ladder/store.js';
import type { RosterEntry } from '../../src/ladder/types.js';
import { serve } from '../../src/serve.js';
import { has, LadderFixture, runProgram, tenStudents } from './fixture.js';

/**
 * Die Liga on Ostseeschach (issue 34): students' clients connect unchanged with their personal
 * reservation code (`-r`, so `<joinPrepared reservationCode="C"/>`). Two codes are paired with
 * each other, one alone gets a house bot after the wait, the game is an ordinary recorded game with
 * both names in its seats, and its result moves the ratings the right way. A revoked code and a
 * second connection of one code get the errorpacket of a refused reservation with the ladder's
 * words; any other unknown code still gets the official one.
 */

const fixture = new LadderFixture<OstseeschachServer>();
let ladder: Ladder | null = null;
let store: LadderStore | null = null;
let records: RecordStore | null = null;
const sockets: Socket[] = [];
const wireSeen: string[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await fixture.close();
  ladder = store = records = null;
  wireSeen.length = 0;
});

async function open(settings: Partial<LadderSettings> = {}, softTimeoutMs = 2000): Promise<{ entries: RosterEntry[]; port: number }> {
  const o = await fixture.open(
    async (r) => {
      // Every wire line the record store is given (a connection's lines outside a game too).
      const add = r.addWire.bind(r);
      r.addWire = (e) => {
        wireSeen.push(e.data);
        add(e);
      };
      // A short join timeout: a client waiting for its ladder game must not be closed by it.
      const s = createOstseeschachServer({ port: 0, log: silentLogger, store: r, seed: 'liga', joinTimeoutMs: 400, softTimeoutMs, hardTimeoutMs: Math.max(10_000, 4 * softTimeoutMs) });
      await s.start();
      return s;
    },
    (l, s) => {
      const table = new OstseeschachLadderTable(l, s, { log: silentLogger });
      s.setLadder(table);
      return table;
    },
    settings,
  );
  ({ ladder, store, records } = o);
  return { entries: o.entries, port: o.server.port };
}

/** Our client as a student's: `bot ostseeschach -r <reservation>`, in-process. */
function play(port: number, reservation: string, bot: Bot): Promise<ClientOutcome> {
  return playOnServer({ host: '127.0.0.1', port, join: { kind: 'prepared', reservationCode: reservation }, bot, budgetMs: 200, seed: reservation });
}

/** A raw connection: what the server sent so far, and a wait for more. */
async function raw(port: number): Promise<{ socket: Socket; text: () => string; waitFor: (re: RegExp) => Promise<string> }> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    socket,
    text: () => text,
    waitFor: async (re) => {
      await expect.poll(() => re.test(text), { timeout: 5000 }).toBe(true);
      return text;
    },
  };
}

describe('Die Liga on Ostseeschach', () => {
  it('pairs two reservations with each other: one room, both names in the result and the record, ratings move the right way', async () => {
    const { entries, port } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    // The official client sends the code as it was given; the ladder reads it in any case.
    const [a, b] = await Promise.all([play(port, anna.reservation.toUpperCase(), greedyBot), play(port, ben.reservation, randomBot)]);
    expect(a.errors).toEqual([]);
    expect(a.roomId).not.toBeNull();
    expect(b.roomId).toBe(a.roomId);
    expect(a.result).not.toBeNull();
    expect(a.result!.scores.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller']);
    await ladder!.settled();
    const games = await store!.listGames({ game: 'ostseeschach' });
    expect(games).toHaveLength(1);
    const g = games[0]!;
    expect(g.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller']);
    expect(g.recordId).not.toBeNull();
    const record = records!.getMatch(g.recordId!);
    expect(record?.seats.map((s) => s.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller']);
    expect(record?.status).toBe('finished');
    // The ladder's seat 0 is ONE, and the result agrees with the client's Siegpunkte.
    const annaSeat = g.seats.find((s) => s.name === 'Anna Schmidt')!;
    expect(annaSeat.score).toBe(a.points === 2 ? 1 : a.points === 1 ? 0.5 : 0);
    for (const s of g.seats) {
      const moved = s.after.rating - s.before.rating;
      if (s.score === 1) expect(moved).toBeGreaterThan(0);
      else if (s.score === 0) expect(moved).toBeLessThan(0);
      expect(s.after.games).toBe(1);
    }
    const season = await store!.currentSeason('ostseeschach');
    expect((await store!.standings('ostseeschach', season.id)).map((r) => r.entry.name).sort()).toEqual(['Anna Schmidt', 'Ben Müller']);
    // The codes are the students' secrets: the record store (public in the dashboard) never gets them.
    const redeemed = wireSeen.filter((d) => d.includes('joinPrepared'));
    expect(redeemed).toHaveLength(2);
    for (const d of redeemed) expect(d).toContain('reservationCode="(Liga-Code)"');
    for (const code of [anna.reservation, ben.reservation]) expect(wireSeen.join('\n').toLowerCase()).not.toContain(code.toLowerCase());
  }, 15_000);

  it('rates a strong client above a weak one within four games, colours balanced', async () => {
    // A quick wait, so a window that widens as fast as a 10 s wait would let it (ratings part after one game).
    const { entries, port } = await open({ houseAfterMs: 1200, widenPerSecond: 1000 });
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    for (let i = 0; i < 4; i++) await Promise.all([play(port, anna.reservation, greedyBot), play(port, ben.reservation, randomBot)]);
    await ladder!.settled();
    const season = (await store!.currentSeason('ostseeschach')).id;
    const games = await store!.listGames({ game: 'ostseeschach' });
    expect(games).toHaveLength(4);
    expect(games.every((g) => g.seats.every((s) => s.side.kind === 'entry'))).toBe(true);
    const strong = (await store!.getRating('ostseeschach', season, anna.id))!;
    const weak = (await store!.getRating('ostseeschach', season, ben.id))!;
    expect(strong.games).toBe(4);
    expect(strong.rating).toBeGreaterThan(weak.rating + 100);
    // Each played ONE (seat 0, first to move) twice.
    expect(await store!.seatCounts('ostseeschach', season, anna.id)).toEqual([2, 2]);
  }, 15_000);

  it('gives ten reservations arriving at random times their games, none waiting much past the house wait, each rated once', async () => {
    const { port } = await open({ houseAfterMs: 1500 });
    const all = await tenStudents(store!, ladder!);
    const rng = Rng.seeded('arrivals');
    const waits: number[] = [];
    const outcomes = await Promise.all(
      all.map(async (entry, i) => {
        await new Promise((r) => setTimeout(r, rng.int(0, 1000)));
        const asked = Date.now();
        let joined = false;
        const r = await playOnServer({
          host: '127.0.0.1',
          port,
          join: { kind: 'prepared', reservationCode: entry.reservation },
          bot: i % 2 === 0 ? greedyBot : randomBot,
          budgetMs: 200,
          seed: entry.reservation,
          onPacket: (p) => {
            if (p.type === 'joined' && !joined) {
              joined = true;
              waits.push(Date.now() - asked);
            }
          },
        });
        return { entry, r };
      }),
    );
    for (const { entry, r } of outcomes) {
      expect(r.errors, entry.name).toEqual([]);
      expect(r.roomId, entry.name).not.toBeNull();
      expect(r.result, entry.name).not.toBeNull();
      expect(r.result!.scores.map((s) => s.name), entry.name).toContain(entry.name);
    }
    expect(waits).toHaveLength(10);
    // The house wait, the pairing tick and a loaded machine's slack.
    expect(Math.max(...waits)).toBeLessThan(1500 + 3000);
    await ladder!.settled();
    const season = (await store!.currentSeason('ostseeschach')).id;
    for (const entry of all) expect((await store!.getRating('ostseeschach', season, entry.id))?.games, entry.name).toBe(1);
    // Every game is counted once: ten seats of students in all, each student in exactly one game.
    const games = await store!.listGames({ game: 'ostseeschach' });
    const seats = games.flatMap((g) => g.seats.filter((s) => s.side.kind === 'entry').map((s) => s.name));
    expect(seats.sort()).toEqual(all.map((e) => e.name).sort());
    for (const g of games) {
      expect(g.recordId).not.toBeNull();
      for (const s of g.seats) {
        if (s.side.kind === 'house') expect(s.after).toEqual(s.before);
        else if (s.score === 1) expect(s.after.rating).toBeGreaterThan(s.before.rating);
        else if (s.score === 0) expect(s.after.rating).toBeLessThan(s.before.rating);
      }
    }
  }, 60_000);

  const langs = [
    { lang: 'c', tool: 'cc' },
    { lang: 'java', tool: 'javac' },
    { lang: 'python', tool: 'python3' },
  ].filter((l) => has(l.tool));
  it.skipIf(langs.length === 0)('plays the course clients (C, Java, Python) unchanged with their reservations: paired, exit 0, rated by the rules', async () => {
    // The house wait long enough for the clients to find each other; a roomier move time for a cold JVM.
    const { entries, port } = await open({ houseAfterMs: 4000 }, 5000);
    const dir = mkdtempSync(join(tmpdir(), 'liga-os-clients-'));
    try {
      cpSync(resolvePath(import.meta.dirname, '../fixtures/tournament/clients/ostseeschach'), dir, { recursive: true });
      const runs = langs.map(({ lang }, i) => {
        const code = entries[i]!.reservation;
        const args = ['-h', '127.0.0.1', '-p', String(port), '-r', code, '-s', String(7 + i)];
        if (lang === 'c') {
          expect(spawnSync('cc', ['-O2', '-o', 'client', 'client.c'], { cwd: join(dir, 'c') }).status).toBe(0);
          return runProgram('./client', args, join(dir, 'c'));
        }
        if (lang === 'java') {
          expect(spawnSync('javac', ['-J-XX:TieredStopAtLevel=1', 'Client.java'], { cwd: join(dir, 'java') }).status).toBe(0);
          return runProgram('java', ['-cp', '.', 'Client', ...args], join(dir, 'java'));
        }
        return runProgram('python3', ['client.py', ...args], join(dir, 'python'));
      });
      // With one course client only, our bot is its opponent.
      const ours = langs.length === 1 ? play(port, entries[2]!.reservation, randomBot) : null;
      const done = await Promise.all(runs);
      const all = done.map((d) => d.out).join('\n');
      done.forEach((d, i) => {
        expect(d.code, `${langs[i]!.lang}: ${d.out}`).toBe(0);
        expect(d.out, langs[i]!.lang).toMatch(/^game over after turn \d+: I am (ONE|TWO), winner (ONE|TWO|none)$/m);
      });
      if (ours !== null) expect((await ours).errors).toEqual([]);
      await ladder!.settled();
      const games = await store!.listGames({ game: 'ostseeschach' });
      const players = langs.length === 1 ? 2 : langs.length;
      const season = (await store!.currentSeason('ostseeschach')).id;
      for (const e of entries.slice(0, players)) expect((await store!.getRating('ostseeschach', season, e.id))?.games, all).toBe(1);
      // At least one game between two of them (the third, if any, may have had the house bot).
      expect(games.filter((g) => g.seats.every((s) => s.side.kind === 'entry')).length, all).toBeGreaterThanOrEqual(1);
      for (const g of games) {
        expect(records!.getMatch(g.recordId!)?.status).toBe('finished');
        // By the rules: a loss is on the board, never a timeout, a rule violation or a protocol error.
        for (const s of g.seats) if (s.reason !== null) expect(s.reason.kind, all).toBe('played');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('gives a reservation that waits alone a house bot after the wait, rated against the bot’s fixed anchor', async () => {
    const { entries, port } = await open({ houseAfterMs: 700 });
    const cem = entries[2]!;
    const started = Date.now();
    const r = await play(port, cem.reservation, randomBot);
    expect(r.errors).toEqual([]);
    expect(r.result).not.toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    await ladder!.settled();
    const [g] = await store!.listGames({ entryId: cem.id });
    const house = g!.seats.find((s) => s.side.kind === 'house')!;
    expect(house.after).toEqual(house.before);
    // A fresh rating of 1500 gets the house level nearest to it: the engine at 100 ms a move.
    expect(house.side).toEqual({ kind: 'house', level: 'engine-fast' });
    expect(r.result!.scores.map((s) => s.name)).toContain('Engine (100 ms per move)');
    const student = g!.seats.find((s) => s.side.kind === 'entry')!;
    // Random against the engine: lost on the board, and said so.
    if (student.score === 0) expect(student.reason).toEqual({ kind: 'played' });
    expect(records!.getMatch(g!.recordId!)?.status).toBe('finished');
  }, 15_000);

  it('refuses a revoked code and a second connection of a waiting code with words, and leaves other codes to the protocol', async () => {
    const { entries, port } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    await store!.revoke(ben.id, Date.now());
    await ladder!.reload();
    const join = (code: string): string => `<protocol><joinPrepared reservationCode="${code}"/>`;

    const revoked = await raw(port);
    revoked.socket.write(join(ben.reservation));
    await revoked.waitFor(/<\/errorpacket>/);
    expect(revoked.text()).toBe(
      '<protocol>\n  <errorpacket message="sc.server.gaming.UnknownReservationException: Liga: this code was revoked; ask your tutor for a new one">' +
        `\n    <originalRequest class="joinPrepared" reservationCode="${ben.reservation}"/>\n  </errorpacket>`,
    );

    const first = await raw(port);
    first.socket.write(join(anna.reservation));
    await expect.poll(() => ladder!.live()[0]!.waiting.length).toBe(1);
    const second = await raw(port);
    second.socket.write(join(anna.reservation));
    await second.waitFor(/<\/errorpacket>/);
    expect(second.text()).toContain('message="sc.server.gaming.UnknownReservationException: Liga: this code already has a ladder game waiting or running"');
    // The waiting client gets nothing, and its join timeout (400 ms here) does not close it.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(first.text()).toBe('');
    expect(first.socket.readableEnded).toBe(false);
    expect(ladder!.live()[0]!.waiting).toHaveLength(1);
    // When it leaves, it leaves the queue.
    first.socket.destroy();
    await expect.poll(() => ladder!.live()[0]!.waiting.length).toBe(0);

    // Any other code is no ladder code: the official answer, as before, and the connection stays.
    const other = await raw(port);
    other.socket.write(join(randomUUID()));
    await other.waitFor(/<\/errorpacket>/);
    expect(other.text()).toContain('message="sc.server.gaming.UnknownReservationException: Couldn&apos;t find a reservation for the provided token."');
    other.socket.write('<join/>');
    await other.waitFor(/<joined roomId=/);
  }, 15_000);
});

describe('Die Liga on Ostseeschach in serve', () => {
  it('opens the door on the served Ostseeschach server when ladder.games names it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-ladder-os-'));
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      dataDir,
      bots: false,
      web: { ...DEFAULT_SETTINGS.web, port: 0 },
      games: { ...DEFAULT_SETTINGS.games, ostseeschach: { ...DEFAULT_SETTINGS.games.ostseeschach, port: 0 } },
      ladder: { ...DEFAULT_SETTINGS.ladder, enabled: true, games: ['ostseeschach'], houseAfterSeconds: 1 },
    };
    const running = await serve(settings, ['ostseeschach'], silentLogger);
    try {
      const liga = running.ladder!;
      expect(liga.games).toEqual(['ostseeschach']);
      const [dora] = await liga.store.addEntries([{ name: 'Dora Weiß', group: '' }], Date.now());
      await liga.reload();
      const r = await play(running.servers[0]!.info().port, dora!.reservation, randomBot);
      expect(r.errors).toEqual([]);
      expect(r.result?.scores.map((s) => s.name)).toContain('Dora Weiß');
      await liga.settled();
      expect(await liga.store.listGames({ game: 'ostseeschach' })).toHaveLength(1);
    } finally {
      await running.lifecycle.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 15_000);
});

describe('the result of a ladder room', () => {
  const score = (team: 'ONE' | 'TWO', cause: ScoreEntry['cause'], points: number, reason = ''): ScoreEntry => ({ team, name: team, cause, reason, parts: [points, 0, 0] });
  const row = (winner: 'ONE' | 'TWO' | null, scores: ScoreEntry[]): OstseeschachResultRow =>
    ({ roomId: 'r', matchId: 'm', endedAt: 0, turn: 10, winner, scores, layout: '', board: null }) as unknown as OstseeschachResultRow;

  it('scores each way a game ends, with the loser’s reason in words', () => {
    expect(ostseeschachOutcome(row('ONE', [score('ONE', 'REGULAR', 2), score('TWO', 'REGULAR', 0)]))).toEqual({ scores: [1, 0], reasons: [null, { kind: 'played' }], recordId: 'm' });
    expect(ostseeschachOutcome(row(null, [score('ONE', 'REGULAR', 1), score('TWO', 'REGULAR', 1)])).scores).toEqual([0.5, 0.5]);
    // A timeout has no <winner>: the Siegpunkte decide.
    const timeout = ostseeschachOutcome(row(null, [score('ONE', 'SOFT_TIMEOUT', 0, 'Der Spieler hat innerhalb von 2 Sekunden nach Aufforderung keinen Zug gesendet'), score('TWO', 'REGULAR', 2)]));
    expect(timeout.scores).toEqual([0, 1]);
    expect(timeout.reasons[0]).toMatchObject({ kind: 'timeout' });
    const invalid = ostseeschachOutcome(row('ONE', [score('ONE', 'REGULAR', 2), score('TWO', 'RULE_VIOLATION', 0, "Kann nicht auf ein Feld der eigenen Farbe ziehen bei Zug 'Zug von [1|2] zu [2|2]'")]));
    expect(invalid.reasons[1]).toEqual({
      kind: 'invalid-move',
      detail: "Kann nicht auf ein Feld der eigenen Farbe ziehen bei Zug 'Zug von [1|2] zu [2|2]'",
      rule: 'the rules (specs/ostseeschach.md §2): no piece may move onto a square held by its own colour',
    });
    const protocol = ostseeschachOutcome(row('TWO', [score('ONE', 'LEFT', 0, 'Der Spieler hat das Spiel verlassen: PROTOCOL_ERROR'), score('TWO', 'REGULAR', 2)]));
    expect(protocol.reasons[0]).toMatchObject({ kind: 'protocol', command: OSTSEESCHACH_CHECK_COMMAND });
    const gone = ostseeschachOutcome(row('TWO', [score('ONE', 'LEFT', 0, 'Der Spieler hat das Spiel verlassen: LOST_CONNECTION'), score('TWO', 'REGULAR', 2)]));
    expect(gone.reasons[0]).toMatchObject({ kind: 'disconnect' });
  });

  it('has a player for every house level', () => {
    expect(Object.keys(OSTSEESCHACH_HOUSE_PLAYERS).sort()).toEqual(HOUSE_LEVELS.ostseeschach.map((l) => l.id).sort());
  });

  it('does not rate a room that closed without a result or that an administrator cancelled', () => {
    expect(ostseeschachOutcome(row(null, [])).scores).toBeNull();
    expect(ostseeschachOutcome(row(null, [score('ONE', 'REGULAR', 0), score('TWO', 'REGULAR', 0)])).scores).toBeNull();
  });
});
