import { Rng } from '../../../core/rng.js';
import type { GameEvent } from '../events.js';
import { apply } from '../rules/apply.js';
import type { Board } from '../rules/board.js';
import { legalActions, type LegalActions } from '../rules/legal.js';
import { newGame, type State } from '../rules/state.js';
import { COLOURS, RESOURCES, type Action, type Resource, type Resources } from '../rules/types.js';

/**
 * Random players for property tests and the throughput bench.
 * - `uniform` is baseline R (catan.md §6): uniform over the listed legal actions, never offers a
 *   trade and never accepts one.
 * - `builder` builds a Stadt or Dorf whenever it can, otherwise picks an action kind uniformly and
 *   then one action of that kind, so rare kinds (cards, trades) get played and games end quickly.
 *   With `trades` it also offers 1:1 domestic trades and answers others' offers at random.
 */
export type RandomPolicy = 'uniform' | 'builder';

export interface RandomBotOptions {
  readonly policy?: RandomPolicy;
  readonly trades?: boolean;
}

/** `count` cards drawn uniformly from the hand. */
export function randomDiscard(hand: Resources, count: number, rng: Rng): Partial<Record<Resource, number>> {
  const pool = RESOURCES.flatMap((r) => Array<Resource>(hand[r]).fill(r));
  const out: Partial<Record<Resource, number>> = {};
  for (let i = 0; i < count; i++) {
    const j = rng.int(i, pool.length - 1);
    const card = pool[j]!;
    pool[j] = pool[i]!;
    pool[i] = card;
    out[card] = (out[card] ?? 0) + 1;
  }
  return out;
}

function randomOffer(hand: Resources, rng: Rng): Action | null {
  const have = RESOURCES.filter((r) => hand[r] > 0);
  if (have.length === 0) return null;
  const give = rng.pick(have);
  const get = rng.pick(RESOURCES.filter((r) => r !== give));
  return { type: 'offerTrade', offer: { [give]: 1 }, request: { [get]: 1 } };
}

/** One random legal action, or null when the player has nothing to do (or chooses not to answer an offer). */
export function randomAction(legal: LegalActions, rng: Rng, options: RandomBotOptions = {}): Action | null {
  if (legal.discard) return { type: 'discard', cards: randomDiscard(legal.discard.hand, legal.discard.count, rng) };
  let actions = legal.actions;
  const answering = legal.status !== 'Handeln oder Bauen';
  if (!options.trades && actions.some((a) => a.type === 'acceptTrade' || a.type === 'cancelTrade')) {
    actions = actions.filter((a) => a.type !== 'acceptTrade' && a.type !== 'cancelTrade');
  }
  if (actions.length === 0) return null;
  if (options.policy !== 'builder') return rng.pick(actions);

  if (answering && actions.every((a) => a.type === 'acceptTrade' || a.type === 'cancelTrade')) {
    // Not every offer needs an answer: staying silent is a choice too.
    return rng.chance(0.5) ? rng.pick(actions) : null;
  }
  const cities = actions.filter((a) => a.type === 'build' && a.piece === 'Stadt');
  if (cities.length > 0) return rng.pick(cities);
  const settlements = actions.filter((a) => a.type === 'build' && a.piece === 'Dorf');
  if (settlements.length > 0) return rng.pick(settlements);
  const kinds = new Map<string, Action[]>();
  for (const a of actions) {
    const kind = a.type === 'build' ? `build ${a.piece}` : a.type;
    // Withdrawing one's own offer is rarely worth a whole kind's share.
    if (a.type === 'cancelTrade') continue;
    const list = kinds.get(kind);
    if (list) list.push(a);
    else kinds.set(kind, [a]);
  }
  const offer = options.trades && legal.offer ? randomOffer(legal.offer.hand, rng) : null;
  if (offer) kinds.set('offerTrade', [offer]);
  if (kinds.size === 0) return rng.pick(actions);
  return rng.pick(rng.pick([...kinds.values()]));
}

export interface RandomGameOptions extends RandomBotOptions {
  readonly seed: string | number;
  readonly players?: number;
  /** Stop after this many turns without a winner (random play can stall in theory). */
  readonly turnCap?: number;
  readonly board?: { readonly board: Board; readonly robber: number };
  /** Keep every intermediate state and event list (for the replay and leak checks). */
  readonly record?: boolean;
}

export interface PlayedAction {
  readonly player: number;
  readonly action: Action;
}

export interface RandomGame {
  readonly start: State;
  readonly startEvents: readonly GameEvent[];
  readonly state: State;
  readonly actions: readonly PlayedAction[];
  /** With `record`: the state and events after each action. */
  readonly steps: readonly { readonly state: State; readonly events: readonly GameEvent[] }[];
  readonly winner: number | null;
}

export const seatedPlayers = (n: number): { id: number; name: string; colour: (typeof COLOURS)[number] }[] =>
  Array.from({ length: n }, (_, i) => ({ id: 101 + i * 7, name: `Zufall ${i + 1}`, colour: COLOURS[i]! }));

/**
 * Plays one game between random bots. Any refused action is a bug in the rules (the bot only
 * plays what `legalActions` offered), so it throws.
 */
export function playRandomGame(options: RandomGameOptions): RandomGame {
  const started = newGame({ seed: options.seed, players: seatedPlayers(options.players ?? 4), ...(options.board ? { board: options.board } : {}) });
  if (!started.ok) throw new Error(started.error);
  const rng = Rng.seeded(`${String(options.seed)}/bots`);
  const cap = options.turnCap ?? 2000;
  const actions: PlayedAction[] = [];
  const steps: { state: State; events: readonly GameEvent[] }[] = [];
  let state = started.value.state;
  const asked = new Set<string>();

  const play = (player: number, action: Action): void => {
    const result = apply(state, player, action);
    if (!result.ok) throw new Error(`refused ${JSON.stringify(action)} by ${player}: ${result.error.code}`);
    state = result.value.state;
    actions.push({ player, action });
    if (options.record) steps.push(result.value);
  };

  while (state.phase !== 'over' && state.turnNumber < cap) {
    const discarder = state.discards.findIndex((k) => k > 0);
    if (state.phase === 'discard' && discarder >= 0) {
      const id = state.players[discarder]!.id;
      play(id, randomAction(legalActions(state, id), rng, options)!);
      continue;
    }
    // Each open offer is put to each other player once.
    let answered = false;
    for (const t of state.trades) {
      for (const p of state.players) {
        const key = `${t.id}/${p.id}`;
        if (p.id === state.players[t.seat]!.id || asked.has(key)) continue;
        asked.add(key);
        const legal = legalActions(state, p.id);
        const answer = randomAction({ ...legal, actions: legal.actions.filter((a) => 'tradeId' in a && a.tradeId === t.id) }, rng, options);
        if (answer) {
          play(p.id, answer);
          answered = true;
        }
      }
    }
    if (answered) continue;
    const active = state.players[state.turn]!.id;
    const action = randomAction(legalActions(state, active), rng, options);
    if (!action) throw new Error(`player ${active} has no legal action in ${state.phase}`);
    play(active, action);
  }
  return {
    start: started.value.state,
    startEvents: started.value.events,
    state,
    actions,
    steps,
    winner: state.winner === null ? null : state.players[state.winner]!.id,
  };
}
