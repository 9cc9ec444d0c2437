import { randomUUID } from 'node:crypto';
import { systemClock, type Clock, type Timer } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { groupNow, type GroupSize } from './grouping.js';
import { pairNow, type PairingOptions, type Waiter } from './pairing.js';
import { initialRating, nearestHouseLevel, rateAgainstAnchor, rateMulti, rateTwo, type HouseLevel } from './ratings.js';
import { LadderStoreError, type LadderStore } from './store.js';
import type { LadderGame, LadderGameRecord, LadderGameSeat, LossReason, Rating, RosterEntry } from './types.js';

/**
 * The running ladder (issue 34): who is waiting for a game of which kind, the pairing tick, the
 * house bot after a wait, and the rating of every finished game. Each game plugs in a table
 * (`LadderTable`): the game's server hands a connection over with its entry, and the table plays
 * the game the ladder made through that server's own matches, so a ladder game is an ordinary
 * game of the server (logged, recorded, spectated) with ladder names in its seats.
 */

export interface LadderSettings {
  /** A waiter nobody fits is given a house bot this long after it came. */
  houseAfterMs: number;
  /** Rating window at 0 s of waiting, and how fast it widens (points a second). */
  window: number;
  widenPerSecond: number;
  /** Two entries from one host (IP) may be paired (off: a student cannot farm a second code). */
  sameHostAllowed: boolean;
  /** Games (waiting or playing) one code may have at once; one more is refused with words. */
  maxGamesPerEntry: number;
  /** Rated games before a rating counts as established (shown as provisional before). */
  minGames: number;
  /** How often waiting clients are paired. */
  tickMs: number;
}

export const LADDER_DEFAULTS: LadderSettings = {
  houseAfterMs: 10_000,
  window: 150,
  widenPerSecond: 40,
  sameHostAllowed: true,
  maxGamesPerEntry: 1,
  minGames: 10,
  tickMs: 250,
};

/** A side of a game the ladder made. */
export type TableSeat<H> = { kind: 'entry'; entry: RosterEntry; handle: H } | { kind: 'house'; level: HouseLevel };

/** How a game the ladder made ended, as its table saw it (one element per seat). */
export interface TableOutcome {
  /**
   * null: the game did not count (the server stopped, an internal error): not rated. Two seats:
   * 1, ½ or 0; a table for more seats gives each seat's place (1 the winner, equal places tie).
   */
  scores: number[] | null;
  /** Why each side lost (null for a winner, a draw or a side that lost on the board's merits… see LossReason 'played'). */
  reasons: (LossReason | null)[];
  recordId: string | null;
  /** Words for a game that did not count. */
  note?: string;
}

/** One game's plug: plays a game between two seats through the game's server. */
export interface LadderTable<H> {
  readonly game: LadderGame;
  readonly players?: undefined;
  play(seats: [TableSeat<H>, TableSeat<H>], context: { gameId: string; season: string }): Promise<TableOutcome>;
  /** Tells a waiting handle that no game will come (the ladder stopped): the client gets words and is closed. */
  refuse(handle: H, text: string): void;
}

/**
 * The plug of a game for more than two (Catan). Students nearest in rating are grouped up to
 * `players.max`; after the house wait, house seats fill a table up to `players.min`. The outcome's
 * scores are places (1 the winner), rated with OpenSkill (`rateMulti`), the house seats anchored.
 */
export interface MultiLadderTable<H> {
  readonly game: LadderGame;
  readonly players: GroupSize;
  play(seats: TableSeat<H>[], context: { gameId: string; season: string }): Promise<TableOutcome>;
  /** Tells a waiting handle that no game will come (the ladder stopped): the client gets words and is closed. */
  refuse(handle: H, text: string): void;
}

export type Admission = { ok: true; entry: RosterEntry } | { ok: false; text: string };

interface Waiting<H> {
  waiter: Waiter;
  entry: RosterEntry;
  handle: H;
}

interface GameQueue<H> {
  table: LadderTable<H> | MultiLadderTable<H>;
  waiting: Map<string, Waiting<H>>;
}

/** What the staff page shows live per game. */
export interface LiveLadder {
  game: LadderGame;
  waiting: { entryId: string; name: string; since: number; seat: 0 | 1 | null }[];
  playing: { gameId: string; names: string[]; startedAt: number }[];
}

export class Ladder {
  private readonly queues = new Map<LadderGame, GameQueue<unknown>>();
  private readonly byCode = new Map<string, RosterEntry>();
  private readonly byReservation = new Map<string, RosterEntry>();
  /** Per entry: tickets waiting or games playing (the per-code cap). */
  private readonly active = new Map<string, number>();
  private readonly playing = new Map<string, { game: LadderGame; names: string[]; startedAt: number }>();
  private readonly frozen = new Set<LadderGame>();
  private readonly seasons = new Map<LadderGame, string>();
  /** Rating updates of one game kind run one after another (two games of an entry may end together). */
  private readonly chains = new Map<LadderGame, Promise<void>>();
  private tick: Timer | null = null;
  private refresh: Timer | null = null;
  private stopped = false;
  readonly settings: LadderSettings;
  private readonly clock: Clock;

  constructor(
    private readonly o: { store: LadderStore; log: Logger; clock?: Clock; settings?: Partial<LadderSettings>; rosterRefreshMs?: number },
  ) {
    this.settings = { ...LADDER_DEFAULTS, ...o.settings };
    this.clock = o.clock ?? systemClock;
  }

  get store(): LadderStore {
    return this.o.store;
  }

  /** Adds a game's table; its clients can enter once `start` has loaded the roster. */
  addTable<H>(table: LadderTable<H> | MultiLadderTable<H>): void {
    this.queues.set(table.game, { table, waiting: new Map() });
  }

  get games(): LadderGame[] {
    return [...this.queues.keys()];
  }

  async start(): Promise<void> {
    await this.reload();
    this.tick = this.clock.setInterval(() => this.pairAll(), this.settings.tickMs);
    const every = this.o.rosterRefreshMs ?? 5000;
    // Other serve processes (PostgreSQL) or the CLI may change the roster: read it again now and then.
    this.refresh = this.clock.setInterval(() => {
      this.reload().catch((err: unknown) => this.o.log.warn({ err }, 'ladder: cannot read the roster'));
    }, every);
  }

  /** Reads the roster and the seasons again (after a change through the API, at once). */
  async reload(): Promise<void> {
    const entries = await this.o.store.listEntries({ includeRevoked: true });
    this.byCode.clear();
    this.byReservation.clear();
    // Revoked entries stay known by their codes, so that their clients are told why they are refused.
    for (const e of entries) {
      this.byCode.set(e.code, e);
      this.byReservation.set(e.reservation.toLowerCase(), e);
    }
    for (const game of this.queues.keys()) {
      const season = await this.o.store.currentSeason(game);
      this.seasons.set(game, season.id);
      if (season.frozenAt !== null) this.frozen.add(game);
      else this.frozen.delete(game);
    }
  }

  /** Whether `code` is a ladder code of this roster (a revoked one too). */
  knows(code: string): boolean {
    return this.byCode.has(code) || this.byReservation.has(code.toLowerCase());
  }

  /**
   * A client presents `code` (a 13-character code or a reservation UUID) for `game`: null when it is
   * no code of the roster (the game's normal path goes on), else the entry or a refusal in words.
   */
  admit(game: LadderGame, code: string): Admission | null {
    const entry = this.byCode.get(code) ?? this.byReservation.get(code.toLowerCase());
    if (entry === undefined) return null;
    if (entry.revoked) return { ok: false, text: 'Liga: this code was revoked; ask your tutor for a new one' };
    if (this.stopped || !this.queues.has(game)) return { ok: false, text: 'Liga: the ladder is not open for this game right now' };
    if (this.frozen.has(game)) return { ok: false, text: 'Liga: the season is frozen; no more ladder games until staff start the next one' };
    if ((this.active.get(entry.id) ?? 0) >= this.settings.maxGamesPerEntry)
      return { ok: false, text: `Liga: this code already has ${this.settings.maxGamesPerEntry === 1 ? 'a ladder game' : `${this.settings.maxGamesPerEntry} ladder games`} waiting or running` };
    return { ok: true, entry };
  }

  /**
   * An admitted client waits for its game (`seat`: the seat it asked for, or null). The returned
   * function takes it out again (its connection is gone); it does nothing once the game is made.
   * Null: the code has as many games waiting or running as it may.
   */
  async enqueue(game: LadderGame, entry: RosterEntry, request: { seat: 0 | 1 | null; host: string }, handle: unknown): Promise<(() => void) | null> {
    const queue = this.queues.get(game);
    if (queue === undefined) throw new Error(`no ladder table for ${game}`);
    // Admitted together, two connections of one code are held to the cap here.
    if ((this.active.get(entry.id) ?? 0) >= this.settings.maxGamesPerEntry) return null;
    this.bump(entry.id, 1);
    const ticket = randomUUID();
    const state = { gone: false };
    const leave = (): void => {
      if (state.gone) return;
      state.gone = true;
      if (queue.waiting.delete(ticket)) this.bump(entry.id, -1);
    };
    try {
      const season = this.season(game);
      const rating = (await this.o.store.getRating(game, season, entry.id)) ?? initialRating();
      const lastOpponent = await this.o.store.lastOpponent(game, season, entry.id);
      const seats = await this.o.store.seatCounts(game, season, entry.id);
      if (state.gone) return leave;
      const waiter: Waiter = { ticket, entryId: entry.id, rating: rating.rating, rd: rating.rd, since: this.clock.now(), seat: request.seat, lastOpponent, seats, host: request.host };
      queue.waiting.set(ticket, { waiter, entry, handle });
      this.o.log.info({ game, entry: entry.id, name: entry.name, seat: request.seat, rating: Math.round(rating.rating) }, 'ladder: waiting');
    } catch (err) {
      this.bump(entry.id, -1);
      state.gone = true;
      throw err;
    }
    return leave;
  }

  /**
   * `enqueue` for a game's door, which answers its client at once: the returned function takes
   * the client out whenever it goes, even before the queue has it; `refuse` gets the words when no
   * game can come (the code's cap, or a store that does not answer).
   */
  join(game: LadderGame, entry: RosterEntry, request: { seat: 0 | 1 | null; host: string }, handle: unknown, refuse: (text: string) => void): () => void {
    let leave: (() => void) | null = null;
    let left = false;
    this.enqueue(game, entry, request, handle).then(
      (out) => {
        if (out === null) return refuse('Liga: this code already has as many ladder games waiting or running as it may');
        leave = out;
        if (left) out();
      },
      () => refuse('Liga: the ladder cannot take games right now (its store is not answering); try again in a minute'),
    );
    return () => {
      left = true;
      leave?.();
    };
  }

  private bump(entryId: string, by: number): void {
    const n = (this.active.get(entryId) ?? 0) + by;
    if (n <= 0) this.active.delete(entryId);
    else this.active.set(entryId, n);
  }

  private season(game: LadderGame): string {
    const s = this.seasons.get(game);
    if (s === undefined) throw new Error('the ladder has not started');
    return s;
  }

  private pairingOptions(): PairingOptions {
    const s = this.settings;
    return { window: s.window, widenPerSecond: s.widenPerSecond, houseAfterMs: s.houseAfterMs, sameHostAllowed: s.sameHostAllowed };
  }

  /** The pairing tick: every game's waiting clients paired now, or given a house bot after the wait. */
  pairAll(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    for (const [game, queue] of this.queues) {
      if (queue.waiting.size === 0) continue;
      const byTicket = queue.waiting;
      if (queue.table.players !== undefined) {
        this.groupAll(game, queue, queue.table.players, now);
        continue;
      }
      const { pairs, house } = pairNow([...byTicket.values()].map((w) => w.waiter), now, this.pairingOptions());
      for (const p of pairs) {
        const a = byTicket.get(p.a.ticket)!;
        const b = byTicket.get(p.b.ticket)!;
        byTicket.delete(p.a.ticket);
        byTicket.delete(p.b.ticket);
        const white = p.seatOfA === 0 ? a : b;
        const black = p.seatOfA === 0 ? b : a;
        this.launch(game, queue, [
          { kind: 'entry', entry: white.entry, handle: white.handle },
          { kind: 'entry', entry: black.entry, handle: black.handle },
        ]);
      }
      for (const h of house) {
        const w = byTicket.get(h.waiter.ticket)!;
        byTicket.delete(h.waiter.ticket);
        const level = nearestHouseLevel(game, w.waiter.rating);
        const me = { kind: 'entry' as const, entry: w.entry, handle: w.handle };
        const bot = { kind: 'house' as const, level };
        this.launch(game, queue, h.seat === 0 ? [me, bot] : [bot, me]);
      }
    }
  }

  /** A game for 3–4 (Catan): groups of waiting clients, house seats (one level) after the wait. */
  private groupAll(game: LadderGame, queue: GameQueue<unknown>, size: GroupSize, now: number): void {
    const byTicket = queue.waiting;
    for (const g of groupNow([...byTicket.values()].map((w) => w.waiter), now, this.pairingOptions(), size)) {
      const members = g.members.map((m) => byTicket.get(m.ticket)!);
      for (const m of g.members) byTicket.delete(m.ticket);
      const seats: TableSeat<unknown>[] = members.map((w) => ({ kind: 'entry', entry: w.entry, handle: w.handle }));
      if (g.house > 0) {
        // The level nearest the students' mean rating, one level for every house seat.
        const mean = members.reduce((sum, w) => sum + w.waiter.rating, 0) / members.length;
        const level = nearestHouseLevel(game, mean);
        for (let i = 0; i < g.house; i++) seats.push({ kind: 'house', level });
      }
      this.launch(game, queue, seats);
    }
  }

  private launch<H>(game: LadderGame, queue: GameQueue<H>, seats: TableSeat<H>[]): void {
    const gameId = `lg_${randomUUID()}`;
    const season = this.season(game);
    const startedAt = this.clock.now();
    const names = seats.map(seatName);
    this.playing.set(gameId, { game, names, startedAt });
    this.o.log.info({ game, gameId, names }, 'ladder: game made');
    let released = false;
    // The game's seats are free once it ends, before its rating is written: a client that connects
    // again at once must not be told that its code still has a game.
    const release = (): void => {
      if (released) return;
      released = true;
      this.playing.delete(gameId);
      for (const s of seats) if (s.kind === 'entry') this.bump(s.entry.id, -1);
    };
    const table = queue.table;
    const context = { gameId, season };
    (table.players === undefined ? table.play(seats as [TableSeat<H>, TableSeat<H>], context) : table.play(seats, context))
      .then((outcome) => {
        release();
        return this.rate(game, season, gameId, startedAt, seats, outcome);
      })
      .catch((err: unknown) => this.o.log.error({ err, game, gameId }, 'ladder: a game failed'))
      .finally(release);
  }

  /** Rates a finished game and records it (one game kind at a time). */
  private rate<H>(game: LadderGame, season: string, gameId: string, startedAt: number, seats: TableSeat<H>[], outcome: TableOutcome): Promise<void> {
    const previous = this.chains.get(game) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (outcome.scores === null) {
        this.o.log.info({ game, gameId, note: outcome.note }, 'ladder: game not rated');
        return;
      }
      const scores = outcome.scores;
      // Another serve process (PostgreSQL) may rate a game of the same entry between our read and
      // our write: the store refuses the stale rating (`stale-rating`), and the game is rated again
      // from the rating that is stored now.
      for (let attempt = 1; ; attempt++) {
        const after = await this.rateOnce(game, season, gameId, startedAt, seats, outcome, scores);
        if (after === 'frozen') return;
        if (after === 'stale') {
          if (attempt < 5) continue;
          throw new Error(`ladder: game ${gameId} could not be rated (its ratings kept changing)`);
        }
        this.o.log.info({ game, gameId, scores, ratings: after.map((r) => Math.round(r.rating)), ...(attempt > 1 ? { attempt } : {}) }, 'ladder: game rated');
        return;
      }
    });
    this.chains.set(
      game,
      next.catch(() => undefined),
    );
    return next;
  }

  /** One try of rating a game: read the ratings, rate, record. */
  private async rateOnce<H>(
    game: LadderGame,
    season: string,
    gameId: string,
    startedAt: number,
    seats: TableSeat<H>[],
    outcome: TableOutcome,
    scores: number[],
  ): Promise<Rating[] | 'frozen' | 'stale'> {
    const before = await Promise.all(seats.map(async (s) => (s.kind === 'entry' ? this.o.store.getRating(game, season, s.entry.id) : null)));
    const ratings: Rating[] = seats.map((s, i) => (s.kind === 'house' ? anchorRating(s.level) : (before[i] ?? initialRating(game))));
    let after: Rating[];
    let shares = scores;
    if (seats.length > 2 || this.queues.get(game)?.table.players !== undefined) {
      // Places: OpenSkill over all seats, the house seats anchored; the record keeps each place's share.
      after = rateMulti(ratings, scores, seats.map((s) => s.kind === 'house'));
      shares = placeShares(scores);
    } else if (seats[0]!.kind === 'entry' && seats[1]!.kind === 'entry') {
      const r = rateTwo(ratings[0]!, ratings[1]!, scores[0]!);
      after = [r.a, r.b];
    } else {
      after = seats.map((s, i) => {
        if (s.kind === 'house') return ratings[i]!;
        const other = seats[1 - i]!;
        if (other.kind !== 'house') throw new Error('unreachable');
        return rateAgainstAnchor(ratings[i]!, other.level, scores[i]!);
      });
    }
    const record: LadderGameRecord = {
      id: gameId,
      game,
      season,
      startedAt,
      endedAt: this.clock.now(),
      recordId: outcome.recordId,
      seats: seats.map(
        (s, i): LadderGameSeat => ({
          side: s.kind === 'entry' ? { kind: 'entry', entryId: s.entry.id } : { kind: 'house', level: s.level.id },
          name: seatName(s),
          score: shares[i]!,
          before: ratings[i]!,
          after: after[i]!,
          reason: outcome.reasons[i] ?? null,
        }),
      ),
    };
    try {
      await this.o.store.recordGame(record);
    } catch (err) {
      // A game still running when staff froze (or closed) its season does not count.
      if (err instanceof LadderStoreError && (err.code === 'season-frozen' || err.code === 'season-archived')) {
        this.o.log.info({ game, gameId, season }, 'ladder: game not rated (its season was frozen while it ran)');
        return 'frozen';
      }
      if (err instanceof LadderStoreError && err.code === 'stale-rating') return 'stale';
      throw err;
    }
    return after;
  }

  live(): LiveLadder[] {
    return [...this.queues.entries()].map(([game, q]) => ({
      game,
      waiting: [...q.waiting.values()].map((w) => ({ entryId: w.entry.id, name: w.entry.name, since: w.waiter.since, seat: w.waiter.seat })),
      playing: [...this.playing.entries()].filter(([, p]) => p.game === game).map(([gameId, p]) => ({ gameId, names: p.names, startedAt: p.startedAt })),
    }));
  }

  /** Waits for the ratings of every finished game to be written (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.tick?.cancel();
    this.refresh?.cancel();
    this.tick = this.refresh = null;
    for (const q of this.queues.values()) {
      for (const w of q.waiting.values()) q.table.refuse(w.handle, 'Liga: the server is stopping');
      q.waiting.clear();
    }
    await this.settled();
  }
}

/** A seat's name: the student's roster name, or the house level's label. */
export const seatName = (s: TableSeat<unknown>): string => (s.kind === 'entry' ? s.entry.name : s.level.label);

/**
 * A place as a score in [0, 1] (LadderGameSeat.score): the share of the other seats it finished
 * ahead of, a tie counting half (1 first … 0 last; two seats: 1, ½, 0 as in a 2-player game).
 */
export function placeShares(places: readonly number[]): number[] {
  const n = places.length;
  return places.map((p, i) => {
    let won = 0;
    places.forEach((q, j) => {
      if (j !== i) won += q > p ? 1 : q === p ? 0.5 : 0;
    });
    return n > 1 ? won / (n - 1) : 1;
  });
}

/** A house level as a rating that never moves (its anchor). */
function anchorRating(level: HouseLevel): Rating {
  return { rating: level.rating, rd: level.rd, vol: 0, games: 0 };
}

