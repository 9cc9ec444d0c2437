import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { verifyDameMatch } from '../../../src/games/dame/replay.js';
import { createDameServer, type DameServer, type DameServerOptions } from '../../../src/games/dame/server.js';
import { parseTranscript, RawClient, runTranscript, Signals } from './raw-client.js';

/** Spec §2.7 over real TCP on 127.0.0.1, both sides, byte-exact and grouped as §2.6 says. */

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/dame/${name}`, import.meta.url));

let server: DameServer | null = null;
let store: RecordStore | null = null;
const clients: RawClient[] = [];

async function serve(options: Partial<DameServerOptions> = {}): Promise<DameServer> {
  store = new RecordStore(':memory:');
  server = createDameServer({ port: 0, log: silentLogger, store, ...options });
  await server.start();
  return server;
}

async function open(port: number): Promise<RawClient> {
  const c = await RawClient.open(port);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.stop();
  store?.close();
  server = null;
  store = null;
});

describe('the §2.7 example transcript', () => {
  it('is reproduced exactly for player 0 and player 1 of one game', async () => {
    const s = await serve({ motdDelayMs: 300 });
    s.createGame({ id: 'k3x9q2m7a1b5c', name: 'Game from 2024-01-15 10:00' });
    const signals = new Signals();
    const black = parseTranscript(fixture('transcript-player1.txt'));
    const white = parseTranscript(fixture('transcript-player0.txt'));
    const runBlack = (async () => runTranscript(await open(s.port), black, signals))();
    const runWhite = (async () => {
      // White connects once Black sits in its WAIT loop ("Black connected first").
      let i = 0;
      for (; white[i]?.kind === 'await'; i++) {
        const step = white[i]!;
        if (step.kind === 'await') await signals.wait(step.name);
      }
      await runTranscript(await open(s.port), white.slice(i), signals);
    })();
    await Promise.all([runBlack, runWhite]);

    const [record] = store!.listMatches({ game: 'dame' });
    expect(record?.result).toMatchObject({ winner: 0, reason: 'timeout' });
    expect(record?.seats.map((x) => x.kind)).toEqual(['client', 'client']);
    const detail = store!.getMatch(record!.id)!;
    expect(detail.events.map((e) => (e.data as { move: string }).move)).toEqual(['C3:D4', 'F6:E5', 'D4:F6', 'G3:H4']);
    // The whole conversation is in the record, prolog included, for both connections.
    expect(detail.wire.filter((w) => w.data === 'ID k3x9q2m7a1b5c')).toHaveLength(2);
    expect(detail.wire.some((w) => w.dir === 'out' && w.data === '- TIMEOUT Be faster next time')).toBe(true);
    expect(verifyDameMatch(detail)).toEqual({ checked: true, problems: [] });
    // §2.6 on the server's clock: ≥ 50 ms between two groups with no client line between them.
    const whiteConn = detail.wire.find((w) => w.data === 'PLAYER 0')!.conn;
    const out = (line: string): number[] => detail.wire.filter((w) => w.conn === whiteConn && w.dir === 'out' && w.data === line).map((w) => w.at);
    expect(out('+ MOVE 3000')[0]! - out('+ ENDPLAYERS')[0]!).toBeGreaterThanOrEqual(50);
    expect(out('+ MOVE 3000')[2]! - out('+ MOVEOK')[1]!).toBeGreaterThanOrEqual(50);
    expect(out('+ Welcome to the Dame server')[0]! - out('+ MNM Gameserver v3.1 accepting connections')[0]!).toBeGreaterThanOrEqual(290);
  }, 20_000);
});

describe('protocol modes', () => {
  it('auto: a v2 client that speaks at once gets no MOTD', async () => {
    const s = await serve({ motdDelayMs: 400 });
    const c = await open(s.port);
    expect(await c.nextGroup()).toEqual(['+ MNM Gameserver v3.1 accepting connections']);
    c.send('VERSION 2.1');
    expect(await c.nextGroup()).toEqual(['+ Client version accepted - please send Game-ID to join']);
    c.send('ID abcdefghijklm');
    expect(await c.nextGroup()).toEqual(['+ PLAYING Checkers', expect.stringMatching(/^\+ Game from \d{4}-\d\d-\d\d \d\d:\d\d$/) as string]);
    c.send('PLAYER');
    expect(await c.nextGroup()).toEqual(['+ YOU 0 White Player', '+ TOTAL 2', '+ 1 Black Player 0', '+ ENDPLAYERS']);
    await new Promise((r) => setTimeout(r, 500));
    expect(c.lines.some((l) => l.includes('Welcome'))).toBe(false);
  });

  it('auto: a v3 client that waits gets the MOTD after 2 s of silence (default timing)', async () => {
    const s = await serve();
    const c = await open(s.port);
    const greeting = await c.nextGroup();
    const greetingAt = c.chunks[0]!.at;
    expect(greeting).toEqual(['+ MNM Gameserver v3.1 accepting connections']);
    expect(await c.nextGroup(4000)).toEqual(['+ Welcome to the Dame server']);
    const delay = c.chunks[1]!.at - greetingAt;
    expect(delay).toBeGreaterThanOrEqual(1950);
    expect(delay).toBeLessThan(3000);
    c.send('VERSION 3.12');
    expect(await c.nextGroup()).toEqual(['+ Client version accepted - please send Game-ID to join']);
  });

  it('auto accepts majors 2 and 3 only', async () => {
    const s = await serve({ motdDelayMs: 100 });
    for (const [version, ok] of [['2', true], ['3.1', true], ['1.0', false], ['4.0', false], ['x', false], ['', false]] as const) {
      const c = await open(s.port);
      await c.next();
      c.send(`VERSION ${version}`.trim());
      const answer = await c.waitFor(/^[+-] (Client|Welcome)/);
      const line = answer.includes('Welcome') ? await c.next() : answer;
      expect(line, version).toBe(ok ? '+ Client version accepted - please send Game-ID to join' : '- Client Version does not match server Version');
      if (!ok) await c.closed();
    }
  });

  it('v3 mode sends the MOTD right away (its own write) and accepts major 3 only', async () => {
    const s = await serve({ mode: 'v3' });
    const c = await open(s.port);
    expect(await c.nextGroup()).toEqual(['+ MNM Gameserver v3.1 accepting connections']);
    expect(await c.nextGroup(1000)).toEqual(['+ Welcome to the Dame server']);
    expect(c.chunks[1]!.at - c.chunks[0]!.at).toBeGreaterThanOrEqual(40);
    expect(c.chunks[1]!.at - c.chunks[0]!.at).toBeLessThan(1000);
    c.send('VERSION 2.3');
    expect(await c.nextGroup()).toEqual(['- Client Version does not match server Version']);
    await c.closed();
  });

  it('v2 mode never sends a MOTD and accepts major 2 only', async () => {
    const s = await serve({ mode: 'v2', motdDelayMs: 100 });
    const c = await open(s.port);
    expect(await c.nextGroup()).toEqual(['+ MNM Gameserver v2.3 accepting connections']);
    await new Promise((r) => setTimeout(r, 300));
    expect(c.lines).toHaveLength(1);
    c.send('VERSION 2.4');
    expect(await c.nextGroup()).toEqual(['+ Client version accepted - please send Game-ID to join']);
    const d = await open(s.port);
    await d.next();
    d.send('VERSION 3.1');
    expect(await d.nextGroup()).toEqual(['- Client Version does not match server Version']);
    await d.closed();
  });
});
