import { describe, expect, it } from 'vitest';
import { attack, errorLog, escapes, SERVERS } from './servers.js';

/**
 * The npm-test form of one server's fuzz campaign: a few seconds of generated and mutated
 * messages from 127.0.0.2, then the server must be running, hold nothing of the attacker's
 * connections, have logged no internal error, let nothing escape, and a good client on 127.0.0.1
 * must complete a game. `FUZZ_SEED` and `FUZZ_MS` change the seed and the time.
 */

export const FUZZ_SEED = process.env.FUZZ_SEED ?? 'spielhalle';
const FUZZ_MS = Number(process.env.FUZZ_MS ?? 3000);

export function fuzzServer(name: string, o: { minMessages: number; udpHeld?: number }): void {
  const target = SERVERS[name]!;
  describe(`fuzzing the ${name} server over loopback`, () => {
    it(`stays up under generated and mutated ${target.transport.toUpperCase()} input from 127.0.0.2, and a good client still completes a game`, async () => {
      const { log, errors } = errorLog();
      const escaped = escapes();
      const server = await target.start(log);
      try {
        const stats = await attack(target, server.port, { seed: FUZZ_SEED, maxMs: FUZZ_MS });
        expect(stats.messages).toBeGreaterThanOrEqual(FUZZ_MS >= 1000 ? o.minMessages : 1);
        // No hang: the event loop the server runs on was never blocked for long.
        expect(stats.maxLagMs).toBeLessThan(2000);
        expect(server.status()).toBe('running');
        // What the attacker held is let go once it is gone (Mia keeps a registration per attacker socket).
        const allowed = o.udpHeld ?? 0;
        const deadline = Date.now() + 5000;
        while (server.clients() > allowed && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        expect(server.clients()).toBeLessThanOrEqual(allowed);
        await server.goodGame();
        expect(server.status()).toBe('running');
        expect(escaped.list).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        escaped.remove();
        await server.stop();
      }
    }, 90_000);
  });
}
