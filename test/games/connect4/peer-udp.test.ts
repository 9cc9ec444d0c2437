import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import {
  AutoPlayer,
  type C4GameRecord,
  type PeerEvent,
  type PeerTiming,
} from '../../../src/games/connect4/peer.js';
import { legalMoves, status, type C4State } from '../../../src/games/connect4/rules.js';
import { startUdpPeer, type UdpPeer } from '../../../src/games/connect4/transport.js';
import { UdpPeer as RawSocket } from '../../support/udp.js';

/** The spec's intervals scaled down so a game over real sockets takes a second or two (timeouts less, for a busy CI). */
const FAST: Partial<PeerTiming> = {
  resendMs: 100,
  lobbyExpiryMs: 500,
  inviteTimeoutMs: 500,
  invitationValidMs: 500,
  acceptTimeoutMs: 500,
  silenceMs: 3000,
  moveTimeoutMs: 6000,
  finalMoveWaitMs: 500,
};

const firstLegal = (order: number[]) => (s: C4State) =>
  order.find((c) => legalMoves(s).includes(c)) ?? legalMoves(s)[0]!;

async function freePorts(n: number): Promise<number[]> {
  const sockets = await Promise.all(
    Array.from({ length: n }, () => {
      const s = createSocket('udp4');
      return new Promise<typeof s>((resolve) => s.bind(0, '127.0.0.1', () => resolve(s)));
    }),
  );
  const ports = sockets.map((s) => s.address().port);
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

const open: (UdpPeer | RawSocket)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

interface Side {
  udp: UdpPeer;
  events: PeerEvent[];
  records: C4GameRecord[];
  auto: AutoPlayer;
}

async function twoPeers(thinkDelayMs = 20): Promise<[Side, Side]> {
  const ports = await freePorts(2);
  const sides: Side[] = [];
  for (const [i, name] of ['Alice', 'Bob'].entries()) {
    const records: C4GameRecord[] = [];
    const udp = await startUdpPeer({
      name,
      port: ports[i]!,
      peerPorts: ports,
      timing: FAST,
      onGameFinished: (r) => records.push(r),
    });
    open.push(udp);
    const events: PeerEvent[] = [];
    udp.peer.on((e) => events.push(e));
    const auto = new AutoPlayer(
      udp.peer,
      firstLegal(i === 0 ? [4, 3, 5, 2, 6, 1, 7] : [3, 4, 2, 5, 1, 6, 7]),
      { thinkDelayMs },
    );
    sides.push({ udp, events, records, auto });
  }
  return sides as [Side, Side];
}

function until(what: string, test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (test()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 10);
    };
    poll();
  });
}

describe('two peers over real UDP on 127.0.0.1', () => {
  it('find each other through peerPorts and play a whole game', async () => {
    const [alice, bob] = await twoPeers();
    expect(alice.udp.address.address).toBe('127.0.0.1');
    await until(
      'the lobbies',
      () => alice.udp.peer.lobby().length === 1 && bob.udp.peer.lobby().length === 1,
    );
    expect(alice.udp.peer.lobby()[0]).toMatchObject({
      name: 'Bob',
      address: '127.0.0.1',
      port: bob.udp.address.port,
    });
    expect(alice.udp.peer.invite(alice.udp.peer.lobby()[0]!.key).ok).toBe(true);
    await until('both results', () => alice.records.length === 1 && bob.records.length === 1);
    const [ra, rb] = [alice.records[0]!, bob.records[0]!];
    expect(ra.moves).toEqual(rb.moves);
    expect(status({ moves: ra.moves }).kind).not.toBe('running');
    expect(ra.outcome).not.toBe('aborted');
    expect([ra.firstPlayer, rb.firstPlayer]).toEqual(['local', 'remote']);
    expect(ra.wire.some((w) => w.dir === 'in' && w.data.includes('"stage":4'))).toBe(true);
    // After the end window both AutoPlayers are back in the lobby.
    await until('the lobby again', () => alice.udp.peer.phase === 'lobby' && bob.udp.peer.phase === 'lobby');
  });

  it('survives garbage datagrams mid-game and the game goes on', async () => {
    const [alice, bob] = await twoPeers(80);
    const junk = await RawSocket.open(alice.udp.address.port);
    open.push(junk);
    await until('the lobbies', () => alice.udp.peer.lobby().some((p) => p.name === 'Bob'));
    alice.udp.peer.invite(`127.0.0.1:${bob.udp.address.port}`);
    await until('the game', () => alice.udp.peer.phase === 'playing');
    const rng = Rng.seeded('garbage');
    const samples = [
      '{"version":2,"stage":4,"turn":1,"column":4}',
      '{"version":"2","stage":"99"}',
      '{"version":2,"stage":5}',
      '{"version":2,"stage":2,"clientname":{"a":1}}',
      '[[[[[[[[[[[[[[[[[[[[',
      '\u0000\u0000\u0000',
      '{"version":2,"stage":1,"clientname":"\\u001b[2J\\u202eevil"}',
    ];
    for (let i = 0; i < 300; i++) {
      const kind = i % 3;
      if (kind === 0) junk.send(Buffer.from(Array.from({ length: rng.int(0, 200) }, () => rng.int(0, 255))));
      else if (kind === 1) junk.send(rng.pick(samples));
      else junk.send(Buffer.alloc(rng.int(4000, 9000), 0x7b));
      if (i % 30 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(alice.records).toEqual([]); // all of it arrived mid-game
    await until('both results', () => alice.records.length === 1 && bob.records.length === 1);
    expect(alice.records[0]!.moves).toEqual(bob.records[0]!.moves);
    expect(alice.records[0]!.outcome).not.toBe('aborted');
    expect(alice.events.filter((e) => e.type === 'bad-move')).toEqual([]);
    // The junk socket's well-formed announcement was listed, with a display-safe name.
    const listed = alice.events
      .flatMap((e) => (e.type === 'lobby' ? e.peers : []))
      .filter((p) => p.port === junk.port);
    expect(new Set(listed.map((p) => p.name))).toEqual(new Set(['[2Jevil']));
  });

  it('closing a peer mid-game sends a 99 the other side acknowledges', async () => {
    const [alice, bob] = await twoPeers();
    alice.auto.stop();
    await until('the lobbies', () => bob.udp.peer.lobby().length === 1);
    bob.udp.peer.invite(bob.udp.peer.lobby()[0]!.key);
    await until('an invitation', () => alice.udp.peer.invitations().length === 1);
    alice.udp.peer.accept();
    await until('the game', () => bob.udp.peer.phase === 'playing' && alice.udp.peer.phase === 'playing');
    await alice.udp.close();
    await until('the abort', () => bob.events.some((e) => e.type === 'aborted'));
    expect(bob.events.find((e) => e.type === 'aborted')).toMatchObject({ reason: 'opponent-aborted' });
    expect(alice.records.map((r) => r.reason)).toEqual(['stopped']);
  });
});
