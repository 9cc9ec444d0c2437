/**
 * Ostseeschach tournament through the real server: our engine against itself, every game over
 * loopback TCP the way a contest runs it (an administrator prepares a room with two reserved,
 * timed slots; each bot redeems its code with joinPrepared). The bots think in worker threads
 * (the house-game loop of `spielhalle serve`); the server, its record store (a file, with its
 * writer thread) and the counting run in this process. Printed as markdown.
 *
 *   npx tsx bench/ostseeschach-server.ts [--games 200] [--concurrency 2] [--ms 25]
 *
 * Errors: every score cause other than REGULAR (violations, timeouts, leaves), every errorpacket
 * or room error a client got, every warning or error the bots or the server logged, and every
 * game that replays differently through the rules. One rule violation is a game result, not an
 * error: a side whose last piece was taken has no legal move and loses by the invalid move it
 * must send (spec §4 #8); those games are counted on their own. Memory is this process (server +
 * bots).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import type { Stoppable } from '../src/core/lifecycle.js';
import { RecordStore } from '../src/core/records.js';
import type { HouseGame } from '../src/games/ostseeschach/house-loop.js';
import { startHouseGames } from '../src/games/ostseeschach/house.js';
import { replayOstseeschachMatch, verifyOstseeschachMatch } from '../src/games/ostseeschach/replay.js';
import { legalMoves } from '../src/games/ostseeschach/rules.js';
import { fromPosition } from '../src/games/ostseeschach/setup.js';
import { createOstseeschachServer } from '../src/games/ostseeschach/server.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const games = Number(flag('games', '200'));
const concurrency = Number(flag('concurrency', '2'));
const ms = Number(flag('ms', '25'));

/** A logger that counts warnings and errors and keeps the first few. */
const problems: string[] = [];
let warnings = 0;
const log = pino(
  { level: 'warn', base: null },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      warnings++;
      if (problems.length < 10) problems.push(chunk.toString().trim());
      done();
    },
  }),
);

const dir = mkdtempSync(join(tmpdir(), 'spielhalle-ostsee-bench-'));
const store = new RecordStore(join(dir, 'spielhalle.db'));
const server = createOstseeschachServer({ port: 0, seed: 'bench', log, store });
await server.start();

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MB`;
// A full collection before each reading, without asking the caller for --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const memory = (): { rss: number; heap: number } => {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
};
const memStart = memory();

const done: HouseGame[] = [];
let cancelled = 0;
const readings: { mid: { rss: number; heap: number } | null } = { mid: null };
const t0 = performance.now();
let finish: () => void = () => undefined;
const finished = new Promise<void>((r) => (finish = r));
const loops: Stoppable[] = await startHouseGames({
  games: concurrency,
  host: '127.0.0.1',
  port: server.port,
  adminPassword: 'examplepassword',
  moveTimeMs: ms,
  pauseMs: 0,
  seed: 'bench',
  log,
  onGame: (game) => {
    const points = game.outcomes[0].result?.scores.reduce((sum, s) => sum + (s.parts[0] ?? 0), 0) ?? 0;
    // A game the final stop cancels (0 : 0) is not one of the tournament's.
    if (done.length >= games || points === 0) {
      cancelled++;
      return;
    }
    done.push(game);
    if (done.length === Math.floor(games / 2)) readings.mid = memory();
    if (done.length === games) finish();
  },
});
await finished;
const seconds = (performance.now() - t0) / 1000;
// Stopping cancels the games still running; what the bots log about that is not the tournament's.
const warningsInRun = warnings;
const problemsInRun = problems.slice(0, warningsInRun);
for (const loop of loops) await loop.stop();
await new Promise((r) => setTimeout(r, 500));
const memEnd = memory();

let errors = 0;
const causes = new Map<string, number>();
let wins = { ONE: 0, TWO: 0, draw: 0 };
for (const g of done) {
  for (const o of g.outcomes) errors += o.errors.length;
  const result = g.outcomes[0].result;
  for (const s of result?.scores ?? []) causes.set(s.cause, (causes.get(s.cause) ?? 0) + 1);
  const winner = result?.winner ?? null;
  wins = { ...wins, [winner ?? 'draw']: wins[winner ?? 'draw'] + 1 };
}
const timeouts = (causes.get('SOFT_TIMEOUT') ?? 0) + (causes.get('HARD_TIMEOUT') ?? 0);
const irregular = [...causes].filter(([c]) => c !== 'REGULAR').reduce((n, [, k]) => n + k, 0);

// The server's view: every recorded game replays through the rules; the slowest move it timed.
const rooms = new Set(done.map((g) => g.roomId));
const records = store.listMatches({ game: 'ostseeschach', limit: 1000 });
let slowest = 0;
let replayProblems = 0;
let moves = 0;
let recorded = 0;
let noLegalMove = 0;
for (const r of records) {
  const m = store.getMatch(r.id);
  if (!m || !rooms.has((m.meta as { roomId: string }).roomId)) continue;
  recorded++;
  if (m.status !== 'finished') replayProblems++;
  // A side left without a legal move (its last piece taken) loses by sending an invalid move, as
  // on the official server (spec §4 #8): a game result, not a fault of the server or the bot.
  const violation = (m.result as { scores?: { cause: string }[] } | null)?.scores?.some((sc) => sc.cause === 'RULE_VIOLATION');
  const last = violation ? replayOstseeschachMatch(m)?.frames.at(-1) : undefined;
  const final = last ? fromPosition({ turn: last.turn, pieces: last.pieces, ambers: last.ambers }) : null;
  if (final?.ok && legalMoves(final.value).length === 0) noLegalMove++;
  if (verifyOstseeschachMatch(m).problems.length > 0) replayProblems++;
  for (const e of m.events) {
    if (e.type !== 'move') continue;
    moves++;
    slowest = Math.max(slowest, (e.data as { elapsedMs: number }).elapsedMs);
  }
}
const left = server.snapshot();
await server.stop();
store.close();
rmSync(dir, { recursive: true, force: true });

console.log(`# Ostseeschach tournament through the server: ${games} games, engine vs engine, ${concurrency} at a time, ${ms} ms per move`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
// Each no-legal-move loss brings one room error to its client and one warning about it.
const otherCauses = irregular - timeouts - noLegalMove;
const clientErrors = errors - noLegalMove;
const unexpectedWarnings = warningsInRun - noLegalMove;
console.log('| games | recorded | time | games/s | moves | slowest move (server clock) | timeouts | lost for want of a legal move | other non-REGULAR causes | client errors | logged warnings | replay mismatches | ONE / draw / TWO |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
console.log(
  `| ${done.length} | ${recorded} | ${seconds.toFixed(1)} s | ${(done.length / seconds).toFixed(2)} | ${moves} | ${slowest} ms | ${timeouts} | ${noLegalMove} | ${otherCauses} | ${clientErrors} | ${unexpectedWarnings} | ${replayProblems} | ${wins.ONE} / ${wins.draw} / ${wins.TWO} |`,
);
console.log('\n| memory (this process) | start | after half | end (loops stopped) |');
console.log('|---|---:|---:|---:|');
const mid = readings.mid ?? memEnd;
console.log(`| rss | ${mb(memStart.rss)} | ${mb(mid.rss)} | ${mb(memEnd.rss)} |`);
console.log(`| heap used | ${mb(memStart.heap)} | ${mb(mid.heap)} | ${mb(memEnd.heap)} |`);
console.log(`\nleft open at the end: ${left.rooms.length} rooms, ${left.connections} connections; games cancelled by the final stop: ${cancelled}`);
if (problemsInRun.length > 0) console.log(`\nfirst problems logged during the run:\n${problemsInRun.map((p) => `    ${p}`).join('\n')}`);
const failed =
  done.length < games || recorded < games || timeouts > 0 || otherCauses !== 0 || clientErrors !== 0 || unexpectedWarnings !== 0 || replayProblems > 0 || left.rooms.length > 0;
process.exit(failed ? 1 : 0);
