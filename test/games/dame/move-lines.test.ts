import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { printsMoves } from '../../../src/games/dame/commands.js';
import { DameClient, type DamePlayer } from '../../../src/games/dame/client.js';
import { findTurn, formatTurnLine, type DameTurn } from '../../../src/games/dame/move-lines.js';
import { parsePieces, parseSquare } from '../../../src/games/dame/notation.js';
import { apply, createState, initialState, legalMoves, type DameState } from '../../../src/games/dame/rules.js';
import { createDameServer, type DameServer } from '../../../src/games/dame/server.js';

/**
 * Issue 33 item 13: `bot dame` prints a line per turn as it plays — on a terminal, or with
 * `--moves` — and only its one JSON line otherwise, as scripts expect.
 */

const sq = (name: string): number => parseSquare(name) as number;

const mv = (from: string, to: string) => ({ from: sq(from), to: sq(to) });

describe('the turn line', () => {
  it('numbers the turn, names the side (ours marked), spells the moves as a PLAY command does, and our time', () => {
    expect(formatTurnLine(1, { side: 'white', mine: true, moves: [mv('C3', 'D4')], ms: 412.4 })).toBe('  1. White (us)  C3:D4  412 ms');
    expect(formatTurnLine(2, { side: 'black', mine: false, moves: [mv('F6', 'E5')], ms: null })).toBe('  2. Black       F6:E5');
    // One piece's captures chain with `:`, another piece's move after a capture follows a `;`.
    expect(formatTurnLine(17, { side: 'black', mine: true, moves: [mv('F6', 'D4'), mv('D4', 'B2')], ms: 3 })).toBe(' 17. Black (us)  F6:D4:B2  3 ms');
    expect(formatTurnLine(18, { side: 'white', mine: false, moves: [mv('D4', 'F6'), mv('G3', 'H4')], ms: null })).toBe(' 18. White       D4:F6;G3:H4');
    expect(formatTurnLine(120, { side: 'white', mine: false, moves: null, ms: null })).toBe('120. White       ?');
  });

  it('finds the opponent\'s turn from two boards, a whole capture sequence included', () => {
    const start = initialState();
    const after = apply(start, legalMoves(start).find((m) => m.from === sq('C3') && m.to === sq('D4'))!);
    expect(after.ok && findTurn(start, after.value)).toEqual([mv('C3', 'D4')]);
    // A double jump and the move after it: White E3 takes D4 and D6 (landing on C5, then on E7), then E7 steps to D8.
    const board = parsePieces('w E3; b D4 D6 H8');
    if (!board.ok) throw new Error(board.error);
    const before = createState(board.value, 'white');
    let state: DameState = before;
    for (const [from, to] of [['E3', 'C5'], ['C5', 'E7'], ['E7', 'D8']] as const) {
      const next = apply(state, legalMoves(state).find((m) => m.from === sq(from) && m.to === sq(to))!);
      if (!next.ok) throw new Error(next.error.message);
      state = next.value;
    }
    expect(state.toMove).toBe('black');
    expect(findTurn(before, state)).toEqual([mv('E3', 'C5'), mv('C5', 'E7'), mv('E7', 'D8')]);
    expect(formatTurnLine(5, { side: 'white', mine: false, moves: findTurn(before, state), ms: null })).toMatch(/ E3:C5:E7:D8$/);
    // A board no legal turn gives.
    expect(findTurn(start, start)).toBeNull();
  });

  it('prints on a terminal by default, elsewhere only with --moves; --no-moves silences it', () => {
    expect(printsMoves(undefined, true)).toBe(true);
    expect(printsMoves(undefined, false)).toBe(false);
    expect(printsMoves(undefined, undefined)).toBe(false);
    expect(printsMoves(true, false)).toBe(true);
    expect(printsMoves(false, true)).toBe(false);
  });
});

// ---- the command, not a terminal ---------------------------------------------------------------

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'src', 'cli.ts');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

let server: DameServer;
beforeAll(async () => {
  server = createDameServer({ host: '127.0.0.1', port: 0, log: silentLogger, store: null, motdDelayMs: 100 });
  await server.start();
});
afterAll(async () => {
  await server.stop();
});

/** Runs `bot dame` for White with a piped stdout, Black played here; the game's turns as Black saw them. */
async function playCommand(extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string; turns: DameTurn[] }> {
  const gameId = server.createGame({ moveTimeMs: 2000 });
  const turns: DameTurn[] = [];
  const random: DamePlayer = (state) => legalMoves(state)[0]!;
  const black = new DameClient({ host: '127.0.0.1', port: server.port, gameId, seat: 1, player: random, log: silentLogger, onTurn: (t) => turns.push(t) });
  const blackDone = black.run();
  const child = spawn(
    process.execPath,
    ['--import', tsx, cli, 'bot', 'dame', '-g', gameId, '-p', '1', '--port', String(server.port), '--bot', 'greedy', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  await blackDone;
  return { code, stdout, stderr, turns };
}

describe('bot dame, stdout not a terminal', () => {
  it('prints one line per turn with --moves, then the result line; without it only the result line', async () => {
    const [withMoves, plain] = await Promise.all([playCommand(['--moves']), playCommand([])]);
    for (const run of [withMoves, plain]) expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);

    // Without the flag: exactly today's output, one JSON line.
    const plainLines = plain.stdout.trimEnd().split('\n');
    expect(plainLines).toHaveLength(1);
    expect(JSON.parse(plainLines[0]!)).toMatchObject({ seat: 0, error: null });

    const lines = withMoves.stdout.trimEnd().split('\n');
    const result = JSON.parse(lines.pop()!) as { outcome: string; plays: number };
    expect(['won', 'lost', 'draw']).toContain(result.outcome);
    // Every turn of the game, numbered from 1, White (us) and Black taking turns …
    expect(lines.length).toBeGreaterThan(10);
    lines.forEach((line, i) => {
      const white = i % 2 === 0;
      expect(line).toMatch(white ? /^ *\d+\. White \(us\) {2}[A-H][1-8]([:;][A-H][1-8])+ {2}\d+ ms$/ : /^ *\d+\. Black {7}[A-H][1-8]([:;][A-H][1-8])+$/);
      expect(Number(/^ *(\d+)\./.exec(line)?.[1])).toBe(i + 1);
    });
    // … and the very moves that were played: Black's client saw the same game from the other side.
    // (A turn of two captures by different pieces may give its board in either order: the side that
    // did not play it cannot tell which, so the single moves are compared, not their order.)
    const chains = lines.map((l) => /([A-H][1-8](?:[:;][A-H][1-8])+)/.exec(l)?.[1]);
    const seenByBlack = withMoves.turns.map((t) => formatTurnLine(0, t).match(/([A-H][1-8](?:[:;][A-H][1-8])+)/)?.[1]);
    const singleMoves = (c: string | undefined): string[] =>
      (c ?? '').split(';').flatMap((part) => part.split(':').slice(1).map((to, i) => `${part.split(':')[i] ?? ''}:${to}`)).sort();
    expect(chains.map(singleMoves)).toEqual(seenByBlack.map(singleMoves));
    // Our single moves add up to the PLAY commands sent.
    const singles = (c: string | undefined): number => (c ?? '').split(';').reduce((n, part) => n + part.split(':').length - 1, 0);
    const ours = chains.filter((_, i) => i % 2 === 0).reduce((n, c) => n + singles(c), 0);
    expect(ours).toBe(result.plays);
  }, 90_000);
});
