import { afterEach, describe, expect, it, vi } from 'vitest';
import { houseGamePlan, SparringScheduler, sparringRotation } from '../../../src/games/connect4/house.js';
import type { Address, GameInfo, Peer, PeerEvent, PeerPhase, RemotePeer } from '../../../src/games/connect4/peer.js';

/**
 * The house games' schedule: who moves first alternates from game to game, and the sparring bot's
 * level rotates (the perfect house bot against a good and against a weak bot), deterministically.
 */

const HOUSE: Address = { address: '127.0.0.1', port: 32442 };
const SPARRING: Address = { address: '127.0.0.1', port: 32443 };
const STRANGER: Address = { address: '127.0.0.1', port: 40000 };

const remote = (a: Address): RemotePeer => ({ key: `${a.address}:${a.port}`, address: a.address, port: a.port, name: null, clienttype: 0 });

/** Just what the scheduler looks at of a peer; the test plays the network's part. */
class FakePeer {
  phase: PeerPhase = 'lobby';
  invitee: RemotePeer | null = null;
  game: (GameInfo & { state: { moves: number[] }; opponentReady: boolean }) | null = null;
  readonly invited: Address[] = [];
  private readonly listeners = new Set<(e: PeerEvent) => void>();
  private games = 0;

  on(listener: (e: PeerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  invite(target: Address): { ok: true } {
    this.invited.push(target);
    this.invitee = remote(target);
    return { ok: true };
  }

  emit(event: PeerEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  start(opponent: Address, first: 'local' | 'remote'): void {
    this.invitee = null;
    this.phase = 'playing';
    this.game = { id: `g${++this.games}`, opponent: remote(opponent), localPlayer: first === 'local' ? 0 : 1, firstPlayer: first, startedAt: 0, state: { moves: [] }, opponentReady: true };
    this.emit({ type: 'phase', phase: 'playing' });
    this.emit({ type: 'game-started', game: this.game });
  }

  backToLobby(): void {
    this.phase = 'lobby';
    this.emit({ type: 'phase', phase: 'lobby' });
  }

  asPeer(): Peer {
    return this as unknown as Peer;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the house games schedule', () => {
  it('alternates the first player every game and gives each level one game as first and as second player', () => {
    const plans = Array.from({ length: 6 }, (_, i) => houseGamePlan(i, ['strong', 'easy']));
    expect(plans.map((p) => `${p.first}:${p.sparringLevel}`)).toEqual([
      'sparring:strong',
      'house:strong',
      'sparring:easy',
      'house:easy',
      'sparring:strong',
      'house:strong',
    ]);
    // Deterministic: the same index, the same game.
    expect(houseGamePlan(4, ['strong', 'easy'])).toEqual(plans[4]);
  });

  it('rotates the configured level and every weaker one', () => {
    expect(sparringRotation('strong')).toEqual(['strong', 'easy']);
    expect(sparringRotation('perfect')).toEqual(['perfect', 'strong', 'easy']);
    expect(sparringRotation('easy')).toEqual(['easy']);
  });

  it('has the bots invite each other by the plan, moving on only when a game started', () => {
    vi.useFakeTimers();
    const house = new FakePeer();
    const sparring = new FakePeer();
    const scheduler = new SparringScheduler({
      house: { peer: house.asPeer(), address: HOUSE },
      sparring: { peer: sparring.asPeer(), address: SPARRING },
      pauseMs: 100,
      levels: ['strong', 'easy'],
    });
    const firsts: string[] = [];
    const levels: string[] = [];
    /** One whole house game after the pause: the invitee accepts, both play, both return. */
    const playOne = () => {
      vi.advanceTimersByTime(100);
      const [inviter, invitee, name] = sparring.invitee !== null ? [sparring, house, 'sparring'] : [house, sparring, 'house'];
      expect(inviter.invitee).not.toBeNull();
      firsts.push(name);
      inviter.start(inviter === house ? SPARRING : HOUSE, 'local');
      invitee.start(invitee === house ? SPARRING : HOUSE, 'remote');
      levels.push(scheduler.sparringLevel('strong'));
      inviter.backToLobby();
      invitee.backToLobby();
    };
    for (let i = 0; i < 4; i++) playOne();
    expect(firsts).toEqual(['sparring', 'house', 'sparring', 'house']);
    expect(levels).toEqual(['strong', 'strong', 'easy', 'easy']);
    expect(scheduler.gamesStarted).toBe(4);

    // An invitation that came to nothing is tried again with the same plan: game 4 is still the
    // sparring bot's to open.
    vi.advanceTimersByTime(100);
    expect(sparring.invited).toHaveLength(3);
    sparring.invitee = null;
    sparring.emit({ type: 'invite-expired', to: remote(HOUSE) });
    playOne();
    expect(firsts.at(-1)).toBe('sparring');
    expect(scheduler.current).toEqual({ index: 4, first: 'sparring', sparringLevel: 'strong' });

    // Against anyone else the sparring bot plays its configured level.
    sparring.start(STRANGER, 'remote');
    expect(scheduler.sparringLevel('perfect')).toBe('perfect');
    scheduler.stop();
  });
});
