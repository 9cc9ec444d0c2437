import { afterEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.js';
import { INTERNAL_ERROR } from '../../../src/core/guard.js';
import { HouseAdmission } from '../../../src/games/connect4/house.js';
import { AutoPlayer, type Address, type RemotePeer } from '../../../src/games/connect4/peer.js';
import { Board } from '../../../src/games/connect4/peer/board.js';
import { Repeater } from '../../../src/games/connect4/peer/repeater.js';
import { parseDatagram } from '../../../src/games/connect4/protocol.js';
import { legalMoves, type C4State } from '../../../src/games/connect4/rules.js';
import { addPeer, FakeNode, MemoryNet, type TestPeer } from './peer-harness.js';

/**
 * Connect Four hardening on a virtual clock: what one remote IP may send and hold (datagram
 * budget, lobby and invitation shares, the house bots' admission), and the error boundaries of
 * the peer (an exception in a datagram handler, a timer or the bot ends at most that game, which
 * is recorded aborted with reason `internal error`).
 */

const HOUSE: Address = { address: '192.168.0.1', port: 32442 };
const FRIEND: Address = { address: '192.168.0.2', port: 32442 };
const EVIL = '192.168.0.66';
const evil = (port: number): Address => ({ address: EVIL, port });

const msg = (stage: number, extra: object = {}) =>
  JSON.stringify({ version: 2, clienttype: 0, stage, ...extra });
const firstLegal = (s: C4State) => legalMoves(s)[0]!;

afterEach(() => {
  vi.restoreAllMocks();
});

function world(): { clock: VirtualClock; net: MemoryNet } {
  const clock = new VirtualClock(0);
  return { clock, net: new MemoryNet(clock) };
}

/** Two peers that play each other with AutoPlayers; `friend` invites `house` whenever both idle. */
function pair(net: MemoryNet, thinkDelayMs = 0): { house: TestPeer; friend: TestPeer } {
  const house = addPeer(net, HOUSE, 'House');
  const friend = addPeer(net, FRIEND, 'Friend');
  for (const p of [house, friend]) {
    new AutoPlayer(p.peer, firstLegal, { clock: net.clock, thinkDelayMs });
    p.peer.start();
  }
  return { house, friend };
}

describe('found by fuzzing', () => {
  it('reads a JSON -0 turn as 0, like the string "-0" (test/fuzz, seed spielhalle)', () => {
    const r = parseDatagram('{"version":2,"clienttype":0,"stage":4,"turn":-0,"column":4}');
    expect(r.ok && r.value.kind === 'move' && Object.is(r.value.turn, 0)).toBe(true);
  });
});

describe('what one remote IP may send and hold', () => {
  it('drops datagrams over the per-host budget unread, and takes them again once it refilled', () => {
    const { clock, net } = world();
    const house = addPeer(net, HOUSE, 'House', { limits: { datagramsPerSecondPerHost: 50 } });
    house.peer.start();
    const noisy = new FakeNode(net, evil(40000));
    const inviter = new FakeNode(net, evil(40001));
    // A burst of 100 (twice the rate) empties the host's bucket…
    for (let i = 0; i < 100; i++) noisy.send(HOUSE, 'garbage');
    inviter.send(HOUSE, msg(2, { clientname: 'Eve' }));
    clock.advance(1);
    // …so the invitation from another port of the same host is dropped unread.
    expect(house.peer.invitations()).toEqual([]);
    // Another host is not affected.
    new FakeNode(net, FRIEND).send(HOUSE, msg(2, { clientname: 'Friend' }));
    clock.advance(1);
    expect(house.peer.invitations().map((p) => p.name)).toEqual(['Friend']);
    // A second later the host has tokens again.
    clock.advance(1000);
    inviter.send(HOUSE, msg(2, { clientname: 'Eve' }));
    clock.advance(1);
    expect(
      house.peer
        .invitations()
        .map((p) => p.name)
        .sort(),
    ).toEqual(['Eve', 'Friend']);
  });

  it('keeps at most lobbyEntriesPerHost and invitationsPerHost of one IP, so others still get in', () => {
    const { clock, net } = world();
    const house = addPeer(net, HOUSE, 'House', {
      limits: { datagramsPerSecondPerHost: 0, lobbyEntriesPerHost: 5, invitationsPerHost: 3 },
    });
    house.peer.start();
    // One host announcing and inviting from 300 ports (more than the lobby's 256 and the box's 64 in all).
    for (let port = 20000; port < 20300; port++) {
      const node = new FakeNode(net, evil(port));
      node.send(HOUSE, msg(1, { clientname: `e${port}` }));
      node.send(HOUSE, msg(2, { clientname: `e${port}` }));
    }
    clock.advance(1);
    const friend = new FakeNode(net, FRIEND);
    friend.send(HOUSE, msg(1, { clientname: 'Friend' }));
    friend.send(HOUSE, msg(2, { clientname: 'Friend' }));
    clock.advance(1);
    const fromEvil = (list: RemotePeer[]) => list.filter((p) => p.address === EVIL).length;
    expect(fromEvil(house.peer.lobby())).toBe(5);
    expect(fromEvil(house.peer.invitations())).toBe(3);
    expect(house.peer.lobby().some((p) => p.name === 'Friend')).toBe(true);
    expect(house.peer.invitations().some((p) => p.name === 'Friend')).toBe(true);
    // Once they expire, the host's share is free again.
    clock.advance(11_000);
    expect(house.peer.lobby()).toEqual([]);
    new FakeNode(net, evil(30000)).send(HOUSE, msg(2, { clientname: 'again' }));
    clock.advance(1);
    expect(house.peer.invitations().map((p) => p.name)).toEqual(['again']);
  });

  it('the house admission: one game per IP at once, a pause after it, others first, own peers exempt', () => {
    const clock = new VirtualClock(0);
    const own: Address = { address: '127.0.0.1', port: 32443 };
    const admission = new HouseAdmission({
      maxGamesPerHost: 1,
      hostPauseMs: 5000,
      isOwn: (p) => p.address === own.address && p.port === own.port,
      clock,
    });
    const peer = (a: Address, name = 'x'): RemotePeer => ({
      key: `${a.address}:${a.port}`,
      address: a.address,
      port: a.port,
      name,
      clienttype: 0,
    });
    const e1 = peer(evil(1));
    const e2 = peer(evil(2));
    const friend = peer(FRIEND);
    const sparring = peer(own);
    // Never served: the most recent first.
    expect(admission.pick([e1, friend])).toBe(e1);
    admission.hold(e1);
    // At its cap, the host's other ports wait; others do not.
    expect(admission.pick([e2])).toBeNull();
    expect(admission.retryInMs([e2])).toBeNull();
    expect(admission.pick([e2, friend])).toBe(friend);
    admission.hold(friend);
    admission.release(e1);
    // Paused after its game: 5 s.
    clock.advance(1000);
    expect(admission.pick([e2])).toBeNull();
    expect(admission.retryInMs([e2])).toBe(4000);
    expect(admission.pick([e2, sparring])).toBe(sparring);
    admission.hold(sparring);
    admission.release(sparring);
    // Own peers are never paused; after the pause the one served longest ago goes first.
    expect(admission.pick([sparring])).toBe(sparring);
    clock.advance(4000);
    expect(admission.pick([sparring, e2])).toBe(e2);
    expect(admission.holding(EVIL)).toBe(0);
  });

  it('an AutoPlayer with the admission plays others while a flooding host waits its pause', () => {
    const { clock, net } = world();
    const admission = new HouseAdmission({
      maxGamesPerHost: 1,
      hostPauseMs: 20_000,
      isOwn: () => false,
      clock,
    });
    const house = addPeer(net, HOUSE, 'House');
    new AutoPlayer(house.peer, firstLegal, { clock, admission });
    house.peer.on((e) => e.type === 'end-window-closed' && house.peer.backToLobby());
    house.peer.start();
    // The flooding host invites from two ports and never starts a game.
    const stopFlood = [0, 1].map((i) => {
      const node = new FakeNode(net, evil(40000 + i));
      const t = clock.setInterval(() => node.send(HOUSE, msg(2, { clientname: 'Eve' })), 500);
      node.send(HOUSE, msg(2, { clientname: 'Eve' }));
      return () => t.cancel();
    });
    clock.advance(100);
    // The house accepted one of them (one game per IP).
    expect(house.peer.phase).toBe('accepting');
    // A friend who really plays invites too and keeps inviting.
    const friend = addPeer(net, FRIEND, 'Friend');
    new AutoPlayer(friend.peer, firstLegal, { clock, acceptInvitations: false });
    friend.peer.on((e) => e.type === 'end-window-closed' && friend.peer.backToLobby());
    friend.peer.start();
    const invite = () => {
      if (friend.peer.phase === 'lobby' && friend.peer.invitee === null) friend.peer.invite(HOUSE);
    };
    invite();
    const t = clock.setInterval(invite, 1000);
    // The acceptance expires after 10 s; the host is paused, the friend gets the house.
    clock.advance(60_000);
    t.cancel();
    for (const stop of stopFlood) stop();
    expect(
      house.records.filter((r) => r.opponent.address === FRIEND.address && r.outcome !== 'aborted').length,
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('error boundaries of the peer', () => {
  it('an exception in the datagram handler aborts that game only, recorded with reason internal error', () => {
    const { clock, net } = world();
    const { house, friend } = pair(net);
    let thrown = 0;
    const real = Board.prototype.receive;
    vi.spyOn(Board.prototype, 'receive').mockImplementation(function (this: Board, m) {
      if (thrown === 0 && m.kind === 'move') {
        thrown++;
        throw new Error('injected: datagram handler');
      }
      real.call(this, m);
    });
    friend.peer.invite(HOUSE);
    expect(() => clock.advance(30_000)).not.toThrow();
    expect(thrown).toBe(1);
    const aborted = [...house.records, ...friend.records].filter((r) => r.reason === INTERNAL_ERROR);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]!.outcome).toBe('aborted');
    // The other side saw the 99s.
    expect([...house.records, ...friend.records].some((r) => r.reason === 'opponent-aborted')).toBe(true);
    // And the next game is played to its end.
    friend.peer.invite(HOUSE);
    clock.advance(60_000);
    expect(
      friend.records.some((r) => r.outcome === 'won' || r.outcome === 'lost' || r.outcome === 'drawn'),
    ).toBe(true);
  });

  it('an exception in a timer (a repeat) aborts that game only; no exception escapes the clock', () => {
    const { clock, net } = world();
    // Slow bots, so that the keepalives repeat during the game.
    const { house, friend } = pair(net, 2500);
    let thrown = 0;
    // `tick` runs once from `start` (a command or datagram) and then from the interval timer.
    const tick = (Repeater.prototype as unknown as { tick: () => void }).tick;
    vi.spyOn(Repeater.prototype as unknown as { tick: () => void }, 'tick').mockImplementation(function (
      this: Repeater,
    ) {
      if (thrown === 0 && this.sent > 0 && house.peer.phase === 'playing') {
        thrown++;
        throw new Error('injected: timer');
      }
      tick.call(this);
    });
    friend.peer.invite(HOUSE);
    expect(() => clock.advance(30_000)).not.toThrow();
    expect(thrown).toBe(1);
    expect([...house.records, ...friend.records].filter((r) => r.reason === INTERNAL_ERROR)).toHaveLength(1);
    friend.peer.invite(HOUSE);
    clock.advance(300_000);
    expect(house.records.filter((r) => r.outcome !== 'aborted').length).toBeGreaterThanOrEqual(1);
  });

  it('an exception in the bot (house loop) aborts that game only', () => {
    const { clock, net } = world();
    const { house, friend } = pair(net);
    let thrown = 0;
    const proto = AutoPlayer.prototype as unknown as { play: (...a: unknown[]) => void };
    const play = proto.play;
    vi.spyOn(proto, 'play').mockImplementation(function (this: AutoPlayer, ...args: unknown[]) {
      if (thrown === 0) {
        thrown++;
        throw new Error('injected: bot');
      }
      play.apply(this, args);
    });
    friend.peer.invite(HOUSE);
    expect(() => clock.advance(30_000)).not.toThrow();
    expect(thrown).toBe(1);
    expect([...house.records, ...friend.records].filter((r) => r.reason === INTERNAL_ERROR)).toHaveLength(1);
    friend.peer.invite(HOUSE);
    clock.advance(60_000);
    expect(friend.records.filter((r) => r.outcome !== 'aborted').length).toBeGreaterThanOrEqual(1);
  });
});
