import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONNECT_MS, FAIL_FAST_AFTER, RESET_SETTLE_MS } from '../../src/conformance/runner.js';
import { FRAGMENT_MS, LONG_LINE_BYTES } from '../../src/conformance/wire.js';
import { CATAN_TIMERS } from '../../src/games/catan/conformance/session.js';
import { CONNECT4_TIMERS } from '../../src/games/connect4/conformance/session.js';
import { DAME_TIMERS } from '../../src/games/dame/conformance/session.js';
import { FLOOD_BURST, FLOOD_PER_SECOND } from '../../src/games/mia/conformance/inbox.js';
import { MIA_TIMERS } from '../../src/games/mia/conformance/session.js';
import { OSTSEESCHACH_TIMERS } from '../../src/games/ostseeschach/conformance/session.js';

/**
 * Issue 32: docs/check-client/<game>.md lists every timer and tolerance the kit applies for the
 * game, under "Timers and tolerances". Each exported constant must have a row there with its name
 * and its value, so that the docs cannot drift from the code.
 */

/** The section "Timers and tolerances" of a doc, with digit groups (10 000, 10,000) joined. */
function section(file: string, heading = '## Timers and tolerances'): string {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(heading);
  expect(start, `${file} has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + heading.length);
  const end = rest.search(/\n## /);
  return (end < 0 ? rest : rest.slice(0, end)).replace(/(\d)[  ,](?=\d{3}\b)/g, '$1');
}

/** Every constant has a table row naming it (`NAME`) with its value as a number of its own. */
function expectListed(file: string, timers: Readonly<Record<string, number>>, heading?: string): void {
  const text = section(file, heading);
  for (const [name, value] of Object.entries(timers)) {
    const row = text.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${name}\``));
    expect(row, `${file}: a row for ${name}`).toBeDefined();
    expect(row!, `${file}: ${name} = ${value}`).toMatch(new RegExp(`(^|[^\\d.])${value}([^\\d]|$)`));
  }
}

const KIT_TCP = { CONNECT_MS, RESET_SETTLE_MS, FRAGMENT_MS };

describe('check-client timers in the docs', () => {
  it('lists every timer and tolerance of each game with its value', () => {
    expectListed('docs/check-client/dame.md', { ...DAME_TIMERS, ...KIT_TCP });
    expectListed('docs/check-client/catan.md', { ...CATAN_TIMERS, ...KIT_TCP });
    expectListed('docs/check-client/ostseeschach.md', { ...OSTSEESCHACH_TIMERS, ...KIT_TCP });
    expectListed('docs/check-client/mia.md', { ...MIA_TIMERS, FLOOD_BURST, FLOOD_PER_SECOND });
    expectListed('docs/check-client/connect4.md', CONNECT4_TIMERS);
  });

  it('lists the kit-wide ones in docs/check-client.md', () => {
    expectListed('docs/check-client.md', { ...KIT_TCP, FAIL_FAST_AFTER, LONG_LINE_BYTES });
  });

  it('notices a value that drifted', () => {
    expect(() => expectListed('docs/check-client/dame.md', { ...DAME_TIMERS, EXIT_MS: DAME_TIMERS.EXIT_MS + 1 })).toThrow();
  });
});
