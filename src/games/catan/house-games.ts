import { Rng } from '../../core/rng.js';
import { createCatanBot, type CatanStrategy } from './bots/strategies.js';
import type { BotSeat } from './house-bot.js';
import { COLOURS, type Colour } from './rules/index.js';

/**
 * The schedule of the house games `serve` keeps going (docs/catan.md, "House games"): so that a
 * spectator sees different games, each game of a table has another line-up of strategies (the
 * search bot against weaker bots, the rule-based bot among beginners, …), the strongest bot of
 * the line-up plays another colour than in the game before, and names, the other colours and the
 * order of joining are drawn anew. Everything follows from the seed, the table and the game's
 * number, so a server started with the same seed shows the same sequence of games.
 */

/** One seat of a house game: who plays, in which colour, under which name. */
export interface HouseSeat {
  readonly strategy: CatanStrategy;
  readonly colour: Colour;
  readonly name: string;
}

/**
 * The line-ups, strongest first; a 3-player game takes the first three. No two are alike, with
 * four players or with three, so consecutive games always differ.
 */
export const HOUSE_LINE_UPS: readonly (readonly [CatanStrategy, CatanStrategy, CatanStrategy, CatanStrategy])[] = [
  ['search', 'weighted', 'builder', 'random'],
  ['search', 'random', 'random', 'random'],
  ['weighted', 'builder', 'builder', 'random'],
  ['search', 'weighted', 'weighted', 'weighted'],
  ['weighted', 'random', 'random', 'random'],
];

/** What a spectator reads in a name: how the bot plays (docs/catan-ai.md). */
export const STRATEGY_LABELS: Readonly<Record<CatanStrategy, string>> = {
  random: 'Zufall',
  builder: 'Baumeister',
  weighted: 'Planer',
  search: 'Denker',
};

const FIRST_NAMES = ['Anton', 'Berta', 'Cäsar', 'Dora', 'Emil', 'Frieda', 'Gustav', 'Hanna', 'Ida', 'Julius', 'Konrad', 'Ludwig'];

/**
 * The seats of game `game` (0, 1, 2, … ) of house table `table` (1, 2, …) on a server with `seed`,
 * in the order the bots join the lobby. The turn order is drawn by the rules from the game's own
 * seed (D4), as in every game.
 */
export function houseLineUp(seed: string, table: number, game: number, players: 3 | 4): HouseSeat[] {
  const schedule = Rng.seeded(`${seed}/house/${table}`);
  const lineUps = schedule.shuffle(HOUSE_LINE_UPS);
  const featured = schedule.shuffle(COLOURS);
  const rng = Rng.seeded(`${seed}/house/${table}/${game}`);
  const strategies = lineUps[game % lineUps.length]!.slice(0, players);
  // The strongest bot (first) goes round the four colours; the others take the rest in any order.
  const first = featured[game % featured.length]!;
  const colours = [first, ...rng.shuffle(COLOURS.filter((c) => c !== first))];
  const names = rng.shuffle(FIRST_NAMES);
  const seats = strategies.map((strategy, i) => ({ strategy, colour: colours[i]!, name: `${STRATEGY_LABELS[strategy]} ${names[i]!}` }));
  return rng.shuffle(seats);
}

/** The seats as the hall takes them: each with its strategy's bot. */
export function houseBotSeats(seats: readonly HouseSeat[]): BotSeat[] {
  return seats.map((s) => ({ name: s.name, colour: s.colour, strategy: (seed: string) => createCatanBot(s.strategy, seed) }));
}
