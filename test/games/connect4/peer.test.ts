import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.js';
import { AutoPlayer, type Address } from '../../../src/games/connect4/peer.js';
import { apply, initialState, legalMoves, status, type C4State } from '../../../src/games/connect4/rules.js';
import { addPeer, BROADCAST, DialectA, every, FakeNode, MemoryNet, type TestPeer } from './peer-harness.js';

const ALICE: Address = { address: '192.168.0.11', port: 32442 };
const BOB: Address = { address: '192.168.0.12', port: 32442 };
const CAROL: Address = { address: '192.168.0.13', port: 32442 };
const A = '192.168.0.11:32442';
const B = '192.168.0.12:32442';
const BC = '255.255.255.255:32442';

const line = (clienttype: number, rest: string) => `{"version":2,"clienttype":${clienttype},${rest}}`;
const move = (turn: number, column: number) => `"stage":4,"turn":${turn},"column":${column}`;
/** A line from a fake peer (clienttype 0). */
const msg = (stage: number, extra: object = {}) =>
  JSON.stringify({ version: 2, clienttype: 0, stage, ...extra });

const backToLobbyAfterWindow = (p: TestPeer) =>
  p.peer.on((e) => e.type === 'end-window-closed' && p.peer.backToLobby());

/** Replays moves from the state's point of view: a fixed column order, first legal. */
const firstLegal = (order: number[]) => (s: C4State) =>
  order.find((c) => legalMoves(s).includes(c)) ?? legalMoves(s)[0]!;

function stateOf(moves: number[]): C4State {
  let s = initialState();
  for (const c of moves) {
    const r = apply(s, c);
    if (!r.ok) throw new Error(r.error.message);
    s = r.value;
  }
  return s;
}

const DRAW = '232766515361755417442642521362543433677117'.split('').map(Number);

describe('the example game of specs §4', () => {
  it('sends exactly the datagrams of the table, at the times of the table', () => {
    const clock = new VirtualClock(0);
    // Bob's datagrams arrive at once, Alice's after 0.1 s: that is how the table's 4.6/4.7 and 14.0/14.1 come about.
    const net = new MemoryNet(clock, { latency: (from) => (from.address === ALICE.address ? 100 : 0) });
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = addPeer(net, BOB, 'Bob', { clienttype: 1 });
    for (const p of [alice, bob]) backToLobbyAfterWindow(p);
    const at = (ms: number, fn: () => void) => clock.setTimeout(fn, ms);
    at(900, () => bob.peer.start());
    at(2000, () => expect(alice.peer.invite(B).ok).toBe(true));
    at(4600, () => expect(bob.peer.accept(A).ok).toBe(true));
    const moves: [number, TestPeer, number][] = [
      [5500, alice, 4],
      [8000, bob, 3],
      [9000, alice, 4],
      [11000, bob, 3],
      [12000, alice, 4],
      [13500, bob, 3],
      [14000, alice, 4],
    ];
    for (const [ms, p, column] of moves) at(ms, () => expect(p.peer.move(column).ok).toBe(true));
    alice.peer.start();
    clock.advance(25_000);

    const expected: [number, string, string, string][] = [];
    const rep = (startMs: number, count: number, from: string, to: string, l: string) => {
      for (let i = 0; i < count; i++) expected.push([startMs + 2000 * i, from, to, l]);
    };
    rep(0, 3, A, BC, line(0, '"stage":1,"clientname":"Alice"'));
    rep(900, 2, B, BC, line(1, '"stage":1,"clientname":"Bob"'));
    rep(2000, 2, A, B, line(0, '"stage":2,"clientname":"Alice"'));
    rep(4600, 1, B, A, line(1, '"stage":2'));
    rep(4600, 1, A, B, line(0, '"stage":3'));
    rep(4700, 2, B, A, line(1, '"stage":3'));
    rep(5500, 2, A, B, line(0, move(0, 4)));
    rep(8000, 2, B, A, line(1, move(1, 3)));
    rep(9000, 2, A, B, line(0, move(2, 4)));
    rep(11000, 2, B, A, line(1, move(3, 3)));
    rep(12000, 1, A, B, line(0, move(4, 4)));
    rep(13500, 1, B, A, line(1, move(5, 3)));
    rep(14000, 5, A, B, line(0, move(6, 4)));
    rep(14000, 5, A, B, line(0, '"stage":5'));
    rep(14100, 5, B, A, line(1, '"stage":5'));
    rep(24000, 1, A, BC, line(0, '"stage":1,"clientname":"Alice"'));
    rep(24100, 1, B, BC, line(1, '"stage":1,"clientname":"Bob"'));
    const show = (rows: [number, string, string, string][]) =>
      rows
        .map(([ms, from, to, l]) => `${(ms / 1000).toFixed(1).padStart(5)} ${from} > ${to} ${l}`)
        .sort((x, y) => parseFloat(x) - parseFloat(y) || (x < y ? -1 : 1));
    expect(show(net.sent.map((d) => [d.at, d.from, d.to, d.line]))).toEqual(show(expected));

    expect(
      alice
        .of('game-started')
        .map((e) => [e.at, e.event.game.localPlayer, e.event.game.firstPlayer, e.event.game.opponent.name]),
    ).toEqual([[4.6, 0, 'local', 'Bob']]);
    expect(
      bob
        .of('game-started')
        .map((e) => [e.at, e.event.game.localPlayer, e.event.game.firstPlayer, e.event.game.opponent.name]),
    ).toEqual([[4.7, 1, 'remote', 'Alice']]);
    expect(alice.of('game-over').map((e) => [e.at, e.event.outcome, e.event.winner, e.event.line])).toEqual([
      [
        14,
        'won',
        0,
        [
          [4, 1],
          [4, 2],
          [4, 3],
          [4, 4],
        ],
      ],
    ]);
    expect(bob.of('game-over').map((e) => [e.at, e.event.outcome, e.event.winner])).toEqual([
      [14.1, 'lost', 0],
    ]);
    expect(alice.of('your-turn').map((e) => e.at)).toEqual([4.7, 8, 11, 13.5]);
    expect(bob.of('your-turn').map((e) => e.at)).toEqual([5.6, 9.1, 12.1]);
    expect(alice.peer.phase).toBe('lobby');
    expect(bob.peer.phase).toBe('lobby');
    // Lobby lists: an entry goes 10 s after its last stage 1 (Bob's last was at 2.9, Alice's arrived at 4.1).
    expect(alice.of('lobby').map((e) => [e.at, e.event.peers.map((p) => p.name)])).toEqual([
      [0.9, ['Bob']],
      [12.9, []],
      [24.1, ['Bob']],
    ]);
    // Bob started at 0.9, so Alice's first announcement he hears is the one of 2.0.
    expect(bob.of('lobby').map((e) => [e.at, e.event.peers.map((p) => p.name)])).toEqual([
      [2.1, ['Alice']],
      [14.1, []],
      [24.1, ['Alice']],
    ]);

    const [record] = alice.records;
    expect(record).toMatchObject({
      startedAt: 4600,
      endedAt: 14000,
      local: { name: 'Alice', player: 0, clienttype: 0 },
      opponent: { name: 'Bob', address: '192.168.0.12', port: 32442, clienttype: 1 },
      firstPlayer: 'local',
      moves: [4, 3, 4, 3, 4, 3, 4],
      moveTimes: [5500, 8000, 9000, 11000, 12000, 13500, 14000],
      outcome: 'won',
      winner: 0,
      reason: 'four',
    });
    expect(record!.wire[0]).toEqual({
      at: 2000,
      dir: 'out',
      conn: B,
      data: line(0, '"stage":2,"clientname":"Alice"'),
    });
    expect(record!.wire.at(-1)).toEqual({ at: 14000, dir: 'out', conn: B, data: line(0, '"stage":5') });
    expect(record!.wire.filter((w) => w.dir === 'in').map((w) => w.at)).toEqual([
      4600, 4700, 6700, 8000, 10000, 11000, 13000, 13500,
    ]);
    expect(bob.records.map((r) => [r.outcome, r.winner, r.moves.join(''), r.firstPlayer])).toEqual([
      ['lost', 0, '4343434', 'remote'],
    ]);
  });
});

describe('lobby and invitations', () => {
  it('announces every 2 s, forgets peers 10 s after their last stage 1 and drops its own echo', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    // Same name, other host: a different player (never filter by name).
    const twin = addPeer(net, BOB, 'Alice');
    alice.peer.start();
    twin.peer.start();
    clock.advance(5000);
    expect(net.between(A, BC).map(([t]) => t)).toEqual([0, 2, 4]);
    expect(alice.peer.lobby().map((p) => p.key)).toEqual([B]);
    expect(twin.peer.lobby().map((p) => [p.key, p.name])).toEqual([[A, 'Alice']]);
    twin.peer.stop();
    clock.advance(20_000);
    expect(alice.of('lobby').map((e) => [e.at, e.event.peers.length])).toEqual([
      [0, 1],
      [14, 0],
    ]);
    // A packet from our own port on a loopback address is an echo too; another port is another peer.
    alice.peer.receive(msg(1, { clientname: 'Me' }), { address: '127.0.0.1', port: 32442 });
    alice.peer.receive(msg(1, { clientname: 'Local' }), { address: '127.0.0.1', port: 40000 });
    expect(alice.peer.lobby().map((p) => p.key)).toEqual(['127.0.0.1:40000']);
  });

  it('gives up an invitation after 10 s (5 copies) and lets the user retry', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const carol = new FakeNode(net, CAROL);
    alice.peer.start();
    carol.send(BROADCAST, msg(1, { clientname: 'Carol' }));
    clock.advance(1000);
    expect(alice.peer.invite(carol.key).ok).toBe(true);
    expect(alice.peer.invite('10.0.0.1:1').ok).toBe(false);
    clock.advance(15_000);
    expect(carol.stages(2)).toEqual([1, 3, 5, 7, 9]);
    expect(alice.of('invite-expired').map((e) => e.at)).toEqual([11]);
    expect(alice.peer.invitee).toBeNull();
    // An acceptance after the 10 s counts for nothing.
    carol.send(ALICE, msg(2));
    clock.advance(100);
    expect(alice.peer.phase).toBe('lobby');
    // Inviting an address that is not listed works too.
    expect(alice.peer.invite(CAROL).ok).toBe(true);
    carol.send(ALICE, msg(2));
    clock.advance(100);
    expect(alice.peer.phase).toBe('playing');
  });

  it('keeps an incoming invitation 10 s after its last copy; declining hides it', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const carol = new FakeNode(net, CAROL);
    alice.peer.start();
    const stop = every(clock, 2000, () => carol.send(ALICE, msg(2, { clientname: 'Car\u0007ol' })));
    clock.advance(5000);
    expect(alice.of('invitation').map((e) => [e.at, e.event.from.name])).toEqual([[0, 'Carol']]);
    expect(alice.peer.invitations().map((p) => p.key)).toEqual([carol.key]);
    stop(); // last copy at 4 s
    clock.advance(8999);
    expect(alice.peer.invitations().length).toBe(1);
    clock.advance(1);
    expect(alice.peer.invitations().length).toBe(0);
    expect(alice.of('invitation-gone').map((e) => e.at)).toEqual([14]);
    expect(alice.peer.accept().ok).toBe(false);

    const again = every(clock, 2000, () => carol.send(ALICE, msg(2, { clientname: 'Carol' })));
    clock.advance(100);
    expect(alice.peer.decline().ok).toBe(true);
    clock.advance(5000);
    expect(alice.peer.invitations()).toEqual([]);
    expect(alice.of('invitation').length).toBe(2);
    again();
    // Nothing is sent back: the protocol has no refusal.
    expect(carol.received.filter((r) => r.from === A && !r.line.includes('"stage":1'))).toEqual([]);
  });

  it('returns to the lobby when an acceptance is not answered within 10 s', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const bob = addPeer(net, BOB, 'Bob');
    const carol = new FakeNode(net, CAROL);
    bob.peer.start();
    carol.send(BOB, msg(2, { clientname: 'Carol' }));
    clock.advance(1000);
    expect(bob.peer.accept(carol.key).ok).toBe(true);
    expect(bob.peer.phase).toBe('accepting');
    clock.advance(12_000);
    expect(carol.stages(2)).toEqual([1, 3, 5, 7, 9]);
    expect(carol.stages(1).filter((t) => t > 0 && t < 11)).toEqual([]); // no stage 1 while accepting
    expect(bob.of('accept-expired').map((e) => e.at)).toEqual([11]);
    expect(bob.peer.phase).toBe('lobby');
    expect(carol.stages(1).filter((t) => t >= 11)).toEqual([11, 13]);
  });

  it('treats crossed invitations as invitations, not acceptances (decision 2)', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock, { latency: () => 50 });
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = addPeer(net, BOB, 'Bob');
    alice.peer.start();
    bob.peer.start();
    clock.advance(1000);
    expect(alice.peer.invite(B).ok).toBe(true);
    expect(bob.peer.invite(A).ok).toBe(true);
    clock.advance(4000);
    expect([alice.peer.phase, bob.peer.phase]).toEqual(['lobby', 'lobby']);
    expect(alice.peer.invitations().map((p) => p.key)).toEqual([B]);
    expect(bob.peer.invitations().map((p) => p.key)).toEqual([A]);
    // Bob takes Alice's invitation: Alice moves first, Bob's own invitation is gone.
    expect(bob.peer.accept(A).ok).toBe(true);
    const acceptedAt = clock.now();
    clock.advance(3000);
    expect(alice.peer.game?.localPlayer).toBe(0);
    expect(bob.peer.game?.localPlayer).toBe(1);
    expect(
      net.sent.filter(
        (d) => d.from === B && d.line.includes('"clientname":"Bob"') && d.to === A && d.at > acceptedAt,
      ),
    ).toEqual([]);
    expect(
      net.sent.filter((d) => d.from === A && d.line.includes('"stage":2') && d.at > acceptedAt + 50),
    ).toEqual([]);

    // Without an acceptance both sides give up and nobody starts a game.
    const c2 = new VirtualClock(0);
    const n2 = new MemoryNet(c2);
    const a2 = addPeer(n2, ALICE, 'Alice');
    const b2 = addPeer(n2, BOB, 'Bob');
    a2.peer.start();
    b2.peer.start();
    a2.peer.invite(BOB);
    b2.peer.invite(ALICE);
    c2.advance(20_000);
    expect([a2.of('game-started').length, b2.of('game-started').length]).toEqual([0, 0]);
    expect([a2.of('invite-expired').length, b2.of('invite-expired').length]).toEqual([1, 1]);
  });
});

/** Our Alice in a running game with a scripted Bob; Bob has shown it is ready. */
function gameWithFake(role: 'first' | 'second') {
  const clock = new VirtualClock(0);
  const net = new MemoryNet(clock);
  const alice = addPeer(net, ALICE, 'Alice');
  const bob = new FakeNode(net, BOB);
  alice.peer.start();
  if (role === 'first') {
    expect(alice.peer.invite(BOB).ok).toBe(true);
    bob.send(ALICE, msg(2));
  } else {
    bob.send(ALICE, msg(2, { clientname: 'Bob' }));
    clock.advance(0);
    expect(alice.peer.accept(B).ok).toBe(true);
  }
  bob.send(ALICE, msg(3));
  clock.advance(0);
  expect(alice.peer.phase).toBe('playing');
  const sendMove = (turn: number, column: number) => {
    bob.send(ALICE, msg(4, { turn, column }));
    clock.advance(10);
  };
  return { clock, net, alice, bob, sendMove, moves: () => alice.peer.game?.state.moves ?? null };
}

describe('moves', () => {
  it('accepts each new move once: repeats, stale turns and keepalives never move the state back', () => {
    const { alice, bob, sendMove, moves, clock } = gameWithFake('second');
    sendMove(0, 4);
    expect(moves()).toEqual([4]);
    expect(alice.peer.move(3).ok).toBe(true);
    sendMove(0, 4);
    sendMove(2, 4);
    for (const [turn, column] of [
      [0, 4],
      [2, 4],
      [1, 5],
      [-1, 1],
      [2, 6],
    ] as const)
      sendMove(turn, column);
    bob.send(ALICE, msg(4));
    bob.send(ALICE, msg(4, { turn: 'x', column: 2 }));
    clock.advance(10);
    expect(moves()).toEqual([4, 3, 4]);
    expect(alice.of('bad-move')).toEqual([]);
    expect(alice.of('moved').map((e) => [e.event.by, e.event.turn, e.event.column])).toEqual([
      ['remote', 0, 4],
      ['local', 1, 3],
      ['remote', 2, 4],
    ]);
    expect(alice.of('your-turn').map((e) => e.event.state.moves.length)).toEqual([1, 3]);
  });

  it('accepts the own-move count of A and C as well as the game-wide index (decision 4)', () => {
    const { alice, sendMove, moves } = gameWithFake('first');
    expect(alice.peer.move(4).ok).toBe(true);
    sendMove(0, 3); // own count: its first move
    expect(alice.peer.move(4).ok).toBe(true);
    sendMove(1, 3);
    sendMove(1, 3);
    expect(alice.peer.move(5).ok).toBe(true);
    sendMove(5, 2); // a game-wide index is greater too
    expect(moves()).toEqual([4, 3, 4, 3, 5, 2]);
  });

  it('refuses local moves out of turn or before the opponent is ready', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = new FakeNode(net, BOB);
    alice.peer.start();
    expect(alice.peer.move(4)).toMatchObject({ ok: false, error: { code: 'not-playing' } });
    alice.peer.invite(BOB);
    bob.send(ALICE, msg(2));
    clock.advance(0);
    expect(alice.of('your-turn')).toEqual([]);
    expect(alice.peer.move(4)).toMatchObject({ ok: false, error: { code: 'opponent-not-ready' } });
    bob.send(ALICE, msg(4, { turn: -1, column: 1 })); // any stage 4 shows it is ready
    clock.advance(0);
    expect(alice.of('your-turn').length).toBe(1);
    expect(alice.peer.move(8)).toMatchObject({ ok: false, error: { code: 'column-out-of-range' } });
    expect(alice.peer.move(4).ok).toBe(true);
    expect(alice.peer.move(4)).toMatchObject({ ok: false, error: { code: 'not-your-turn' } });
  });

  it('reports an illegal or out-of-turn move from the opponent once, and the game goes on', () => {
    const { alice, sendMove, moves } = gameWithFake('first');
    sendMove(0, 2); // we move first
    sendMove(0, 2);
    expect(alice.peer.move(4).ok).toBe(true);
    sendMove(1, 9);
    sendMove(1, 9);
    sendMove(1, 0);
    sendMove(1, 4);
    expect(alice.peer.move(4).ok).toBe(true);
    sendMove(3, 4);
    expect(alice.peer.move(4).ok).toBe(true);
    sendMove(5, 4); // column 4 is full now
    expect(alice.peer.move(1).ok).toBe(true);
    sendMove(7, 4);
    sendMove(9, 2); // 7 stones on the board: no convention gets to 9
    sendMove(7, 2);
    expect(alice.of('bad-move').map((e) => [e.event.reason, e.event.turn, e.event.column])).toEqual([
      ['out-of-turn', 0, 2],
      ['column-out-of-range', 1, 9],
      ['column-out-of-range', 1, 0],
      ['column-full', 7, 4],
      ['turn-too-high', 9, 2],
    ]);
    expect(moves()).toEqual([4, 4, 4, 4, 4, 4, 1, 2]);
    expect(alice.peer.phase).toBe('playing');
  });

  it('ignores third parties during a game; their stage 1 still refreshes the lobby', () => {
    const { clock, net, alice, bob, moves } = gameWithFake('first');
    const carol = new FakeNode(net, CAROL);
    const third = [
      msg(4, { turn: 0, column: 1 }),
      msg(4, { turn: 1, column: 1 }),
      msg(5),
      msg(3),
      msg(2),
      msg(2, { clientname: 'Carol' }),
      msg(1, { clientname: 'Carol' }),
      msg(99),
    ];
    const stopCarol = every(clock, 1000, () => {
      for (const m of third) carol.send(ALICE, m);
    });
    clock.advance(5000);
    expect(alice.peer.phase).toBe('playing');
    expect(moves()).toEqual([]);
    expect(alice.peer.invitations()).toEqual([]);
    expect(alice.of('bad-move')).toEqual([]);
    expect(alice.peer.lobby().map((p) => p.name)).toEqual(['Carol']);
    // Carol's packets are no sign of life from Bob: 10 s after Bob's stage 3 (at 0) the game is aborted.
    clock.advance(4999);
    expect(alice.peer.phase).toBe('playing');
    clock.advance(1);
    expect(alice.of('aborted').map((e) => [e.at, e.event.reason])).toEqual([[10, 'silence']]);
    stopCarol();
    expect(carol.received.filter((r) => r.from === A && !r.line.includes('"stage":1'))).toEqual([]);
    expect(bob.stages(99)[0]).toBe(10);
  });
});

describe('liveness, timeouts and abort', () => {
  it('aborts after 10 s without any packet and sends 99 at most 30 times', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = new FakeNode(net, BOB);
    alice.peer.start();
    alice.peer.invite(BOB);
    bob.send(ALICE, msg(2));
    clock.advance(8000);
    bob.send(ALICE, msg(7)); // an unknown stage from the opponent is still a sign of life
    clock.advance(9999);
    expect(alice.peer.phase).toBe('playing');
    clock.advance(1);
    expect(alice.of('aborted').map((e) => [e.at, e.event.reason])).toEqual([[18, 'silence']]);
    expect(alice.peer.phase).toBe('lobby');
    clock.advance(100_000);
    const aborts = bob.stages(99);
    expect(aborts).toEqual(Array.from({ length: 30 }, (_, i) => 18 + 2 * i));
    expect(
      bob
        .stages(1)
        .filter((t) => t >= 18)
        .slice(0, 2),
    ).toEqual([18, 20]); // back to stage 1 at once
    expect(alice.records.map((r) => [r.outcome, r.reason, r.endedAt])).toEqual([
      ['aborted', 'silence', 18_000],
    ]);
  });

  it('aborts 30 s after our move if the opponent keeps alive but never moves; its 99 stops ours', () => {
    const { clock, alice, bob } = gameWithFake('first');
    const stop = every(clock, 2000, () => bob.send(ALICE, msg(3)));
    clock.advance(1000);
    expect(alice.peer.move(4).ok).toBe(true);
    clock.advance(29_999);
    expect(alice.peer.phase).toBe('playing');
    clock.advance(1);
    expect(alice.of('aborted').map((e) => [e.at, e.event.reason])).toEqual([[31, 'move-timeout']]);
    clock.advance(2000);
    bob.send(ALICE, msg(99)); // the acknowledgement, not answered
    stop();
    clock.advance(60_000);
    expect(bob.stages(99)).toEqual([31, 33]);
  });

  it('also times out the wait for the first move (decision 6)', () => {
    const { clock, alice, bob } = gameWithFake('second');
    const stop = every(clock, 2000, () => {
      bob.send(ALICE, msg(3));
      bob.send(ALICE, msg(4, { turn: -1, column: 1 }));
    });
    clock.advance(29_999);
    expect(alice.peer.phase).toBe('playing');
    clock.advance(1);
    expect(alice.of('aborted').map((e) => [e.at, e.event.reason])).toEqual([[30, 'move-timeout']]);
    stop();
  });

  it('acknowledges a 99 exactly 10 times, 2 s apart, and does not restart the count', () => {
    const { clock, alice, bob } = gameWithFake('second');
    clock.advance(1000);
    const stop = every(clock, 1000, () => bob.send(ALICE, msg(99)));
    clock.advance(60_000);
    stop();
    expect(alice.of('aborted').map((e) => [e.at, e.event.reason])).toEqual([[1, 'opponent-aborted']]);
    expect(bob.stages(99)).toEqual(Array.from({ length: 10 }, (_, i) => 1 + 2 * i));
    expect(alice.peer.phase).toBe('lobby');
  });

  it('a quit sends 99 until the other side acknowledges it; a new game stops leftover 99s', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock, { latency: () => 50 });
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = addPeer(net, BOB, 'Bob');
    alice.peer.start();
    bob.peer.start();
    alice.peer.invite(BOB);
    clock.advance(100);
    bob.peer.accept(A);
    clock.advance(1000);
    expect(alice.peer.move(4).ok).toBe(true);
    clock.advance(1000);
    alice.peer.quit();
    const quitAt = clock.now();
    clock.advance(30_000);
    expect(alice.of('aborted').map((e) => e.event.reason)).toEqual(['quit']);
    expect(bob.of('aborted').map((e) => e.event.reason)).toEqual(['opponent-aborted']);
    const aliceAborts = net.sent
      .filter((d) => d.from === A && d.line.includes('"stage":99'))
      .map((d) => d.at - quitAt);
    const bobAborts = net.sent
      .filter((d) => d.from === B && d.line.includes('"stage":99'))
      .map((d) => d.at - quitAt);
    expect(aliceAborts).toEqual([0]);
    expect(bobAborts).toEqual(Array.from({ length: 10 }, (_, i) => 50 + 2000 * i));
    expect([alice.peer.phase, bob.peer.phase]).toEqual(['lobby', 'lobby']);

    // Bob quits, Alice acknowledges; a new game between them at once stops Alice's acknowledgements.
    bob.peer.invite(ALICE);
    clock.advance(100);
    alice.peer.accept(B);
    clock.advance(1000);
    bob.peer.quit();
    clock.advance(3000);
    alice.peer.invite(BOB);
    clock.advance(100);
    bob.peer.accept(A);
    const restartAt = clock.now();
    clock.advance(20_000);
    expect(net.sent.filter((d) => d.line.includes('"stage":99') && d.at > restartAt)).toEqual([]);
    expect(alice.peer.phase).toBe('playing');
  });

  it('stop() during a game sends one 99 and records the game as stopped', () => {
    const { clock, alice, bob } = gameWithFake('first');
    alice.peer.stop();
    clock.advance(10_000);
    expect(bob.stages(99)).toEqual([0]);
    expect(alice.records.map((r) => r.reason)).toEqual(['stopped']);
    expect(alice.of('aborted').map((e) => e.event.reason)).toEqual(['stopped']);
    expect(alice.peer.phase).toBe('stopped');
  });

  it('a leftover stage 4 of an earlier game does not start the board while accepting', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = new FakeNode(net, BOB);
    alice.peer.start();
    bob.send(ALICE, msg(2, { clientname: 'Bob' }));
    clock.advance(0);
    alice.peer.accept(B);
    bob.send(ALICE, msg(4, { turn: 6, column: 4 }));
    bob.send(ALICE, msg(5));
    clock.advance(0);
    expect(alice.peer.phase).toBe('accepting');
    bob.send(ALICE, msg(4, { turn: 0, column: 4 })); // its first move, stage 3 lost
    clock.advance(0);
    expect(alice.peer.phase).toBe('playing');
    expect(alice.peer.game?.state.moves).toEqual([4]);
    expect(alice.of('your-turn').length).toBe(1);
  });
});

/** Two of our peers with AutoPlayers; Alice invites Bob. */
function autoGame(choose: { alice: (s: C4State) => number; bob: (s: C4State) => number }, net: MemoryNet) {
  const alice = addPeer(net, ALICE, 'Alice');
  const bob = addPeer(net, BOB, 'Bob');
  const players = [
    new AutoPlayer(alice.peer, choose.alice, { clock: net.clock }),
    new AutoPlayer(bob.peer, choose.bob, { clock: net.clock }),
  ];
  alice.peer.start();
  bob.peer.start();
  expect(alice.peer.invite(BOB).ok).toBe(true);
  return { alice, bob, players };
}

describe('game end', () => {
  it('ends a draw with stage 5 on both sides, and the last mover repeats its final move', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock, { latency: () => 30 });
    expect(status(stateOf(DRAW)).kind).toBe('drawn');
    const pick = (s: C4State) => DRAW[s.moves.length]!;
    const { alice, bob, players } = autoGame({ alice: pick, bob: pick }, net);
    clock.advance(60_000);
    expect(alice.of('game-over').map((e) => [e.event.outcome, e.event.winner, e.event.line])).toEqual([
      ['drawn', null, []],
    ]);
    expect(bob.of('game-over').map((e) => e.event.outcome)).toEqual(['drawn']);
    const endAt = bob.of('game-over')[0]!.at * 1000;
    const fives = (from: string) =>
      net.sent.filter((d) => d.from === from && d.line.includes('"stage":5')).map((d) => d.at);
    expect(fives(B)).toEqual([0, 2, 4, 6, 8].map((s) => endAt + s * 1000));
    expect(fives(A).length).toBe(5);
    const finalMove = net.sent.filter((d) => d.from === B && d.line.includes('"turn":41')).map((d) => d.at);
    expect(finalMove).toEqual([0, 2, 4, 6, 8].map((s) => endAt + s * 1000));
    expect(alice.records.map((r) => [r.outcome, r.reason, r.moves.join('')])).toEqual([
      ['drawn', 'board-full', DRAW.join('')],
    ]);
    expect(players.map((p) => p.stats)).toEqual([
      { games: 1, won: 0, lost: 0, drawn: 1, aborted: 0 },
      { games: 1, won: 0, lost: 0, drawn: 1, aborted: 0 },
    ]);
    // Both are back in the lobby after the window; nobody invites, so nothing else happens.
    expect([alice.peer.phase, bob.peer.phase]).toEqual(['lobby', 'lobby']);
  });

  it('after stage 5 without the final move, waits 10 s, then ends without a result and without 99', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock, { filter: (d) => !(d.from === A && d.line.includes('"turn":6')) });
    const { alice, bob } = autoGame({ alice: () => 4, bob: () => 3 }, net);
    clock.advance(60_000);
    const endAt = alice.of('game-over')[0]!.at;
    expect(alice.of('game-over')[0]!.event.outcome).toBe('won');
    expect(bob.of('game-over')).toEqual([]);
    expect(bob.of('aborted').map((e) => [e.at - endAt, e.event.reason])).toEqual([[10, 'no-final-move']]);
    expect(net.sent.filter((d) => d.line.includes('"stage":99'))).toEqual([]);
    expect(bob.records.map((r) => [r.outcome, r.reason, r.moves.join('')])).toEqual([
      ['aborted', 'no-final-move', '434343'],
    ]);
  });

  it('takes the repeated final move when the first copy was lost', () => {
    const clock = new VirtualClock(0);
    let dropped = 0;
    const net = new MemoryNet(clock, {
      filter: (d) => !(d.from === A && d.line.includes('"turn":6') && dropped++ === 0),
    });
    const { alice, bob } = autoGame({ alice: () => 4, bob: () => 3 }, net);
    clock.advance(60_000);
    const endAt = alice.of('game-over')[0]!.at;
    expect(bob.of('game-over').map((e) => [e.at - endAt, e.event.outcome])).toEqual([[2, 'lost']]);
    expect(bob.of('aborted')).toEqual([]);
  });
});

describe('after stage 5 and after the result', () => {
  it('resumes the normal timers when a stage 5 was followed by a move that does not end the game', () => {
    const { clock, alice, bob, sendMove, moves } = gameWithFake('second');
    bob.send(ALICE, msg(5));
    clock.advance(9000); // no silence abort while waiting for the final move
    sendMove(0, 4);
    expect(moves()).toEqual([4]);
    expect(alice.peer.phase).toBe('playing');
    clock.advance(9989);
    expect(alice.peer.phase).toBe('playing');
    clock.advance(1);
    expect(alice.of('aborted').map((e) => [e.at, e.event.reason])).toEqual([[19, 'silence']]); // 10 s after the move
  });

  it('keeps invitations that arrive while the result is shown, and the bot takes one in the lobby', () => {
    const { clock, net, alice, bob, sendMove } = gameWithFake('first');
    const carol = new FakeNode(net, CAROL);
    for (let turn = 1; turn <= 5; turn += 2) {
      expect(alice.peer.move(4).ok).toBe(true);
      sendMove(turn, 1);
    }
    expect(alice.peer.move(4).ok).toBe(true); // four in column 4
    expect(alice.peer.phase).toBe('ended');
    const stop = every(clock, 2000, () => carol.send(ALICE, msg(2, { clientname: 'Carol' })));
    clock.advance(100);
    expect(alice.peer.invitations().map((p) => p.name)).toEqual(['Carol']);
    const auto = new AutoPlayer(alice.peer, () => 1, { clock });
    expect(alice.peer.phase).toBe('ended'); // a bot waits for the end window
    clock.advance(10_000);
    expect(alice.peer.phase).toBe('accepting');
    expect(carol.stages(2).length).toBeGreaterThan(0);
    // The end window's stage 5s went to Bob, 5 of them, and our final move alongside.
    expect(bob.stages(5)).toEqual([0, 2, 4, 6, 8].map((t) => t + 0.03));
    stop();
    auto.stop();
  });
});

describe('an unreliable network', () => {
  it.each(['a', 'b', 'c', 'd', 'e', 'f'])(
    'finishes games over a lossy, duplicating, reordering network (seed %s)',
    (seed) => {
      const clock = new VirtualClock(0);
      const net = new MemoryNet(clock, {
        seed,
        loss: 0.15,
        duplicate: 0.3,
        jitterMs: 1500,
        latency: () => 20,
      });
      const { alice, bob } = autoGame(
        { alice: firstLegal([4, 3, 5, 2, 6, 1, 7]), bob: firstLegal([3, 4, 2, 5, 1, 6, 7]) },
        net,
      );
      clock.advance(120_000);
      const [ra] = alice.records;
      const [rb] = bob.records;
      expect(alice.records.length).toBe(1);
      expect(bob.records.length).toBe(1);
      expect(ra!.moves).toEqual(rb!.moves);
      expect(ra!.outcome).not.toBe('aborted');
      expect(status(stateOf(ra!.moves)).kind).not.toBe('running');
      expect({ won: 'lost', lost: 'won', drawn: 'drawn' }[ra!.outcome as 'won']).toBe(rb!.outcome);
      for (const p of [alice, bob]) {
        const counts = p.of('moved').map((e) => e.event.state.moves.length);
        expect(counts).toEqual(counts.map((_, i) => i + 1));
      }
    },
  );
});

describe('against a dialect-A peer (scripted, specs §3.9)', () => {
  it.each([
    ['we invite and its single acceptance arrives', 'we-invite', false],
    ['we invite and its single acceptance is lost: its stage 3 is the acceptance', 'we-invite', true],
    ['it invites us', 'it-invites', false],
  ] as const)('plays a whole game: %s', (_title, mode, dropAcceptance) => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock, { latency: () => 20 });
    const jorg = new DialectA(net, CAROL, firstLegal([3, 4, 2, 5, 1, 6, 7]), { dropAcceptance });
    const alice = addPeer(net, ALICE, 'Alice');
    const auto = new AutoPlayer(alice.peer, firstLegal([4, 3, 5, 2, 6, 1, 7]), { clock });
    alice.peer.start();
    jorg.start();
    clock.advance(1000);
    expect(alice.peer.lobby().map((p) => [p.name, p.clienttype])).toEqual([['Jörg/A', '0']]);
    if (mode === 'we-invite') expect(alice.peer.invite(jorg.node.key).ok).toBe(true);
    else jorg.invite(ALICE);
    clock.advance(120_000);
    const [record] = alice.records;
    expect(record?.moves).toEqual(jorg.state.moves);
    expect(record?.firstPlayer).toBe(mode === 'we-invite' ? 'local' : 'remote');
    expect(record?.outcome).not.toBe('aborted');
    expect(status(jorg.state).kind).not.toBe('running');
    expect(alice.of('bad-move')).toEqual([]);
    // A's late stage 5s and its five 99s after the result screen are ignored, unanswered.
    expect(jorg.node.stages(99)).toEqual([]);
    expect(net.sent.filter((d) => d.from === jorg.node.key && d.line.includes('"99"')).length).toBe(5);
    expect(alice.peer.phase).toBe('lobby');
    expect(auto.stats.games).toBe(1);
    if (dropAcceptance)
      expect(net.sent.filter((d) => d.from === jorg.node.key && /"stage": "2"\n/.test(d.line))).toEqual([]);
  });
});

describe('AutoPlayer', () => {
  it('accepts invitations only while idle, and falls back to a legal column when the chooser fails', () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const carol = new FakeNode(net, CAROL);
    const auto = new AutoPlayer(alice.peer, () => 9, { clock });
    alice.peer.start();
    alice.peer.invite(BOB); // nobody there: the invitation runs out at 10 s
    const stop = every(clock, 2000, () => carol.send(ALICE, msg(2, { clientname: 'Carol' })));
    clock.advance(9000);
    expect(alice.peer.phase).toBe('lobby');
    clock.advance(1000);
    expect(alice.peer.phase).toBe('accepting');
    stop();
    carol.send(ALICE, msg(4, { turn: 0, column: 4 }));
    clock.advance(10);
    expect(alice.peer.game?.state.moves).toEqual([4, 1]); // 9 is no column: the first legal one
    auto.stop();
    expect(auto.stats.games).toBe(1);
  });

  it('waits for an asynchronous chooser and drops its answer if the game moved on', async () => {
    const clock = new VirtualClock(0);
    const net = new MemoryNet(clock);
    const alice = addPeer(net, ALICE, 'Alice');
    const bob = new FakeNode(net, BOB);
    let answer: (column: number) => void = () => undefined;
    new AutoPlayer(alice.peer, () => new Promise<number>((resolve) => (answer = resolve)), { clock });
    alice.peer.start();
    alice.peer.invite(BOB);
    bob.send(ALICE, msg(3));
    clock.advance(10);
    answer(5);
    await Promise.resolve();
    await Promise.resolve();
    expect(alice.peer.game?.state.moves).toEqual([5]);
    bob.send(ALICE, msg(4, { turn: 1, column: 5 }));
    clock.advance(10);
    const late = answer;
    bob.send(ALICE, msg(99));
    clock.advance(10);
    late(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(alice.peer.phase).toBe('lobby');
    expect(alice.records[0]?.moves).toEqual([5, 5]);
  });
});
