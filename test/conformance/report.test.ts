import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { escapeXml, formatJUnit, formatJson, formatText } from '../../src/conformance/report.js';
import type { ScenarioResult } from '../../src/conformance/runner.js';

const base: Pick<ScenarioResult, 'game' | 'scriptedSide' | 'stdout' | 'stderr' | 'exit' | 'stopped' | 'wire' | 'warnings'> = { game: 'dame', scriptedSide: 'server', stdout: '', stderr: '', exit: { code: 0, signal: null }, stopped: false, wire: [], warnings: [] };

const passed: ScenarioResult = { ...base, id: 'full-game', title: 'a whole game', status: 'pass', durationMs: 1234, message: null, judgement: null, excerpt: [] };
const failed: ScenarioResult = {
  ...base,
  id: 'coalesced-reads',
  title: 'groups in one write <&>',
  status: 'fail',
  durationMs: 3300,
  message: 'sent nothing where the server expected THINKING within 3200 ms of + MOVE 3000 (waited 3200 ms)',
  judgement: { rule: 'TCP is a byte stream: one read may hold several lines', section: 'spec §2.1, §2.6', hint: 'Split every read into lines.' },
  excerpt: [
    { atMs: 12, dir: 'sent', text: '+ ENDPLAYERS' },
    { atMs: 12, dir: 'sent', text: '+ MOVE 3000' },
    { atMs: 3300, dir: 'note', text: 'FAIL: sent nothing where the server expected THINKING' },
  ],
  stderr: 'Error: unexpected "x" \u0001\n',
  exit: null,
  stopped: true,
};
const errored: ScenarioResult = { ...base, id: 'prolog-v2', title: 'v2 prolog', status: 'error', durationMs: 5, message: 'the client could not be started: spawn ./nope ENOENT', judgement: null, excerpt: [], exit: null };

function parseXml(xml: string): { elements: string[]; attributes: Record<string, string>[] } {
  const parser = new SaxesParser();
  const elements: string[] = [];
  const attributes: Record<string, string>[] = [];
  parser.on('opentag', (tag) => {
    elements.push(tag.name);
    attributes.push({ ...tag.attributes });
  });
  parser.write(xml).close(); // throws on anything that is not well-formed
  return { elements, attributes };
}

describe('check-client report', () => {
  it('prints one line per scenario, then each failure with rule, section, hint, wire excerpt and output', () => {
    const text = formatText('dame', [passed, failed, errored]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^pass\s+full-game\s+a whole game \(1234 ms\)$/);
    expect(lines[1]).toMatch(/^FAIL\s+coalesced-reads .*expected THINKING/);
    expect(lines[2]).toMatch(/^ERROR\s+prolog-v2 .*could not be started/);
    expect(text).toContain('  rule:  TCP is a byte stream: one read may hold several lines (spec §2.1, §2.6)');
    expect(text).toContain('  hint:  Split every read into lines.');
    expect(text).toContain('+    12ms  S: + MOVE 3000');
    expect(text).toContain('still running at the end of the scenario (stopped by check-client)');
    expect(text).toContain('    | Error: unexpected');
    expect(lines.at(-2)).toBe('dame: 1 passed, 1 failed, 1 could not run of 3 scenarios');
    // Issue 32: what the scripted server waited for is what the server expected, never the client.
    expect(text).toContain('  what happened: the client sent nothing where the server expected THINKING within 3200 ms of + MOVE 3000 (waited 3200 ms)');
    expect(text).not.toMatch(/client expected/);
  });

  it('prints JSON with the summary and every scenario', () => {
    const json = JSON.parse(formatJson('dame', [passed, failed])) as { ok: boolean; passed: number; failed: number; scenarios: { id: string; status: string; rule: string | null; excerpt: unknown[] }[] };
    expect(json.ok).toBe(false);
    expect(json.passed).toBe(1);
    expect(json.failed).toBe(1);
    expect(json.scenarios.map((s) => [s.id, s.status])).toEqual([
      ['full-game', 'pass'],
      ['coalesced-reads', 'fail'],
    ]);
    expect(json.scenarios[1]!.rule).toMatch(/byte stream/);
    expect(json.scenarios[1]!.excerpt).toHaveLength(3);
  });

  it('writes well-formed JUnit XML: a testsuite per game, a testcase per scenario, failures with the excerpt', () => {
    const xml = formatJUnit('dame', [passed, failed, errored]);
    const { elements, attributes } = parseXml(xml);
    expect(elements.filter((e) => e === 'testsuite')).toHaveLength(1);
    expect(elements.filter((e) => e === 'testcase')).toHaveLength(3);
    const suite = attributes[elements.indexOf('testsuite')]!;
    expect(suite).toMatchObject({ name: 'dame', tests: '3', failures: '1', errors: '1' });
    const failure = attributes[elements.indexOf('failure')]!;
    expect(failure.message).toContain('expected THINKING');
    expect(failure.message).toContain('rule: TCP is a byte stream');
    expect(attributes[elements.indexOf('testcase', elements.indexOf('testcase') + 1)]!.name).toBe('coalesced-reads: groups in one write <&>');
    expect(elements).toContain('error');
    expect(elements).toContain('system-err');
    expect(xml).toContain('S: + MOVE 3000');
    expect(xml).not.toContain('\u0001');
  });

  it('escapes XML special and control characters', () => {
    expect(escapeXml(`a<b>&"c'\u0000\u0007d\te`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;d\te');
  });
});
