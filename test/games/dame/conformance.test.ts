import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../src/conformance/runner.js';
import { dameConformance } from '../../../src/games/dame/conformance/index.js';
import { GROUP_GAP_MS } from '../../../src/games/dame/conformance/session.js';
import { ScriptedConnection } from '../../../src/conformance/wire.js';
import { explain, expectFailsExactly, runPool, type PoolJob } from '../../support/conformance.js';

/**
 * The proof of the Dame check-client scenarios (docs/check-client/dame.md): our own client passes all
 * of them; the plain JavaScript course client of the fixtures passes all of them too, and each of
 * its typical student bugs fails exactly the scenarios meant to catch it, while the scenarios
 * nearest to it (the same code path, done right by the scenario) still pass.
 * Needs dist/ (node scripts/build.mjs --server-only).
 */

/** `spielhalle bot dame` itself: the whole CLI takes about a second to start, so it runs a sample. */
const BOT = ['node', 'dist/cli.js', 'bot', 'dame', '--host', '{host}', '--port', '{port}', '-g', '{gameId}', '-p', '{player}', '--bot', 'random', '--log-level', 'warn'];
/** Our DameClient as `bot dame` runs it, without the CLI around it (fast to start): every scenario. */
const OUR_CLIENT = ['node', 'test/fixtures/conformance/dame/our-client.mjs', '{host}', '{port}', '{gameId}', '{player}'];
const CLI_SAMPLE = ['full-game-black', 'prolog-v2', 'gameover-while-thinking', 'error-no-free-player', 'server-closes'];
const FIXTURE = ['node', 'test/fixtures/conformance/dame/client.mjs', '{host}', '{port}', '{gameId}', '{player}'];
const ALL = dameConformance.scenarios;
const ids = ALL.map((s) => s.id);

/** Every run of a test shares one pool: at most POOL client processes at a time (2 shared cores). */
const POOL = 8;

const runAll = (jobs: readonly PoolJob[]): Promise<ScenarioResult[][]> => runPool('dame', dameConformance, jobs, POOL);

const ERROR_IDS = ids.filter((id) => id.startsWith('error-'));

/** Each bug: the scenarios it must fail, and scenarios on the same code path that it must pass. */
const BUGS: Record<string, { fails: string[]; passes: string[] }> = {
  'one-group-per-read': { fails: ['coalesced-reads'], passes: ['split-reads', 'slow-server', 'gameover-after-moveok', 'prolog-v3'] },
  'ignores-gameover-while-thinking': { fails: ['gameover-while-thinking'], passes: ['gameover-instead-of-okthink', 'gameover-instead-of-moveok', 'gameover-after-moveok', 'move-time'] },
  'motd-always': { fails: ['prolog-v2'], passes: ['prolog-v3', 'prolog-auto', 'coalesced-reads'] },
  'motd-never': { fails: ['prolog-v3'], passes: ['prolog-v2', 'split-reads'] },
  'fgets-1024': { fails: ['long-lines'], passes: ['split-reads', 'coalesced-reads'] },
  'retries-on-error-line': {
    fails: ERROR_IDS.filter((id) => id !== 'error-timeout' && !id.startsWith('error-invalid-move-')),
    passes: ['error-timeout', 'error-invalid-move-syntax-error', 'error-invalid-move-move-not-allowed', 'server-closes'],
  },
  'slow-mover': { fails: ['move-time'], passes: ['chain-capture', 'gameover-while-thinking'] },
  'ignores-eof': { fails: ['server-closes'], passes: ['error-internal', 'error-no-free-player', 'gameover-after-okwait'] },
  // Issue 32: an exit code of 0 does not hide a connection that ended with the server's lines unread.
  'resets-on-gameover': { fails: ['gameover-instead-of-okthink', 'gameover-while-thinking', 'gameover-instead-of-moveok'], passes: ['gameover-after-moveok', 'gameover-after-okwait', 'full-game'] },
  'quits-at-gameover': { fails: ['gameover-instead-of-okthink', 'gameover-while-thinking', 'gameover-instead-of-moveok'], passes: ['gameover-after-moveok', 'gameover-after-okwait', 'full-game'] },
  // Issue 32: a client that dies on a line longer than its buffer hears what it died of, not a later symptom.
  'line-buffer-255': { fails: ['long-lines'], passes: ['split-reads', 'coalesced-reads'] },
  'line-buffer-300': { fails: ['long-lines'], passes: ['split-reads', 'slow-server'] },
};

describe('check-client dame', () => {
  it('has a scenario for every case the issue names, each with a rule, a section and a hint', () => {
    for (const id of ['full-game', 'prolog-v2', 'prolog-v3', 'prolog-auto', 'split-reads', 'coalesced-reads', 'long-lines', 'slow-server', 'move-time', 'wait-loops', 'backward-capture', 'chain-capture', 'king-diagonal', 'gameover-in-prolog', 'gameover-while-thinking', 'gameover-after-moveok', 'server-closes'])
      expect(ids).toContain(id);
    expect(ERROR_IDS).toHaveLength(18);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of ALL) {
      expect(s.id).toMatch(/^[a-z0-9-]+$/);
      for (const text of [s.rule, s.section, s.hint]) expect(text.length).toBeGreaterThan(5);
      expect(['1', '2']).toContain(s.placeholders.player);
    }
  });

  it('our own client passes every scenario (and `bot dame` from the CLI a sample of them)', async () => {
    const [all, cli] = await runAll([
      { command: OUR_CLIENT, only: null },
      { command: BOT, only: CLI_SAMPLE },
    ]);
    expect(explain(all!)).toBe('');
    expect(all!).toHaveLength(ALL.length);
    expect(explain(cli!)).toBe('');
    expect(cli!).toHaveLength(CLI_SAMPLE.length);

    // The scripted server speaks like our server: every line it sent in the two whole games is a
    // line of the recorded transcripts (board rows aside; ready flags and winners as they fell).
    const shape = (line: string): string => line.replace(/^(\+ \d \S.*) [01]$/, '$1 <ready>').replace(/^(\+ PLAYER\dWON) (Yes|No)$/, '$1 <won>');
    const recorded = new Set(
      ['transcript-player0.txt', 'transcript-player1.txt'].flatMap((f) =>
        readFileSync(`test/fixtures/dame/${f}`, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('S: '))
          .map((l) => shape(l.slice(3))),
      ),
    );
    for (const id of ['full-game', 'full-game-black']) {
      const sent = all!.find((r) => r.id === id)!.wire.filter((e) => e.dir === 'sent' && !/^\+ [1-8] /.test(e.text));
      expect(sent.length).toBeGreaterThan(20);
      for (const e of sent) expect(recorded, `${id}: ${e.text}`).toContain(shape(e.text));
    }
  }, 150_000);

  it('the course client of the fixtures passes every scenario without a bug, and each bug fails exactly its scenarios', async () => {
    const jobs: PoolJob[] = [{ command: FIXTURE, only: null }];
    for (const [bug, { fails, passes }] of Object.entries(BUGS)) jobs.push({ command: [...FIXTURE, bug], only: [...fails, ...passes] });
    const results = await runAll(jobs);
    expect(explain(results[0]!)).toBe('');
    Object.keys(BUGS).forEach((bug, i) => expectFailsExactly(bug, results[i + 1]!, BUGS[bug]!.fails));
    // The headline names the cause: the reset, or the close before + QUIT (not a later symptom).
    const headlines = (bug: string): string[] => results[Object.keys(BUGS).indexOf(bug) + 1]!.filter((r) => r.status === 'fail').map((r) => r.message ?? '');
    for (const m of headlines('resets-on-gameover')) expect(m).toMatch(/^reset the connection at \d+ ms \(ECONNRESET|EPIPE\)/);
    for (const m of headlines('quits-at-gameover')) expect(m).toMatch(/^closed its connection after \+ GAMEOVER, before the server’s \+ QUIT/);
    // The long line first, with what the server expected after it — never "expected THINKING" or a BOARD hint.
    expect(headlines('line-buffer-255')).toEqual([
      expect.stringMatching(/^reset the connection at \d+ ms \(ECONNRESET\), \d+ ms after the server's 1024-byte line "\+ x+…": .*; the server expected PLAYER after the game name$/),
    ]);
    expect(headlines('line-buffer-300')).toEqual([expect.stringMatching(/^closed the connection \d+ ms after the server's 1024-byte line "\+ x+…"( \(its process exited with code 1\))?; the server expected PLAYER after the game name$/)]);
  }, 150_000);
  it('a kit too busy to send GAMEOVER while the client thinks sends it at a later move, and never passes a client that ignores it', async () => {
    // The first wait right after + OKTHINK on a connection (only a cut waits there:
    // gameover-while-thinking's) ends 300 ms late, as on a machine busy with other work: the client that thinks 150 ms without reading has
    // played by then, its PLAY crosses GAMEOVER and is no fault, so a cut taken as played would pass
    // it (the Ostseeschach kit did, seen in CI).
    const delay = ScriptedConnection.prototype.delay;
    const seen = new WeakMap<ScriptedConnection, number>();
    ScriptedConnection.prototype.delay = function (this: ScriptedConnection, ms: number): Promise<void> {
      const entries = (this as unknown as { log: { entries: { dir: string; text: string }[] } }).log.entries;
      const last = entries.filter((e) => e.dir === 'sent').at(-1);
      if (ms !== GROUP_GAP_MS || last?.text !== '+ OKTHINK') return delay.call(this, ms);
      const n = (seen.get(this) ?? 0) + 1;
      seen.set(this, n);
      return delay.call(this, n === 1 ? ms + 300 : ms);
    };
    try {
      const [buggy, correct] = await runAll([
        { command: [...FIXTURE, 'ignores-gameover-while-thinking'], only: ['gameover-while-thinking'] },
        { command: FIXTURE, only: ['gameover-while-thinking'] },
      ]);
      expectFailsExactly('ignores-gameover-while-thinking', buggy!, ['gameover-while-thinking']);
      expect(explain(correct!)).toBe('');
      for (const r of [...buggy!, ...correct!]) expect(r.wire.map((e) => e.text).join('\n')).toMatch(/the kit looked \d+ ms after \+ OKTHINK, later than 50 ms/);
    } finally {
      ScriptedConnection.prototype.delay = delay;
    }
  }, 60_000);
});
