// `npm run bench -- ladder`: where Die Liga's house levels stand against each other (issue 34:
// "house bot levels have fixed, anchored ratings"). Every pair of levels plays N games in-process
// (colours alternate; Dame: four random plies to open; Ostseeschach: a seeded start layout per two
// games, both colours), a Bradley–Terry fit of all games gives each level a rating on the Elo
// scale, shifted so that the reference level sits at its anchor (Dame depth4, Ostseeschach
// engine-fast, both 1500); the table shows them beside the anchors src/ladder/ratings.ts uses. The full engines
// (the server's move time) are too slow to calibrate here and keep their provisional anchors.
// Connect Four: two random plies to open, strong held at 1500, perfect within 1 s a move.
//   npx tsx bench/ladder-anchors.ts [--game dame|ostseeschach|connect4] [--games 20] [--fast-ms 100]
import { Rng } from '../src/core/rng.js';
import { createDameBot, engineBot, type DameBot } from '../src/games/dame/bots/index.js';
import { playGame as playDame, points } from '../src/games/dame/bots/arena.js';
import { chooseMove, type BotLevel } from '../src/games/connect4/bots/index.js';
import { apply as applyC4, initialState, legalMoves, status as statusC4, type C4State } from '../src/games/connect4/rules.js';
import { createEngineBot, randomBot, type Bot } from '../src/games/ostseeschach/bots/index.js';
import { greedyBot } from '../src/games/ostseeschach/bots/greedy.js';
import { gameWinner, playGame as playChess } from '../src/games/ostseeschach/bots/play.js';
import { createStart } from '../src/games/ostseeschach/setup.js';
import type { LadderGame } from '../src/ladder/types.js';
import { HOUSE_LEVELS } from '../src/ladder/ratings.js';
import { bradleyTerry, type PairGame } from '../src/tournament/ratings.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const gameArg = process.argv.indexOf('--game');
const game = (gameArg > 0 ? process.argv[gameArg + 1] : 'dame') as LadderGame;
if (game !== 'dame' && game !== 'ostseeschach' && game !== 'connect4') throw new Error('--game dame, ostseeschach or connect4');

const games = arg('games', 20);
const fastMs = arg('fast-ms', 100);

/** A level: its id in HOUSE_LEVELS and how one game against another level goes (1, ½, 0 for it). */
interface Level {
  id: string;
  play: (other: Level, g: number, first: boolean) => number;
}

const dameLevel = (id: string, make: () => DameBot): Level & { make: () => DameBot } => ({
  id,
  make,
  play(other, g, first) {
    const o = other as Level & { make: () => DameBot };
    const rng = Rng.seeded(`${id}-${other.id}-${g}`);
    const rec = playDame(first ? make() : o.make(), first ? o.make() : make(), { budgetMs: fastMs, rng, randomPlies: 4, maxPlies: 400 });
    return points(rec.result, first ? 'white' : 'black');
  },
});

const chessLevel = (id: string, make: () => Bot): Level & { make: () => Bot } => ({
  id,
  make,
  play(other, g, first) {
    const o = other as Level & { make: () => Bot };
    // Two games a layout, one with each colour.
    const start = createStart(Rng.seeded(`anchors-${id < other.id ? id : other.id}-${id < other.id ? other.id : id}-${g >> 1}`));
    const mine = make();
    const theirs = o.make();
    const rec = playChess(start, first ? { ONE: mine, TWO: theirs } : { ONE: theirs, TWO: mine }, fastMs, Rng.seeded(`${id}-${other.id}-${g}`));
    const winner = gameWinner(rec);
    return winner === null ? 0.5 : (winner === 'ONE') === first ? 1 : 0;
  },
});

/** Connect Four: two random plies to open (seeded per two games), then the levels; perfect within 1 s a move. */
const c4Level = (id: BotLevel): Level => ({
  id,
  play(other, g, first) {
    const opening = Rng.seeded(`anchors-c4-${id < other.id ? id : other.id}-${id < other.id ? other.id : id}-${g >> 1}`);
    let state: C4State = initialState();
    for (let i = 0; i < 2; i++) {
      const moves = legalMoves(state);
      state = unwrap(applyC4(state, moves[opening.int(0, moves.length - 1)]!));
    }
    const rng = Rng.seeded(`${id}-${other.id}-${g}`);
    // After two plies player 0 (who moved first) is to move again: `first` plays player 0.
    for (let s = statusC4(state); s.kind === 'running'; s = statusC4(state)) {
      const level = (s.toMove === 0) === first ? id : (other.id as BotLevel);
      state = unwrap(applyC4(state, chooseMove(state, level, rng, { timeBudgetMs: 1000 })));
    }
    const end = statusC4(state);
    return end.kind === 'won' ? ((end.winner === 0) === first ? 1 : 0) : 0.5;
  },
});

function unwrap<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw new Error(`illegal move: ${JSON.stringify(r.error)}`);
  return r.value;
}

const LEVELS: Record<'dame' | 'ostseeschach' | 'connect4', { reference: string; levels: Level[] }> = {
  dame: {
    reference: 'depth4',
    levels: [
      dameLevel('random', () => createDameBot('random')),
      dameLevel('greedy', () => createDameBot('greedy')),
      dameLevel('depth2', () => createDameBot('depth2')),
      dameLevel('depth4', () => createDameBot('depth4')),
      dameLevel('engine-fast', () => engineBot()),
    ],
  },
  ostseeschach: {
    reference: 'engine-fast',
    levels: [chessLevel('random', () => randomBot), chessLevel('greedy', () => greedyBot), chessLevel('engine-fast', () => createEngineBot())],
  },
  connect4: { reference: 'strong', levels: [c4Level('easy'), c4Level('strong'), c4Level('perfect')] },
};

const { reference, levels } = LEVELS[game];
const played: PairGame[] = [];
const started = Date.now();
for (let i = 0; i < levels.length; i++) {
  for (let j = i + 1; j < levels.length; j++) {
    const a = levels[i]!;
    const b = levels[j]!;
    let score = 0;
    for (let g = 0; g < games; g++) {
      const s = a.play(b, g, g % 2 === 0);
      score += s;
      played.push({ a: a.id, b: b.id, score: s });
    }
    process.stderr.write(`${a.id} v ${b.id}: ${score}/${games}\n`);
  }
}
const fit = bradleyTerry(played, { prior: 1 });
const anchors = new Map(HOUSE_LEVELS[game].map((l) => [l.id, l.rating]));
const shift = (anchors.get(reference) ?? 1500) - fit.find((r) => r.name === reference)!.rating;
process.stdout.write(
  [
    `${game} house levels, ${games} games a pair, ${fastMs} ms a move for the engine, ${reference} at its anchor, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    `| level | measured (${reference} at its anchor) | 95 % interval | anchor in ratings.ts |`,
    '|---|---|---|---|',
    ...levels.map((l) => {
      const r = fit.find((x) => x.name === l.id)!;
      return `| ${l.id} | ${Math.round(r.rating + shift)} | ${Math.round(r.low + shift)}–${Math.round(r.high + shift)} | ${anchors.get(l.id) ?? '—'} |`;
    }),
    '',
  ].join('\n'),
);
