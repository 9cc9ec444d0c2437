import { afterEach, describe, expect, it } from 'vitest';
import { CatanClient, randomBot, type ClientResult } from '../../../src/games/catan/client.js';
import { OK, startServer, type TestServer } from './harness.js';

/**
 * The reply to the action that wins the game. Seed §7.1 asks for an OK after every action; the
 * issue read it as "the winning action gets Spiel beendet and a close without the OK". Our
 * specification (catan.md §2.7, D5) pins the order down: the action's messages, `Spiel beendet`,
 * then the OK to the actor as the last line, then the server closes the game's connections. The
 * other players' last line is `Spiel beendet` (docs/catan.md, "Order").
 */

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

describe('the winning action', () => {
  it('is answered with its messages, Spiel beendet with the Sieger, then OK to the winner as the last line, and the connection closes', async () => {
    t = await startServer({ seed: 'game-end' });
    const lines = new Map<string, { dir: 'in' | 'out'; line: string }[]>();
    const clients = ['E 1', 'E 2', 'E 3'].map((name) => {
      const log: { dir: 'in' | 'out'; line: string }[] = [];
      lines.set(name, log);
      return new CatanClient({ host: '127.0.0.1', port: t!.server.port, name, bot: randomBot(name, { policy: 'builder' }), onLine: (dir, line) => log.push({ dir, line }) });
    });
    for (const c of clients) await c.start();
    const results: ClientResult[] = await Promise.all(clients.map((c) => c.done));
    // The server closes every connection of the game once it has written its last lines.
    const deadline = Date.now() + 5000;
    while (!clients.every((c) => c.closed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(clients.map((c) => c.closed)).toEqual([true, true, true]);
    const winner = results.find((r) => r.won);
    expect(winner, 'someone won').toBeDefined();
    const names = ['E 1', 'E 2', 'E 3'];
    for (const [i, r] of results.entries()) {
      const log = lines.get(names[i]!)!;
      const received = log.filter((l) => l.dir === 'in').map((l) => l.line);
      const end = received.findIndex((l) => l.startsWith('{"Spiel beendet"'));
      expect(end, 'Spiel beendet arrived').toBeGreaterThan(0);
      expect(JSON.parse(received[end]!)).toEqual({ 'Spiel beendet': { Nachricht: expect.stringMatching(/ hat das Spiel gewonnen\.$/) as unknown, Sieger: winner!.me } });
      if (r.won) {
        // The winner: OK is the very last line, right after Spiel beendet, and answers its last action.
        expect(received.slice(end + 1)).toEqual([OK]);
        const sentLast = log.findLastIndex((l) => l.dir === 'out');
        const endAt = log.findIndex((l) => l.dir === 'in' && l.line === received[end]);
        expect(sentLast, 'the winning action came before the end').toBeLessThan(endAt);
        // Nothing but the winning action's own messages between it and Spiel beendet: no OK of an earlier action.
        expect(log.slice(sentLast + 1, endAt).some((l) => l.line === OK)).toBe(false);
      } else {
        expect(received.slice(end + 1)).toEqual([]);
      }
    }
  }, 60_000);
});
