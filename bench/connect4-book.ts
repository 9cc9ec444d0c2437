/**
 * Generates the Connect Four opening book (src/games/connect4/solver/book-data.ts) with our own
 * solver.
 *
 *   npx tsx bench/connect4-book.ts [--depth D] [--all A] [--table-log L] [--log FILE] [--out FILE]
 *   npx tsx bench/connect4-book.ts --compile [--log FILE] [--out FILE]
 *
 * What it solves (a position and its mirror image count once):
 * - every position with fewer than A stones (default 1: the empty board) is analysed: all its
 *   children get exact scores (this gives the opening scores of spec §6.5);
 * - from there, the perfect-play tree below D stones (default 12): an analysed position's best
 *   children (all that reach its score) are analysed in turn, where "analysed" below A stones
 *   means Solver.bestMoves: the exact score and the set of best columns, which costs one solve
 *   and a null-window test per other column. These are exactly the positions the perfect bot
 *   meets when it plays itself (it picks among equal best moves at random), so up to D stones its
 *   moves need no search.
 *
 * Results are appended to the log (default /tmp/connect4-book.log) as `<moves> <score> [best]`
 * lines as soon as they are known; a restarted run reads them back and skips that work, so a long
 * run can be stopped and resumed, and `--compile` turns the log into the data file without
 * solving anything. The solver keeps one big table (default 2^26 slots, 512 MB) for the whole run
 * and consults the growing book as it searches.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { WIDTH } from '../src/games/connect4/bitboard.js';
import { Book, canonicalKey } from '../src/games/connect4/solver/book.js';
import { Position } from '../src/games/connect4/solver/position.js';
import { Solver } from '../src/games/connect4/solver/solver.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const depth = Number(flag('depth', '12'));
const all = Number(flag('all', '1'));
const logFile = flag('log', '/tmp/connect4-book.log');
const outFile = flag('out', new URL('../src/games/connect4/solver/book-data.ts', import.meta.url).pathname);
const solver = new Solver({ tableLog: Number(flag('table-log', '26')) });

/** Entries: canonical key → moves, score and best columns (1-based digits, '' if unknown). */
const entries = new Map<number, { moves: string; score: number; best: string }>();
const book = new Book(depth);
solver.book = book;

function keyOf(p: Position): number {
  return canonicalKey(p.curLo + p.maskLo, p.curHi + p.maskHi);
}

/** Best columns are relative to `moves`; Book.set maps them to the stored orientation itself. */
function record(moves: string, p: Position, score: number, best: string, fromLog: boolean): void {
  const key = keyOf(p);
  const known = entries.get(key);
  if (known && (known.best !== '' || best === '')) return;
  entries.set(key, { moves: best === '' && known ? known.moves : moves, score, best });
  book.set(p, score, best === '' ? undefined : Array.from(best, (c) => Number(c) - 1));
  if (!fromLog) appendFileSync(logFile, `${moves} ${score}${best === '' ? '' : ` ${best}`}\n`);
}

if (existsSync(logFile)) {
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const m = /^([1-7]*) (-?\d+)(?: ([1-7]+))?$/.exec(line.trim());
    if (!m) continue;
    const parsed = Position.parse(m[1]!);
    if (parsed.ok) record(m[1]!, parsed.value, Number(m[2]), m[3] ?? '', true);
  }
  console.error(`resumed ${entries.size} entries from ${logFile}`);
}

const started = Date.now();
const cpu0 = process.cpuUsage();
let analysed = 0;

function cpuSeconds(): number {
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1e6;
}

/** Exact scores of all children (null: full column). */
function analyseAll(moves: string, p: Position): (number | null)[] {
  const values: (number | null)[] = [];
  for (let col = 0; col < WIDTH; col++) {
    if (!p.canPlay(col)) {
      values.push(null);
      continue;
    }
    if (p.isWinningMove(col)) {
      values.push((43 - p.moves) >> 1);
      continue;
    }
    const child = p.clone();
    child.playCol(col);
    let score = entries.get(keyOf(child))?.score;
    if (score === undefined) {
      score = solver.solve(child);
      record(moves + String(col + 1), child, score, '', false);
    }
    values.push(0 - score);
  }
  return values;
}

/** Score and best columns (0-based) of a position, from the log or by search. */
function analyse(moves: string, p: Position): { score: number; best: number[] } {
  const known = entries.get(keyOf(p));
  if (known && known.best !== '') {
    return { score: known.score, best: book.bestColumns(p) ?? [] };
  }
  const t0 = Date.now();
  const nodes0 = solver.nodeCount;
  let score: number;
  let best: number[];
  if (p.moves < all) {
    const values = analyseAll(moves, p);
    score = Math.max(...values.map((v) => v ?? -99));
    best = values.flatMap((v, i) => (v === score ? [i] : []));
  } else {
    ({ score, columns: best } = solver.bestMoves(p));
  }
  record(moves, p, score, best.map((c) => String(c + 1)).join(''), false);
  analysed++;
  console.error(
    `${moves === '' ? '(empty)' : moves}: score ${score}, best ${best.map((c) => c + 1).join(',')} ` +
      `[${Date.now() - t0} ms, ${solver.nodeCount - nodes0} nodes; ${entries.size} entries, ${cpuSeconds().toFixed(0)} s CPU]`,
  );
  return { score, best };
}

function expand(moves: string, p: Position): void {
  const { score, best } = analyse(moves, p);
  for (const col of best) {
    if (p.isWinningMove(col)) continue; // the game ends there
    const child = p.clone();
    child.playCol(col);
    const childMoves = moves + String(col + 1);
    record(childMoves, child, 0 - score, '', false);
    if (child.moves < depth) expand(childMoves, child);
  }
}

if (!process.argv.includes('--compile')) expand('', new Position());

const maxStones = Math.max(0, ...[...entries.values()].map((e) => e.moves.length));
const lines = [...entries.values()]
  .sort((a, b) => a.moves.length - b.moves.length || (a.moves < b.moves ? -1 : 1))
  .map((e) => `${e.moves} ${e.score}${e.best === '' ? '' : ` ${e.best}`}`);
const header =
  `# connect4-book depth=${maxStones} entries=${lines.length}: perfect-play tree below ${depth} stones, ` +
  `all positions below ${all} stones analysed; generated by bench/connect4-book.ts`;
writeFileSync(
  outFile,
  `// Generated by bench/connect4-book.ts; do not edit by hand. Format: see book.ts.\n` +
    `export const BOOK_TEXT = \`${[header, ...lines].join('\n')}\n\`;\n`,
);
console.error(
  `done: ${analysed} positions analysed this run, ${lines.length} entries, deepest ${maxStones} stones, ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s wall, ${cpuSeconds().toFixed(0)} s CPU this run -> ${outFile}`,
);
