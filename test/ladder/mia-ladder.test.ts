import { spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import type { RecordStore } from '../../src/core/records.js';
import { createBot, type MiaStrategy } from '../../src/games/mia/bots/index.js';
import { MiaClient } from '../../src/games/mia/client.js';
import { renameForRecipient } from '../../src/games/mia/protocol.js';
import { MIA_DEFAULTS, MiaServer } from '../../src/games/mia/server.js';
import type { Ladder, LadderSettings } from '../../src/ladder/ladder.js';
import { MiaLadderTable, miaNames, miaOutcome } from '../../src/ladder/mia.js';
import type { LadderStore } from '../../src/ladder/store.js';
import type { LadderGameRecord, RosterEntry } from '../../src/ladder/types.js';
import { has, LadderFixture, tenStudents } from './fixture.js';

/**
 * Die Liga on Mia (issue 34): a client registers at the Liga port with its ladder code as its
 * name, unchanged, and stays registered; the ladder groups the waiting clients, each group plays a
 * rated game of a few rounds at a table of its own, and then waits again. Everybody plays under
 * a public name; each client sees its own public name as its code, nobody sees another's code,
 * and the records (public) hold none. A name that is no code, a revoked code, and a code
 * registered from a second machine are refused.
 */

const fixture = new LadderFixture<MiaServer>();
let ladder: Ladder | null = null;
let store: LadderStore | null = null;
let records: RecordStore | null = null;
const bots: MiaClient[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.stop()));
  for (const s of sockets.splice(0)) s.close();
  await fixture.close();
  ladder = store = records = null;
});

async function open(settings: Partial<LadderSettings> = {}, answerTimeoutMs = 150): Promise<{ entries: RosterEntry[]; port: number }> {
  let table: MiaLadderTable | null = null;
  const o = await fixture.open(
    async (r) => {
      const server = new MiaServer({ ...MIA_DEFAULTS, host: '127.0.0.1', port: 0, waitRecheckMs: 50, startEarly: true, answerTimeoutMs, seed: 'liga', log: silentLogger, store: r });
      await server.start();
      return server;
    },
    (l, server) => (table = new MiaLadderTable(l, server, { log: silentLogger, rounds: 6 })),
    settings,
  );
  ({ ladder, store, records } = o);
  const port = await table!.open(0);
  return { entries: o.entries, port };
}

/** A bot registered with `code`, every datagram it received kept. */
async function bot(port: number, code: string, strategy: MiaStrategy): Promise<{ client: MiaClient; lines: string[] }> {
  const lines: string[] = [];
  const client = new MiaClient({ host: '127.0.0.1', port, name: code, bot: createBot(strategy, code), onMessage: (l) => lines.push(l) });
  bots.push(client);
  await client.start();
  return { client, lines };
}

async function gamesOf(count: number, timeoutMs = 20_000, enough = (games: LadderGameRecord[]) => games.length >= count): Promise<LadderGameRecord[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await ladder!.settled();
    const games = await store!.listGames({ game: 'mia' });
    if (enough(games) || Date.now() > until) return games;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends one datagram from `from` (a loopback address) and waits for the first answer. */
async function ask(port: number, line: string, from = '127.0.0.1'): Promise<string> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, from, resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${line}`)), 3000);
    socket.once('message', (m) => {
      clearTimeout(timer);
      resolve(m.toString());
    });
    socket.send(line, port, '127.0.0.1');
  });
}

describe('Die Liga on Mia', () => {
  it('shows each recipient its own public name as its code, and only there', () => {
    const r = (line: string): string => renameForRecipient(line, 'Ben_Mueller', 'abcdefghij123');
    expect(r('ROUND STARTED;3;Ben_Mueller,Anna')).toBe('ROUND STARTED;3;abcdefghij123,Anna');
    expect(r('ANNOUNCED;Ben_Mueller;6,5')).toBe('ANNOUNCED;abcdefghij123;6,5');
    expect(r('ANNOUNCED;Anna;6,5')).toBe('ANNOUNCED;Anna;6,5');
    expect(r('PLAYER ROLLS;Ben_Mueller')).toBe('PLAYER ROLLS;abcdefghij123');
    expect(r('PLAYER WANTS TO SEE;Ben_Mueller')).toBe('PLAYER WANTS TO SEE;abcdefghij123');
    // Lists of names stay sorted by name (decision 1), with the code in its place.
    expect(r('PLAYER LOST;Anna,Ben_Mueller,Zoe;MIA')).toBe('PLAYER LOST;Anna,Zoe,abcdefghij123;MIA');
    expect(r('SCORE;Anna:2,Ben_Mueller:1,Zoe:0')).toBe('SCORE;Anna:2,Zoe:0,abcdefghij123:1');
    // Nothing else is touched: the reason, dice, tokens.
    expect(r('PLAYER LOST;Anna;SEE_FAILED')).toBe('PLAYER LOST;Anna;SEE_FAILED');
    expect(r('YOUR TURN;Ben_Mueller')).toBe('YOUR TURN;Ben_Mueller');
    expect(r('ROUND CANCELED;ONLY_ONE_PLAYER')).toBe('ROUND CANCELED;ONLY_ONE_PLAYER');
  });

  it('names the seats as valid Mia names, each once, none in the shape of a code', () => {
    expect(miaNames(['Ben Müller', 'Anna Schmidt', 'Anna Schmidt'])).toEqual(['Ben_Mueller', 'Anna_Schmidt', 'Anna_Schmidt~2']);
    expect(miaNames(['abcdefghij123'])).toEqual(['abcdefghij123_']);
    expect(miaNames(['Cem Yılmaz;x,y:z'])[0]).toMatch(/^[\x21-\x7e]{1,20}$/);
    expect(miaNames(['Cem Yılmaz;x,y:z'])[0]).not.toMatch(/[;,:]/);
    expect(miaNames(['Maximiliane Mustermann-Schulze'])[0]!.length).toBeLessThanOrEqual(20);
  });

  it('places a game by its points, a seat that joined no round last, with the reasons', () => {
    const o = miaOutcome({ points: [4, 2, 4, 0], joined: [6, 6, 6, 0], timeouts: [0, 2, 0, 0], left: [false, false, false, false], recordId: 'm1', aborted: null });
    expect(o.scores).toEqual([1, 3, 1, 4]);
    expect(o.reasons[0]).toBeNull();
    expect(o.reasons[1]).toMatchObject({ kind: 'timeout' });
    expect(o.reasons[3]).toMatchObject({ kind: 'disconnect' });
    expect(miaOutcome({ points: [1, 1], joined: [1, 1], timeouts: [0, 0], left: [false, false], recordId: null, aborted: 'server stopped' }).scores).toBeNull();
  });

  it('plays three codes in rated games, again and again, and no datagram or record shows another’s code', async () => {
    const { entries, port } = await open();
    const [anna, ben, cem] = entries as [RosterEntry, RosterEntry, RosterEntry];
    const players = await Promise.all([bot(port, anna.code, 'adaptive'), bot(port, ben.code, 'adaptive'), bot(port, cem.code, 'random')]);
    const games = await gamesOf(2);
    expect(games.length).toBeGreaterThanOrEqual(2);
    const names = new Set(games.flatMap((g) => g.seats.map((s) => s.name)));
    expect([...names].sort()).toEqual(['Anna Schmidt', 'Ben Müller', 'Cem Yılmaz']);
    for (const g of games) {
      expect(g.seats.every((s) => s.side.kind === 'entry')).toBe(true);
      for (const s of g.seats) expect(s.after.rating).not.toBe(s.before.rating);
    }
    // Every client played and still is registered between games.
    for (const p of players) {
      expect(p.client.stats.rounds).toBeGreaterThan(0);
      expect(p.client.isRegistered).toBe(true);
    }
    // Each one found itself by its code; nobody ever saw anyone else's.
    const codes = [anna.code, ben.code, cem.code];
    players.forEach((p, i) => {
      const all = p.lines.join('\n');
      expect(all).toContain(`;${codes[i]}`);
      for (const [j, code] of codes.entries()) if (j !== i) expect(all).not.toContain(code);
      // The others by their public names.
      expect(p.lines.some((l) => l.startsWith('ROUND STARTED;') && /Anna_Schmidt|Ben_Mueller|Cem_Y_lmaz/.test(l))).toBe(true);
    });
    // The public records of the rounds: public names, no codes.
    const record = records!.getMatch(games[0]!.recordId!);
    expect(record).not.toBeNull();
    const text = JSON.stringify(record);
    for (const code of codes) expect(text).not.toContain(code);
    expect(text).toMatch(/Anna_Schmidt|Ben_Mueller|Cem_Y_lmaz/);
  }, 40_000);

  it('plays ten codes at once: every one gets games, and the adaptive bots rise above the random ones', async () => {
    const { port } = await open();
    const all = await tenStudents(store!, ladder!);
    // Five adaptive, five random, registering at random moments within half a second.
    const strategy = (i: number): MiaStrategy => (i % 2 === 0 ? 'adaptive' : 'random');
    await Promise.all(all.map(async (e, i) => {
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 500)));
      await bot(port, e.code, strategy(i));
    }));
    const season = (await store!.currentSeason('mia')).id;
    const ratings = async () => Promise.all(all.map(async (e) => (await store!.getRating('mia', season, e.id)) ?? null));
    const until = Date.now() + 60_000;
    let r = await ratings();
    while (Date.now() < until && r.some((x) => x === null || x.games < 6)) {
      await new Promise((res) => setTimeout(res, 200));
      await ladder!.settled();
      r = await ratings();
    }
    expect(r.every((x) => x !== null && x.games >= 6)).toBe(true);
    const mean = (k: number): number => r.filter((_, i) => i % 2 === k).reduce((sum, x) => sum + x!.rating, 0) / 5;
    expect(mean(0)).toBeGreaterThan(mean(1));
  }, 90_000);

  it.skipIf(!has('cc') || !has('javac') || !has('python3'))('plays the course clients (C, Java, Python) unchanged, each finding itself by its code, until their codes are revoked', async () => {
    // The course's answer time, roomier: a cold JVM's first answers on a loaded machine.
    const { entries, port } = await open({ houseAfterMs: 3000 }, 1000);
    const dir = mkdtempSync(path.join(tmpdir(), 'liga-mia-clients-'));
    try {
      const source = path.resolve(import.meta.dirname, '../fixtures/tournament/clients/mia');
      cpSync(source, dir, { recursive: true });
      expect(spawnSync('cc', ['-O2', '-o', 'client', 'client.c'], { cwd: path.join(dir, 'c') }).status).toBe(0);
      expect(spawnSync('javac', ['Client.java'], { cwd: path.join(dir, 'java') }).status).toBe(0);
      const commands: [string, string[], string][] = [
        ['./client', [], 'c'],
        ['java', ['-cp', '.', 'Client'], 'java'],
        ['python3', ['client.py'], 'python'],
      ];
      const runs = commands.map(([cmd, args, sub], i) => {
        const child = spawn(cmd, [...args, '127.0.0.1', String(port), entries[i]!.code], { cwd: path.join(dir, sub), stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        return { child, out: () => out, exit: new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))) };
      });
      try {
        const season = (await store!.currentSeason('mia')).id;
        const until = Date.now() + 40_000;
        const rated = async (): Promise<number[]> => Promise.all(entries.map(async (e) => (await store!.getRating('mia', season, e.id))?.games ?? 0));
        while ((await rated()).some((n) => n < 1) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
        expect((await rated()).every((n) => n >= 1), runs.map((r) => r.out()).join('\n')).toBe(true);
        // Revoked, each is unregistered after its game: the course clients then exit 0 with their tally.
        for (const e of entries) await store!.revoke(e.id, Date.now());
        await ladder!.reload();
        const codes = await Promise.all(runs.map((r) => Promise.race([r.exit, new Promise<'hung'>((res) => setTimeout(() => res('hung'), 20_000))])));
        runs.forEach((r, i) => {
          const out = r.out();
          expect(codes[i], out).toBe(0);
          const tally = /^done (\S+) rounds=(\d+) turns=(\d+) score=(\d+)$/m.exec(out);
          expect(tally, out).not.toBeNull();
          expect(tally![1]).toBe(entries[i]!.code);
          expect(Number(tally![2])).toBeGreaterThan(0);
          for (const [j, e] of entries.entries()) if (j !== i) expect(out).not.toContain(e.code);
        });
        // Course clients answer in time and by the rules: a lower place is the game's, not a fault.
        const games = await store!.listGames({ game: 'mia' });
        for (const g of games) for (const seat of g.seats) if (seat.reason !== null) expect(seat.reason.kind).toBe('played');
      } finally {
        for (const r of runs) r.child.kill('SIGKILL');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('gives a code that waits alone a house bot after the wait, anchored', async () => {
    const { entries, port } = await open({ houseAfterMs: 300 });
    const cem = entries[2]!;
    const me = await bot(port, cem.code, 'adaptive');
    const [g] = await gamesOf(1);
    expect(g).toBeDefined();
    expect(g!.seats.map((s) => s.side.kind).sort()).toEqual(['entry', 'house']);
    const house = g!.seats.find((s) => s.side.kind === 'house')!;
    expect(house.after).toEqual(house.before);
    // The house bot has a public name too; its one-time registration name went nowhere.
    expect(me.lines.some((l) => /House_bot/.test(l))).toBe(true);
    expect(me.lines.join('\n')).not.toMatch(/haus[0-9a-f]{16}/);
  }, 30_000);

  it('refuses a name that is no code, a revoked code, a spectator, and a code from a second machine', async () => {
    const { entries, port } = await open();
    const [anna, ben] = entries as [RosterEntry, RosterEntry];
    expect(await ask(port, 'REGISTER;somebody')).toBe('REJECTED;INVALID_NAME');
    expect(await ask(port, 'REGISTER_SPECTATOR;watcher')).toBe('REJECTED;INVALID_NAME');
    await store!.revoke(ben.id, Date.now());
    await ladder!.reload();
    expect(await ask(port, `REGISTER;${ben.code}`)).toBe('REJECTED;INVALID_NAME');
    // Anna is registered; the same code from another machine cannot take her seat.
    await bot(port, anna.code, 'adaptive');
    expect(await ask(port, `REGISTER;${anna.code}`, '127.0.0.2')).toBe('REJECTED;NAME_ALREADY_TAKEN');
    // From her own machine (a restarted client on a new port) she takes it over, as on any Mia server.
    expect(await ask(port, `REGISTER;${anna.code}`)).toBe('REGISTERED');
    expect(await ask(port, 'ECHO;a;b')).toBe('ECHOING;ab');
  }, 20_000);

  it('survives garbage and a client that vanishes mid-game: the others’ game ends and is rated', async () => {
    const { entries, port } = await open();
    const [anna, ben, cem] = entries as [RosterEntry, RosterEntry, RosterEntry];
    const junk = createSocket('udp4');
    sockets.push(junk);
    await new Promise<void>((resolve) => junk.bind(0, '127.0.0.2', resolve));
    for (let i = 0; i < 200; i++) junk.send(Buffer.from([i & 0xff, 0x3b, 0xff, 0x00, 0x0a]), port, '127.0.0.1');
    junk.send('JOIN;x', port, '127.0.0.1');
    junk.send(`REGISTER;${'x'.repeat(5000)}`, port, '127.0.0.1');
    const a = await bot(port, anna.code, 'adaptive');
    await bot(port, ben.code, 'adaptive');
    const c = await bot(port, cem.code, 'random');
    // Cem vanishes as soon as his first game has started (no UNREGISTER: the process is gone).
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (c.lines.some((l) => l.startsWith('ROUND STARTED'))) {
          clearInterval(t);
          resolve();
        }
      }, 5);
    });
    (c.client as unknown as { socket: Socket | null }).socket?.close();
    (c.client as unknown as { socket: Socket | null }).socket = null;
    // He may have joined a round or two of that game before he went: then one more game has him
    // in it (he joins none of it), and after that Anna and Ben play without him.
    const withoutCem = (g: LadderGameRecord): boolean => !g.seats.some((s) => s.name === 'Cem Yılmaz');
    const games = await gamesOf(2, 25_000, (gs) => gs.some(withoutCem));
    for (const g of games.filter((g) => !withoutCem(g))) for (const seat of g.seats) expect(seat.after.games).toBe(seat.before.games + 1);
    const first = games.find((g) => g.seats.some((s) => s.name === 'Cem Yılmaz'))!;
    expect(first).toBeDefined();
    // Anna and Ben go on to a game without him: he joined no round of his last one, so he was unregistered.
    expect(games.some(withoutCem)).toBe(true);
    expect(a.client.isRegistered).toBe(true);
  }, 40_000);

  it('places a client that is gone before its game last, as a disconnect, and unregisters it', async () => {
    const { entries, port } = await open();
    const [anna, , cem] = entries as [RosterEntry, RosterEntry, RosterEntry];
    // Cem registers and is gone at once; Anna comes and is grouped with him.
    expect(await ask(port, `REGISTER;${cem.code}`)).toBe('REGISTERED');
    const a = await bot(port, anna.code, 'adaptive');
    const [g] = await gamesOf(1);
    const seat = (name: string) => g!.seats.find((s) => s.name === name)!;
    expect(seat('Cem Yılmaz').reason).toMatchObject({ kind: 'disconnect' });
    expect(seat('Cem Yılmaz').score).toBe(0);
    expect(seat('Anna Schmidt').score).toBe(1);
    expect(seat('Anna Schmidt').reason).toBeNull();
    // With one player left, every round was called off: ONLY_ONE_PLAYER.
    expect(a.lines.filter((l) => l === 'ROUND CANCELED;ONLY_ONE_PLAYER').length).toBeGreaterThan(0);
    expect(a.client.isRegistered).toBe(true);
  }, 20_000);
});
