import { describe, expect, it } from 'vitest';
import type { ConformanceScenario, ConformanceStep, GameConformance } from '../../src/core/conformance.js';
import { FAIL_FAST_AFTER, runScenario, runScenarios } from '../../src/conformance/runner.js';

/** A line client in a few lines of node: answers `ping` with `PONG`, `bye` by closing and exiting 0. */
const ECHO = `
const s = require('net').connect(Number(process.argv[1]), '127.0.0.1');
let buf = '';
s.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (line === 'ping') s.write('PONG\\r\\n');
    if (line === 'twice') s.write('A\\nB\\n');
    if (line === 'bye') { s.end(); process.exit(0); }
  }
});
s.on('end', () => process.exit(3));
`;
const CLIENT = ['node', '-e', ECHO, '{port}'];

const conformance = (steps: ConformanceStep[]): { game: GameConformance; scenario: ConformanceScenario } => {
  const scenario: ConformanceScenario = { id: 't', title: 'test', rule: 'the rule', section: '§1', hint: 'the hint', placeholders: {}, steps: () => steps };
  return { game: { placeholders: ['port'], maxLineBytes: 64, normalize: (l) => l.replace(/\r$/, '') || null, scenarios: [scenario] }, scenario };
};

async function play(steps: ConformanceStep[], command = CLIENT) {
  const { game, scenario } = conformance(steps);
  return runScenario('test', game, scenario, { command });
}

describe('check-client runner', () => {
  it('fails fast: when the first scenarios all fail the same way the rest are skipped, unless it keeps going', async () => {
    const steps: ConformanceStep[] = [{ kind: 'send', lines: ['ping'] }, { kind: 'expect', pattern: /^PONG$/, withinMs: 2000, what: 'PONG' }];
    const scenarios: ConformanceScenario[] = Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, title: `scenario ${i}`, rule: 'r', section: '§1', hint: 'h', placeholders: {}, steps: () => steps }));
    const game: GameConformance = { placeholders: ['port'], maxLineBytes: 64, normalize: (l) => l || null, scenarios };
    // A client that connects and exits at once: every scenario fails alike (its port differs).
    const quitter = ['node', '-e', "require('net').connect(Number(process.argv[1]), '127.0.0.1', () => process.exit(4))", '{port}'];
    const fast = await runScenarios('test', game, scenarios, { command: quitter });
    expect(fast.map((r) => r.status)).toEqual([...Array.from({ length: FAIL_FAST_AFTER }, () => 'fail'), 'skipped', 'skipped', 'skipped']);
    expect(fast[FAIL_FAST_AFTER]!.message).toMatch(/^not run: the first 3 scenarios all failed the same way \(.+\); fix that first, or run every scenario with --keep-going$/);
    const all = await runScenarios('test', game, scenarios, { command: quitter, keepGoing: true });
    expect(all.map((r) => r.status)).toEqual(Array.from({ length: 6 }, () => 'fail'));
    // A client that passes one of the first three is never cut short.
    const echo = await runScenarios('test', game, scenarios, { command: CLIENT });
    expect(echo.map((r) => r.status)).not.toContain('skipped');
  }, 60_000);

  it('plays data steps over TCP: split writes, expectations, silence, half-close, exit code', async () => {
    const r = await play([
      { kind: 'send', lines: ['ping'], splitAt: [1, 3], gapMs: 10 },
      { kind: 'expect', pattern: /^PONG$/, withinMs: 2000, what: 'PONG' },
      { kind: 'expectSilence', ms: 100, what: 'unasked' },
      { kind: 'send', lines: ['bye'] },
      { kind: 'expectClose', withinMs: 2000, what: 'after bye' },
      { kind: 'expectExit', withinMs: 2000, what: 'after bye', code: 0 },
    ]);
    expect(r.message).toBeNull();
    expect(r.status).toBe('pass');
    expect(r.wire.filter((e) => e.dir !== 'note').map((e) => `${e.dir} ${e.text}`)).toEqual(['sent ping', 'received PONG', 'sent bye']);
    expect(r.wire.some((e) => e.text.includes('3 writes, cut at bytes 1, 3'))).toBe(true);
  });

  it('fails with the scenario rule, an excerpt and the step that broke it', async () => {
    const r = await play([
      { kind: 'send', lines: ['twice'] },
      { kind: 'expect', pattern: /^A$/, withinMs: 2000, what: 'A' },
      { kind: 'expectSilence', ms: 300, what: 'after A', judgement: { hint: 'one line only' } },
    ]);
    expect(r.status).toBe('fail');
    expect(r.message).toBe('sent "B" after A');
    expect(r.judgement).toEqual({ rule: 'the rule', section: '§1', hint: 'one line only' });
    expect(r.excerpt.map((e) => e.text)).toEqual(expect.arrayContaining(['twice', 'A', 'B']));
    expect(r.stopped).toBe(true);
  });

  it('fails a line that answers before the server has finished writing', async () => {
    const r = await play([
      { kind: 'send', lines: ['ping'] },
      { kind: 'delay', ms: 200 },
      { kind: 'send', lines: ['more'] },
      { kind: 'expect', pattern: /^PONG$/, withinMs: 2000, what: 'PONG' },
    ]);
    expect(r.status).toBe('fail');
    expect(r.message).toMatch(/before the server had finished its last message/);
  });

  it('fails a client that exits instead of answering, and one that does not exit', async () => {
    const closed = await play([{ kind: 'close' }, { kind: 'expectExit', withinMs: 2000, what: 'after the close', code: 0 }]);
    expect(closed.status).toBe('fail');
    expect(closed.message).toBe('exited with code 3 after the close; it must exit with code 0');
    const hangs = await play([{ kind: 'expectExit', withinMs: 200, what: 'at once' }]);
    expect(hangs.message).toBe('did not exit within 200 ms at once');
  });

  it('reports a client that cannot start as an error, one that never connects as a failure', async () => {
    const missing = await play([], ['./no-such-client-here', '{port}']);
    expect(missing.status).toBe('error');
    expect(missing.message).toMatch(/could not be started/);
    const quits = await play([], ['node', '-e', 'process.exit(4)']);
    expect(quits.status).toBe('fail');
    expect(quits.message).toBe('exited (code 4) before it connected');
  });

  it('plays UDP: a datagram per line, replies go to the client\'s source, the end is the process exit, a framer cuts TCP', async () => {
    // A UDP client: binds {clientPort}, says HELLO to {port}; answers ping with PONG; bye: exits 0.
    const UDP = `
const s = require('dgram').createSocket('udp4');
s.bind(Number(process.argv[2]), '127.0.0.1', () => s.send('HELLO', Number(process.argv[1]), '127.0.0.1'));
s.on('message', (m) => {
  const t = String(m);
  if (t === 'ping') s.send('PONG\\n', Number(process.argv[1]), '127.0.0.1');
  if (t === 'big') s.send('x'.repeat(100), Number(process.argv[1]), '127.0.0.1');
  if (t === 'bye') s.close(() => process.exit(0));
});`;
    const scenario = (steps: ConformanceStep[]): ConformanceScenario => ({ id: 'u', title: 'udp', rule: 'r', section: '§', hint: 'h', placeholders: {}, steps: () => steps });
    const game = (s: ConformanceScenario): GameConformance => ({
      placeholders: ['port', 'mine'],
      transport: 'udp',
      maxLineBytes: 64,
      normalize: (l) => l.replace(/\n$/, ''),
      placeholdersFor: ({ clientPort }) => ({ mine: String(clientPort) }),
      scenarios: [s],
    });
    const command = ['node', '-e', UDP, '{port}', '{mine}'];
    const ok = scenario([
      { kind: 'expect', pattern: /^HELLO$/, withinMs: 5000, what: 'HELLO' },
      { kind: 'send', lines: ['ping', 'ping'] },
      { kind: 'expect', pattern: /^PONG$/, withinMs: 2000, what: 'PONG' },
      { kind: 'expect', pattern: /^PONG$/, withinMs: 2000, what: 'the second PONG' },
      { kind: 'send', lines: ['bye'] },
      { kind: 'expectExit', withinMs: 2000, what: 'after bye', code: 0 },
    ]);
    const r = await runScenario('test', game(ok), ok, { command });
    expect(r.message).toBeNull();
    expect(r.wire.filter((e) => e.dir !== 'note').map((e) => `${e.dir} ${e.text}`)).toEqual(['received HELLO', 'sent ping', 'sent ping', 'received PONG\\x0a', 'received PONG\\x0a', 'sent bye']);
    const big = scenario([
      { kind: 'expect', pattern: /^HELLO$/, withinMs: 5000, what: 'HELLO' },
      { kind: 'send', lines: ['big'] },
      { kind: 'expect', pattern: /./, withinMs: 2000, what: 'an answer' },
    ]);
    const tooBig = await runScenario('test', game(big), big, { command });
    expect(tooBig.status).toBe('fail');
    expect(tooBig.message).toBe('sent a line of 100 bytes (the server reads at most 64) where the server expected an answer');
    const gone = scenario([{ kind: 'expect', pattern: /^HELLO$/, withinMs: 5000, what: 'HELLO' }, { kind: 'send', lines: ['bye'] }, { kind: 'expect', pattern: /./, withinMs: 3000, what: 'a line' }]);
    const ended = await runScenario('test', game(gone), gone, { command });
    expect(ended.message).toMatch(/^stopped \d+ ms after the server's datagram "bye" \(its process exited with code 0\); the server expected a line$/);

    // TCP with a framer: messages end at ';' instead of a newline.
    const framed: ConformanceScenario = { ...scenario([{ kind: 'send', lines: ['twice'] }, { kind: 'expect', pattern: /^A\nB\n$/, withinMs: 2000, what: 'A and B' }]) };
    let rest = '';
    const semi: GameConformance = {
      placeholders: ['port'],
      maxLineBytes: 64,
      framer: () => ({
        push: (chunk) => {
          rest += String(chunk);
          const parts = rest.split(';');
          rest = parts.pop()!;
          return parts.map((line) => ({ kind: 'line' as const, line }));
        },
      }),
      scenarios: [framed],
    };
    const SEMI = ECHO.replace("s.write('A\\nB\\n')", "s.write('A\\nB\\n;')");
    const t = await runScenario('test', semi, framed, { command: ['node', '-e', SEMI, '{port}'] });
    expect(t.message).toBeNull();
  });
});
