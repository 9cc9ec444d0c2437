import { Rng } from '../../../src/core/rng.js';
import { chooseMove } from '../../../src/games/connect4/bots/index.js';
import type { C4Engine } from '../../../src/games/connect4/engine.js';
import type { PeerTiming } from '../../../src/games/connect4/peer.js';
import type { C4State } from '../../../src/games/connect4/rules.js';

/** What the tests that run Connect Four house bots over real UDP share (hardening, fuzz). */

/** The spec's intervals scaled down so a house game over loopback takes a second or two. */
export const HOUSE_TIMING: Partial<PeerTiming> = {
  resendMs: 100,
  lobbyExpiryMs: 1000,
  inviteTimeoutMs: 1000,
  invitationValidMs: 1000,
  acceptTimeoutMs: 1000,
  silenceMs: 1500,
  moveTimeoutMs: 2000,
  finalMoveWaitMs: 500,
};

/** The easy bot in this thread instead of the solver's worker; `delayMs` slows every move. */
export class InProcessEngine implements C4Engine {
  delayMs = 0;
  choose(state: C4State, _level: string, seed: string): Promise<number> {
    const column = chooseMove(state, 'easy', Rng.seeded(seed));
    return new Promise((resolve) => setTimeout(() => resolve(column), this.delayMs));
  }
  analyse(): Promise<(number | null)[]> {
    return Promise.resolve([]);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
