import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, ServeProcess } from '../../hardening/serve.js';
import { describeFlood, FLOOD_RATE, measureFlood, type FloodMix } from './flood-run.js';

/**
 * Issue 36: one host (127.0.0.2) floods `spielhalle serve` (every game on, house bots, Mia with its
 * defaults) from 1000 ports, as fast as its own process can, at most 20,000 datagrams a second,
 * while a spectator on 127.0.0.1 counts the finished rounds. During the flood the table plays at
 * least 80 % of its quiet rate, after it as before, and no house bot is unregistered. The attacker
 * runs at the server's priority (not niced). Each window lasts 8 s here; `npm run soak -- mia`
 * runs the 20 s, niced and not (bench/mia-flood.ts).
 */

const SECONDS = 8;

let serve: ServeProcess;

beforeAll(async () => {
  buildServer();
  serve = await ServeProcess.start({ logLevel: 'info', env: { SPIELHALLE_MIA_ANSWER_TIMEOUT_MS: '250', SPIELHALLE_MIA_HOUSE_BOTS: '3' } });
}, 120_000);

afterAll(async () => {
  await serve.stop();
}, 30_000);

describe('Mia under a flood from one host (issue 36)', () => {
  for (const mix of ['register', 'mixed'] as FloodMix[]) {
    it(`a 1000-port flood of ${mix === 'register' ? 'REGISTER;x<n>' : 'REGISTER, JOIN, ECHO, ROLL and garbage'}: ≥ 80 % of the quiet round rate during it, all of it after, every house bot registered`, async () => {
      const r = await measureFlood(serve, SECONDS, mix);
      console.log(describeFlood(r, SECONDS));
      expect(r.sent).toBeGreaterThan(FLOOD_RATE * SECONDS * 0.5);
      expect(r.quiet).toBeGreaterThan(SECONDS * 2);
      expect(r.expired).toEqual([]);
      expect(r.during).toBeGreaterThanOrEqual(Math.floor(r.quiet * 0.8));
      expect(r.after).toBeGreaterThanOrEqual(Math.floor(r.quiet * 0.9));
      // /metrics says what was dropped unread, and why.
      const metrics = await (await fetch(`http://127.0.0.1:${serve.ports.web}/metrics`)).text();
      expect(metrics).toMatch(/spielhalle_mia_dropped_total\{reason="(registrations|host)"\} [1-9]/);
    }, 120_000);
  }
});
