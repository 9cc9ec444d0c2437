/**
 * Generates the Connect Four opening book (src/games/connect4/solver/book-data.ts) with our own
 * solver.
 *
 *   npx tsx bench/connect4-book.ts [--depth D] [--width W] [--all A] [--table-log L]
 *       [--max-cpu-minutes M] [--log FILE] [--out FILE]
 *   npx tsx bench/connect4-book.ts --compile [--log FILE] [--out FILE]
 *   npx tsx bench/connect4-book.ts --binary
 *
 * What it solves (a position and its mirror image count once):
 * - every position with fewer than A stones (default 1: the empty board) is analysed completely:
 *   all its children get exact scores (for the empty board, the opening scores of spec §6.5);
 * - from there, breadth first, the perfect-play tree below D stones (default 17): the positions
 *   reached by best moves are analysed with Solver.bestMoves (the exact score and every best
 *   column: one solve and a null-window test per other column), at most W a level (default: no
 *   limit), chosen round-robin over their parents so that every analysed position keeps a best
 *   move into the next level. The positions its best moves reach one level below the last are
 *   stored with their score. These are the positions the perfect bot meets when it plays itself:
 *   inside the book it picks among the best moves that stay in the book.
 *
 * Results are appended to the log (default /tmp/connect4-book.log) as `<moves> <score> [best]`
 * lines as soon as they are known; a restarted run reads them back and skips that work, so a long
 * run can be stopped and resumed (or continued deeper or wider), and `--compile` turns the log
 * into the data file without solving anything. The data file is rewritten after every level. The
 * solver keeps one big table (default 2^26 slots, 512 MB) for the whole run and consults the
 * growing book as it searches. `--max-cpu-minutes` stops the run (between two positions) once
 * this run has used that much CPU time.
 *
 * Next to the text (the readable, diffable source that tests check) it writes book.bin, the
 * binary form the solver loads at run time (Book.encode); `--binary` only rewrites book.bin from
 * the committed text.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { WIDTH } from '../src/games/connect4/bitboard.js';
import { Book, canonicalKey } from '../src/games/connect4/solver/book.js';
import { Position } from '../src/games/connect4/solver/position.js';
import { Solver } from '../src/games/connect4/solver/solver.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const depth = Number(flag('depth', '17'));
const all = Number(flag('all', '1'));
const width = Number(flag('width', 'Infinity'));
const maxCpuSeconds = 60 * Number(flag('max-cpu-minutes', 'Infinity'));
const logFile = flag('log', '/tmp/connect4-book.log');
const outFile = flag('out', new URL('../src/games/connect4/solver/book-data.ts', import.meta.url).pathname);
const binFile = new URL('../src/games/connect4/solver/book.bin', import.meta.url).pathname;
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
    const m = /^([1-7]*) (-?\d+)(?: ([1-7]+))?$/.exec(line.trimEnd());
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

/** Best columns, the centre first (the order the solver searches them, and a book prefers). */
function centreFirst(columns: readonly number[]): number[] {
  return [...columns].sort((a, b) => Math.abs(a - 3) - Math.abs(b - 3) || a - b);
}

/**
 * Breadth first, one number of stones at a time, so that a run stopped early (or compiled from a
 * partial log) covers every self-play line to the same depth. A level keeps at most `width`
 * positions, chosen round-robin over their parents (every parent's most central best move first,
 * then every parent's second, …), so that each analysed position keeps at least one continuation
 * in the book; the perfect bot prefers best moves whose position the book has analysed.
 */
function expandTree(): void {
  let level: { moves: string; p: Position }[] = [{ moves: '', p: new Position() }];
  while (level.length > 0 && level[0]!.p.moves < depth) {
    const stones = level[0]!.p.moves;
    const cpuBefore = cpuSeconds();
    const candidates: { moves: string; p: Position; key: number }[][] = [];
    for (const { moves, p } of level) {
      if (cpuSeconds() > maxCpuSeconds) {
        console.error(`-- stopping: ${maxCpuSeconds} s of CPU used this run`);
        return;
      }
      const { score, best } = analyse(moves, p);
      const children: { moves: string; p: Position; key: number }[] = [];
      for (const col of centreFirst(best)) {
        if (p.isWinningMove(col)) continue; // the game ends there
        const child = p.clone();
        child.playCol(col);
        const childMoves = moves + String(col + 1);
        record(childMoves, child, 0 - score, '', false);
        children.push({ moves: childMoves, p: child, key: keyOf(child) });
      }
      candidates.push(children);
    }
    const kept = new Map<number, { moves: string; p: Position }>();
    const distinct = new Set(candidates.flat().map((c) => c.key)).size;
    for (let round = 0; round < WIDTH && kept.size < width; round++) {
      for (const children of candidates) {
        const c = children[round];
        if (c && !kept.has(c.key) && kept.size < width) kept.set(c.key, c);
      }
    }
    console.error(
      `-- ${stones} stones: ${level.length} positions analysed in ${(cpuSeconds() - cpuBefore).toFixed(0)} s CPU; ` +
        `${distinct} distinct children, ${kept.size} kept (${cpuSeconds().toFixed(0)} s CPU this run)`,
    );
    writeBook();
    level = [...kept.values()];
  }
}

/**
 * Writes the book: the entries up to `depth` stones, with best columns below it, so that a log
 * from a deeper run gives the shallower book too.
 */
function writeBook(): number {
  const kept = [...entries.values()]
    .filter((e) => e.moves.length <= depth)
    .map((e) => (e.moves.length < depth ? e : { ...e, best: '' }))
    .sort((a, b) => a.moves.length - b.moves.length || (a.moves < b.moves ? -1 : 1));
  const maxStones = Math.max(0, ...kept.map((e) => e.moves.length));
  const lines = kept.map((e) => `${e.moves} ${e.score}${e.best === '' ? '' : ` ${e.best}`}`);
  const analysedCount = kept.filter((e) => e.best !== '').length;
  const header =
    `# connect4-book depth=${maxStones} entries=${lines.length} analysed=${analysedCount}: the perfect-play tree below ${depth} stones ` +
    `(${Number.isFinite(width) ? `at most ${width}` : 'all'} positions a level), every move scored in the positions with fewer than ${all} stones; ` +
    `generated by bench/connect4-book.ts`;
  writeFileSync(
    outFile,
    `// Generated by bench/connect4-book.ts; do not edit by hand. Format: see book.ts.\n` +
      `export const BOOK_TEXT = \`${[header, ...lines].join('\n')}\n\`;\n`,
  );
  return lines.length;
}

/** book.bin from the text just written (or the committed one): what the solver loads. */
async function writeBinary(): Promise<void> {
  const { BOOK_TEXT } = (await import(`${pathToFileURL(outFile).href}?t=${Date.now()}`)) as { BOOK_TEXT: string };
  writeFileSync(binFile, Book.parse(BOOK_TEXT).encode());
}

if (process.argv.includes('--binary')) {
  await writeBinary();
  console.error(`wrote ${binFile}`);
  process.exit(0);
}
if (!process.argv.includes('--compile')) expandTree();
const written = writeBook();
await writeBinary();
console.error(
  `done: ${analysed} positions analysed this run, ${written} entries written, ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s wall, ${cpuSeconds().toFixed(0)} s CPU this run -> ${outFile}`,
);
