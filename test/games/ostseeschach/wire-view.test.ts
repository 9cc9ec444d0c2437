import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../src/conformance/runner.js';
import type { WireLogEntry } from '../../../src/conformance/wire.js';
import { formatFailure } from '../../../src/conformance/report.js';
import { ostseeschachConformance } from '../../../src/games/ostseeschach/conformance/index.js';
import { ROOM_ID } from '../../../src/games/ostseeschach/conformance/session.js';
import { explain, runPool } from '../../support/conformance.js';

/**
 * Issue 32 on the real scenarios: the wire log of an Ostseeschach stream holds the last line of
 * every packet (`</room>`, `<left/>`, `</protocol>`), and the packets of one write share a group.
 * Needs dist/ (the fixture client takes the rules from there).
 */

const CLIENT = ['node', 'test/fixtures/conformance/ostseeschach/client.mjs', '{host}', '{port}', '{reservation}'];
const sent = (r: ScenarioResult): WireLogEntry[] => r.wire.filter((e) => e.dir === 'sent');

describe('check-client ostseeschach: the wire view', () => {
  it('logs every packet to its last line, and groups what went in one write', async () => {
    const [results] = await runPool('ostseeschach', ostseeschachConformance, [{ command: CLIENT, only: ['server-stops', 'coalesced-reads', 'result-left-after-own-move'] }], 3);
    expect(explain(results!)).toBe('');
    const byId = (id: string): ScenarioResult => results!.find((r) => r.id === id)!;

    // server-stops: the evidence is the server's goodbye, not blank lines.
    const stops = sent(byId('server-stops'));
    expect(stops.every((e) => e.text.trim() !== '')).toBe(true);
    expect(stops.slice(-2).map((e) => e.text)).toEqual(['  <sc.protocol.CloseConnection/>', '</protocol>']);
    // Every packet's last line is there: as many </room> as <room …> openings.
    const left = sent(byId('result-left-after-own-move'));
    expect(left.filter((e) => e.text === '  </room>').length).toBe(left.filter((e) => e.text.startsWith('  <room roomId=')).length);
    // …and the end: <left/>, then (the client said goodbye) the end of the server's stream.
    expect(left.slice(-2).map((e) => e.text)).toEqual([`  <left roomId="${ROOM_ID}"/>`, '</protocol>']);

    // coalesced-reads: one write holds several packets; each write's lines share its group.
    const coalesced = sent(byId('coalesced-reads'));
    const groups = new Map<number, string[]>();
    for (const e of coalesced) groups.set(e.write!, [...(groups.get(e.write!) ?? []), e.text]);
    const first = [...groups.values()][0]!;
    expect(first[0]).toBe('<protocol>');
    expect(first.filter((l) => l.startsWith('  <room roomId=')).length).toBeGreaterThanOrEqual(3);
    expect(first.at(-1)).toBe('  </room>');
    // The report shows the group: the first write from ┌ to └.
    const text = formatFailure({ ...byId('coalesced-reads'), status: 'fail', message: 'x', excerpt: coalesced.slice(0, first.length) });
    expect(text).toContain('┌S: <protocol>');
    expect(text.split('\n').filter((l) => /^ {4}\+\s*\d+ms [┌│└]S:/.test(l))).toHaveLength(first.length);
  }, 30_000);
});
