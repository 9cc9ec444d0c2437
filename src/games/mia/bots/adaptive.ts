import { Rng } from '../../../core/rng.js';
import type { Dice } from '../dice.js';
import { CLAIM_TYPES, ClaimBelief } from './claims.js';
import { chooseClaim, decideTurn, type Outlook } from './decide.js';
import { diceIndex, MIA_INDEX, nextPlayer, NONE } from './odds.js';
import { BucketedCurve, continuationCurve, DEFAULT_SEE } from './responses.js';
import type { MiaBot, ObservedEvent, RoundContext } from './types.js';

/** Pseudo-observations the prior curves are worth per bucket of claims. */
const SEE_PRIOR_STRENGTH = 4;
const CONTINUATION_PRIOR_STRENGTH = 8;

interface RoundMemory {
  players: readonly string[];
  claims: number[];
  /** The latest claim, until we know whether its roll is revealed. */
  unsettled: { name: string; claim: number; previous: number } | null;
  /** The latest valid claim, until its next player answers it. */
  awaiting: { responder: string; claim: number; mine: boolean } | null;
  /** Our own claims the next player rolled against: did we still lose the round? */
  rolledAgainst: number[];
}

const freshRound = (players: readonly string[] = []): RoundMemory => ({
  players,
  claims: [],
  unsettled: null,
  awaiting: null,
  rolledAgainst: [],
});

export interface OpponentInsight {
  /** Posterior weight of each announcer type. */
  readonly types: Readonly<Record<string, number>>;
  readonly revealedLieRate: number;
  readonly revealedClaims: number;
  /** How many of this player's answers (SEE or ROLL) to a claim we have seen. */
  readonly answersSeen: number;
}

/**
 * The probabilistic bot with a memory. Per opponent it keeps a Bayesian posterior over announcer
 * types (updated from every claim, with the revealed roll when ACTUAL DICE shows it), and a curve of
 * how often that player SEEs a claim of each height. For the table as a whole it learns how often
 * its own claims still cost it the round when the next player rolls. The decisions are the same
 * minimal-loss rule as the probabilistic bot, fed with these estimates: it SEEs liars more eagerly,
 * never calls honest players, and bluffs high against players who do not call.
 */
export class AdaptiveBot implements MiaBot {
  readonly strategy = 'adaptive';
  private readonly rng: Rng;
  private me: string | null = null;
  private readonly beliefs = new Map<string, ClaimBelief>();
  private readonly responses = new Map<string, BucketedCurve>();
  private readonly continuations = new Map<number, BucketedCurve>();
  private round: RoundMemory = freshRound();
  private readonly outlook: Outlook = {
    truth: (announcer, claim, previous) => this.belief(announcer).truthProbability(claim, previous),
    see: (responder, claim) => (responder === null ? (DEFAULT_SEE[claim] ?? 0.5) : this.response(responder).probability(claim)),
    continuation: (claim, players) => this.continuation(players).probability(claim),
  };

  constructor(seed: string | number) {
    this.rng = Rng.seeded(seed);
  }

  onTurn(ctx: RoundContext): 'roll' | 'see' {
    this.me = ctx.me;
    return decideTurn(ctx, this.outlook).action;
  }

  onRolled(ctx: RoundContext, rolled: Dice): Dice {
    this.me = ctx.me;
    return chooseClaim(ctx, rolled, this.outlook, this.rng);
  }

  observe(event: ObservedEvent): void {
    const round = this.round;
    switch (event.type) {
      case 'roundStarted':
        this.round = freshRound(event.players);
        return;
      case 'announced': {
        const claim = diceIndex(event.dice);
        this.settle(NONE);
        if (round.awaiting?.responder === event.name) this.answered(false);
        const previous = round.claims[round.claims.length - 1] ?? NONE;
        round.claims.push(claim);
        if (event.name !== this.me) round.unsettled = { name: event.name, claim, previous };
        const responder = nextPlayer(round.players, event.name);
        round.awaiting =
          claim > previous && claim !== MIA_INDEX && responder !== null ? { responder, claim, mine: event.name === this.me } : null;
        return;
      }
      case 'wantsToSee':
        if (round.awaiting?.responder === event.name) this.answered(true);
        round.awaiting = null;
        return;
      case 'actualDice':
        this.settle(diceIndex(event.dice));
        return;
      case 'lost': {
        this.settle(NONE);
        // a player who rolled and then failed to announce did answer with ROLL
        if (round.awaiting && event.reason === 'DID_NOT_ANNOUNCE' && event.names.includes(round.awaiting.responder)) this.answered(false);
        const lost = this.me !== null && event.names.includes(this.me);
        const curve = this.continuation(Math.max(2, round.players.length));
        for (const claim of round.rolledAgainst) curve.observe(claim, lost);
        this.round = freshRound();
        return;
      }
    }
  }

  /** What the bot has learned about one opponent. */
  insight(name: string): OpponentInsight {
    const belief = this.belief(name);
    const weights = belief.weights();
    const lies = belief.revealedLieRate();
    return {
      types: Object.fromEntries(CLAIM_TYPES.map((t, i) => [t.name, weights[i] ?? 0])),
      revealedLieRate: lies.rate,
      revealedClaims: lies.revealed,
      answersSeen: this.response(name).observations(),
    };
  }

  /** P(a claim by `name` is true), as the bot currently believes. */
  truthProbability(name: string, claim: Dice, previous: Dice | null): number {
    return this.belief(name).truthProbability(diceIndex(claim), previous === null ? NONE : diceIndex(previous));
  }

  /** P(`name` SEEs `claim`), as the bot currently believes. */
  seeProbability(name: string, claim: Dice): number {
    return this.response(name).probability(diceIndex(claim));
  }

  private settle(actual: number): void {
    const pending = this.round.unsettled;
    if (pending === null) return;
    this.belief(pending.name).observeClaim(pending.claim, pending.previous, actual);
    this.round.unsettled = null;
  }

  private answered(saw: boolean): void {
    const awaiting = this.round.awaiting;
    if (awaiting === null) return;
    this.response(awaiting.responder).observe(awaiting.claim, saw);
    if (!saw && awaiting.mine) this.round.rolledAgainst.push(awaiting.claim);
    this.round.awaiting = null;
  }

  private belief(name: string): ClaimBelief {
    let b = this.beliefs.get(name);
    if (!b) this.beliefs.set(name, (b = new ClaimBelief()));
    return b;
  }

  private response(name: string): BucketedCurve {
    let c = this.responses.get(name);
    if (!c) this.responses.set(name, (c = new BucketedCurve(DEFAULT_SEE, SEE_PRIOR_STRENGTH)));
    return c;
  }

  private continuation(players: number): BucketedCurve {
    let c = this.continuations.get(players);
    if (!c) this.continuations.set(players, (c = new BucketedCurve(continuationCurve(players), CONTINUATION_PRIOR_STRENGTH)));
    return c;
  }
}
