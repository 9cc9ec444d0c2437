import { Rng } from '../../core/rng.js';

/**
 * Who of the house bots plays which round (docs/mia.md, "House bots"). Mia has no colours or
 * sides to vary, so the line-up is what changes: each round the server offers, some house bots sit
 * it out, so that a spectator sees head-to-heads (adaptive against random), three-handed rounds and
 * the full table in turn, instead of the same four bots every round. The sequence of line-ups
 * follows from the seed alone: the same seed gives the same line-ups, round after round.
 *
 * Nobody sits out two rounds in a row, so no house bot comes near the server's expiry of players
 * that stop joining (decision 13); with `maxMissedRounds` 1 nobody sits out at all.
 */
export class HouseLineup {
  private readonly rng: Rng;
  private round = 0;
  private playing: ReadonlySet<string>;
  /** House bots invited to the current round so far: a second invitation to one of them opens the next round. */
  private invited = new Set<string>();

  constructor(
    private readonly names: readonly string[],
    seed: string | number,
    private readonly maxMissedRounds = 0,
  ) {
    this.rng = Rng.seeded(`${String(seed)}:mia-house-lineup`);
    this.playing = new Set(names);
  }

  /** The line-up of the next round: every name when there are fewer than three or sitting out is unsafe. */
  next(): readonly string[] {
    this.round++;
    const n = this.names.length;
    if (n < 3 || this.maxMissedRounds === 1) {
      this.playing = new Set(this.names);
      return this.names;
    }
    // Those who sat out the last round play this one; the others fill the table up to its size.
    const size = this.rng.int(2, n);
    const due = this.names.filter((name) => !this.playing.has(name));
    const rest = this.rng.shuffle(this.names.filter((name) => this.playing.has(name)));
    const chosen = new Set([...due, ...rest].slice(0, Math.max(size, due.length)));
    this.playing = chosen;
    return this.names.filter((name) => chosen.has(name));
  }

  /** Rounds offered so far (line-ups drawn). */
  get rounds(): number {
    return this.round;
  }

  /**
   * Whether house bot `name` joins the round it has just been invited to. The server invites every
   * player of a round at once, so the first invitation after `name`'s previous one starts a new
   * round for the whole house.
   */
  joins(name: string): boolean {
    if (this.round === 0 || this.invited.has(name)) {
      this.next();
      this.invited = new Set();
    }
    this.invited.add(name);
    return this.playing.has(name);
  }
}
