// `npm run bench -- ladder`: where Die Liga's Dame house levels stand against each other (issue 34:
// "house bot levels have fixed, anchored ratings"). Every pair of levels plays N games in-process
// (colours alternate, four random plies to open), a Bradley–Terry fit of all games gives each level
// a rating on the Elo scale, shifted so that depth4 sits at its anchor; the table shows them beside
// the anchors src/ladder/ratings.ts uses. The full engine (the server's move time) is too slow to
// calibrate here and keeps its provisional anchor.
//   npx tsx bench/ladder-anchors.ts [--games 20] [--fast-ms 100]
import { Rng } from '../src/core/rng.js';
import { createDameBot, engineBot, type DameBot } from '../src/games/dame/bots/index.js';
import { playGame, points } from '../src/games/dame/bots/arena.js';
import { HOUSE_LEVELS } from '../src/ladder/ratings.js';
import { bradleyTerry, type PairGame } from '../src/tournament/ratings.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const games = arg('games', 20);
const fastMs = arg('fast-ms', 100);
const levels: { id: string; make: () => DameBot }[] = [
  { id: 'random', make: () => createDameBot('random') },
  { id: 'greedy', make: () => createDameBot('greedy') },
  { id: 'depth2', make: () => createDameBot('depth2') },
  { id: 'depth4', make: () => createDameBot('depth4') },
  { id: 'engine-fast', make: () => engineBot() },
];

const played: PairGame[] = [];
const started = Date.now();
for (let i = 0; i < levels.length; i++) {
  for (let j = i + 1; j < levels.length; j++) {
    const a = levels[i]!;
    const b = levels[j]!;
    let score = 0;
    for (let g = 0; g < games; g++) {
      const aWhite = g % 2 === 0;
      const rng = Rng.seeded(`${a.id}-${b.id}-${g}`);
      const rec = playGame(aWhite ? a.make() : b.make(), aWhite ? b.make() : a.make(), { budgetMs: fastMs, rng, randomPlies: 4, maxPlies: 400 });
      const s = points(rec.result, aWhite ? 'white' : 'black');
      score += s;
      played.push({ a: a.id, b: b.id, score: s });
    }
    process.stderr.write(`${a.id} v ${b.id}: ${score}/${games}\n`);
  }
}
const fit = bradleyTerry(played, { prior: 1 });
const anchors = new Map(HOUSE_LEVELS.dame.map((l) => [l.id, l.rating]));
const shift = (anchors.get('depth4') ?? 1500) - fit.find((r) => r.name === 'depth4')!.rating;
process.stdout.write(
  [
    `Dame house levels, ${games} games a pair, ${fastMs} ms a move for the engine, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    '| level | measured (depth4 at its anchor) | 95 % interval | anchor in ratings.ts |',
    '|---|---|---|---|',
    ...levels.map((l) => {
      const r = fit.find((x) => x.name === l.id)!;
      return `| ${l.id} | ${Math.round(r.rating + shift)} | ${Math.round(r.low + shift)}–${Math.round(r.high + shift)} | ${anchors.get(l.id) ?? '—'} |`;
    }),
    '',
  ].join('\n'),
);
