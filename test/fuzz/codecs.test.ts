import { describe, expect, it } from 'vitest';
import { runCodecCampaign } from './lib/campaign.js';
import { CODECS } from './lib/codecs.js';

/**
 * The npm-test form of the codec fuzz campaign: each protocol decoder gets generated and mutated
 * messages for a bounded time (`FUZZ_CODEC_MS`, default 2 s; `FUZZ_SEED` changes the inputs) and
 * must keep its contract: no exception where it promises an error value, results of the right
 * shape, bounded buffers, no message slower than 2 s. `npm run soak -- fuzz` runs a million each.
 */

const SEED = process.env.FUZZ_SEED ?? 'spielhalle';
const MS = Number(process.env.FUZZ_CODEC_MS ?? 2000);

describe('fuzzing the protocol codecs', () => {
  for (const [name, make] of Object.entries(CODECS)) {
    it(`${name}: generated and mutated messages never break the decoder`, () => {
      const stats = runCodecCampaign(make(), { seed: SEED, maxMs: MS, slowMs: 2000 });
      const shown = stats.failures.map(
        (f) => `${f.message} (seed ${f.seed}, message ${f.index}): ${f.input}`,
      );
      expect(shown).toEqual([]);
      expect(stats.messages).toBeGreaterThan(MS >= 1000 ? 1000 : 1);
      expect(stats.generated).toBeGreaterThan(0);
      expect(stats.mutated).toBeGreaterThan(stats.generated);
    }, 30_000);
  }
});

describe('the codec campaign itself', () => {
  it('reports a decoder that throws, with the input that made it throw', () => {
    const target = CODECS.mia!();
    const broken = {
      ...target,
      session: () => ({
        feed(input: Buffer) {
          if (input.includes(0x3b)) throw new Error('boom');
        },
      }),
    };
    const stats = runCodecCampaign(broken, { seed: 'meta', maxMessages: 200 });
    expect(stats.failures.length).toBeGreaterThan(0);
    expect(stats.failures[0]!.message).toBe('boom');
    expect(Buffer.from(stats.failures[0]!.input, 'base64').includes(0x3b)).toBe(true);
  });

  it('reports a message that takes too long', () => {
    const target = CODECS.mia!();
    const slow = {
      ...target,
      session: () => ({
        feed() {
          const until = performance.now() + 30;
          while (performance.now() < until);
        },
      }),
    };
    const stats = runCodecCampaign(slow, { seed: 'meta', maxMessages: 3, slowMs: 10 });
    expect(stats.failures.map((f) => f.message)).toEqual([
      expect.stringMatching(/^one message took \d+ ms$/),
      expect.anything(),
      expect.anything(),
    ]);
  });
});
