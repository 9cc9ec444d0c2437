import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../src/conformance/runner.js';
import { explain, expectFailsExactly, runPool } from '../../support/conformance.js';
import { absentFor, CLIENT_NAME } from '../../../src/games/mia/conformance/index.js';
import { mia } from '../../../src/games/mia/index.js';
import { formatServer, MAX_UDP_PAYLOAD, parseServer, type ServerMessage } from '../../../src/games/mia/protocol.js';

/**
 * The proof of the Mia check-client scenarios (docs/check-client/mia.md): our own client passes all
 * of them; the plain JavaScript course client of the fixtures passes all of them too, and each of
 * its typical student bugs fails exactly the scenarios meant to catch it, while the scenarios
 * nearest to it still pass. Needs dist/ (node scripts/build.mjs --server-only).
 */

const conformance = mia.conformance!;
/** `spielhalle bot mia` itself: the whole CLI takes about a second to start, so it runs a sample. */
const BOT = ['node', 'dist/cli.js', 'bot', 'mia', '--host', '{host}', '--port', '{port}', '--name', '{name}', '--log-level', 'warn'];
const CLI_SAMPLE = ['rejected-name-taken', 'round-canceled-only-one-player', 'unregistered'];
/** Our MiaClient as `bot mia` runs it, without the CLI around it (fast to start): every scenario. */
const OUR_CLIENT = ['node', 'test/fixtures/conformance/mia/our-client.mjs', '{host}', '{port}', '{name}'];
const FIXTURE = ['node', 'test/fixtures/conformance/mia/client.mjs', '{host}', '{port}', '{name}'];
const ALL = conformance.scenarios;
const ids = ALL.map((s) => s.id);
/**
 * answer-time holds our server's 250 ms. Two cores shared by every test of the suite can stall a
 * process for longer than that, so it runs apart, two at a time, with --timeout-scale 1.6 (400 ms):
 * still well below the 500 ms of the slow fixture bug.
 */
const TIMED = 'answer-time';
const TIMED_SCALE = 1.6;

interface Job {
  command: string[];
  only: readonly string[] | null;
  scale?: number;
}

/** Runs the jobs' scenarios, at most `pool` client processes at a time (2 shared cores). */
const runAll = (jobs: readonly Job[], pool: number): Promise<ScenarioResult[][]> =>
  runPool('mia', conformance, jobs.map((j) => ({ command: j.command, only: j.only, options: { timeoutScale: j.scale ?? 1 } })), pool);

const UNTIMED = ids.filter((id) => id !== TIMED);
const LOST_IDS = ids.filter((id) => id.startsWith('lost-'));

/** Each bug: the scenarios it must fail, and scenarios on the same code path that it must pass. */
const BUGS: Record<string, { fails: string[]; passes: string[] }> = {
  'buffer-1024': { fails: ['long-score', 'long-score-utf8', 'largest-score'], passes: ['full-game', 'register-mid-round'] },
  'heartbeat-between-rounds': { fails: ['heartbeat-anywhere'], passes: ['register-mid-round', 'full-game', 'round-canceled-no-players'] },
  'crashes-on-unknown-reason': { fails: ['lost-see-before-first-roll', 'lost-did-not-announce'], passes: ['lost-see-failed', 'lost-mia', 'lost-did-not-take-turn'] },
  'retries-rejected': { fails: ['rejected-name-taken', 'rejected-invalid-name'], passes: ['register', 'register-mid-round'] },
  'too-slow': { fails: [TIMED], passes: ['register', 'lost-see-failed'] },
  'ignores-round-canceled': { fails: ['round-canceled-no-players', 'round-canceled-only-one-player'], passes: ['round-without-client', 'lost-did-not-take-turn', 'duplicates'] },
  'strict-order': { fails: ['duplicates', 'late-duplicates'], passes: ['heartbeat-anywhere', 'round-without-client', 'full-game'] },
  'gives-up-on-slow-server': { fails: ['slow-server'], passes: ['lost-did-not-take-turn', 'round-canceled-only-one-player', 'full-game'] },
  'spins-when-silent': { fails: ['server-silent'], passes: ['lost-did-not-announce', 'round-without-client'] },
  'crashes-on-unregistered': { fails: ['unregistered'], passes: ['register', 'rejected-name-taken'] },
  // Issue 32: the headline names the separator, not "a token the server never sent".
  'comma-token': { fails: ['full-game', 'heads-up', 'lost-mia'], passes: ['register', 'rejected-name-taken'] },
  // Not a bug (the public bots' way): silent after REJECTED, the process ends 5.4 s later.
  'lingers-after-rejected': { fails: [], passes: ['rejected-name-taken', 'rejected-invalid-name', 'register'] },
};

const sentLines = (r: ScenarioResult): string[] => r.wire.filter((e) => e.dir === 'sent').map((e) => e.text);

describe('check-client mia', () => {
  it('has a scenario for every case the issue names, each with a rule, a section and a hint', () => {
    for (const id of ['register', 'rejected-name-taken', 'rejected-invalid-name', 'full-game', 'answer-time', 'duplicates', 'heartbeat-anywhere', 'round-canceled-no-players', 'round-canceled-only-one-player', 'long-score', 'largest-score', 'slow-server', 'server-silent', 'unregistered'])
      expect(ids).toContain(id);
    // PLAYER LOST with each of the eight reasons our server sends.
    expect(LOST_IDS).toHaveLength(8);
    expect(new Set(ids).size).toBe(ids.length);
    expect(conformance.transport).toBe('udp');
    for (const s of ALL) {
      expect(s.id).toMatch(/^[a-z0-9-]+$/);
      for (const text of [s.rule, s.section, s.hint]) expect(text.length).toBeGreaterThan(5);
      expect(s.placeholders.name).toBeTruthy();
    }
    // The filler of largest-score makes the SCORE exactly as long as a UDP datagram can be.
    const absent = absentFor(MAX_UDP_PAYLOAD, ['alice', 'bob', CLIENT_NAME]);
    const entries: [string, number][] = [...absent, ['alice', 0], ['bob', 0], [CLIENT_NAME, 0]];
    const score: ServerMessage = { type: 'SCORE', scores: entries.sort(([a], [b]) => (a < b ? -1 : 1)) };
    expect(Buffer.byteLength(formatServer(score))).toBe(MAX_UDP_PAYLOAD);
  });

  it('our own client passes every scenario (and `bot mia` from the CLI a sample of them), speaking to a server that speaks like ours', async () => {
    const [all, cli] = await runAll(
      [
        { command: OUR_CLIENT, only: UNTIMED },
        { command: BOT, only: CLI_SAMPLE },
      ],
      8,
    );
    expect(explain(all!)).toBe('');
    expect(all!).toHaveLength(ALL.length - 1);
    expect(explain(cli!)).toBe('');
    expect(cli!).toHaveLength(CLI_SAMPLE.length);
    const byId = (id: string): ScenarioResult => all!.find((r) => r.id === id)!;

    // Our client answers every question once, late copies included: the server ignores nothing of it.
    for (const id of ['duplicates', 'late-duplicates', 'full-game', 'heartbeat-anywhere'])
      expect(byId(id).wire.filter((e) => e.dir === 'note' && e.text.startsWith('ignored')).map((e) => e.text)).toEqual([]);

    // The scripted server speaks like ours: every datagram re-formats byte-exact through the codec,
    // and uses only commands of the reference server's recorded traffic.
    const recorded = new Set([
      ...readFileSync('test/fixtures/mia/scenarios.txt', 'utf8')
        .split('\n')
        .filter((l) => l.includes(' <- '))
        .map((l) => l.split(' <- ')[1]!.split(';')[0]!),
      ...[...readFileSync('test/fixtures/mia/session-5-bots.txt', 'utf8').matchAll(/ S->C \S+\s+"([^";]+)/g)].map((m) => m[1]!),
    ]);
    const commands = new Set<string>();
    for (const r of all!)
      for (const line of sentLines(r)) {
        const m = parseServer(line);
        expect(m, line.slice(0, 80)).not.toBeNull();
        expect(formatServer(m as ServerMessage)).toBe(line);
        commands.add(line.split(';')[0]!);
        if (m?.type === 'SCORE') expect(m.scores.map(([n]) => n)).toEqual(m.scores.map(([n]) => n).sort());
      }
    // UNREGISTERED and REJECTED are not in the recordings: their spelling is checked by the codec above.
    for (const c of commands) if (c !== 'UNREGISTERED' && c !== 'REJECTED') expect(recorded, c).toContain(c);
    expect(commands.size).toBeGreaterThanOrEqual(15);

    // The long messages are as long as promised.
    const longest = (id: string, command: string): number => Math.max(...sentLines(byId(id)).filter((l) => l.startsWith(command)).map((l) => Buffer.byteLength(l)));
    expect(longest('largest-score', 'SCORE;')).toBe(MAX_UDP_PAYLOAD);
    for (const command of ['SCORE;', 'ROUND STARTED;', 'PLAYER LOST;']) expect(longest('long-score', command)).toBeGreaterThan(1024);
  }, 120_000);

  it('the course client of the fixtures passes every scenario without a bug, and each bug fails exactly its scenarios', async () => {
    const jobs: Job[] = [{ command: FIXTURE, only: UNTIMED }];
    const bugs = Object.entries(BUGS).map(([bug, { fails, passes }]) => ({ bug, fails, passes, only: [...fails, ...passes].filter((id) => id !== TIMED) }));
    for (const b of bugs) jobs.push({ command: [...FIXTURE, b.bug], only: b.only });
    const results = await runAll(jobs, 8);
    expect(explain(results[0]!)).toBe('');
    expect(results[0]).toHaveLength(ALL.length - 1);
    bugs.forEach((b, i) => {
      const r = results[i + 1]!;
      expect(r).toHaveLength(b.only.length);
      expectFailsExactly(b.bug, r, b.fails.filter((id) => id !== TIMED));
      // Issue 32: a receive buffer that cuts a character says which, where.
      if (b.bug === 'buffer-1024') expect(r.find((x) => x.id === 'long-score-utf8')!.message).toMatch(/the server's \d+-byte datagram "SCORE;000.*", in which "ä" \(U\+00E4, 2 bytes\) lies across byte 1000, "€" \(U\+20AC, 3 bytes\) across byte 1024 and "🂡" \(U\+1F0A1, 4 bytes\) across byte 4096/u);
      if (b.bug === 'comma-token') for (const x of r.filter((y) => y.status === 'fail')) expect(x.message).toMatch(/^sent "ANNOUNCE;\d,\d,[^"]+": its token is separated with ","/);
    });
  }, 120_000);

  it(`holds our server's 250 ms: our client and the course client answer in time, the slow one does not`, async () => {
    const [ours, fixture, slow] = await runAll(
      [
        { command: OUR_CLIENT, only: [TIMED], scale: TIMED_SCALE },
        { command: FIXTURE, only: [TIMED], scale: TIMED_SCALE },
        { command: [...FIXTURE, 'too-slow'], only: [TIMED], scale: TIMED_SCALE },
      ],
      2,
    );
    expect(explain(ours!)).toBe('');
    expect(explain(fixture!)).toBe('');
    expect(slow![0]!.status).toBe('fail');
    expect(slow![0]!.message).toMatch(/^did not answer "(ROUND STARTING|YOUR TURN|ROLLED);/);
    expect(slow![0]!.judgement?.rule).toMatch(/within 250 ms/);
  }, 60_000);
});
