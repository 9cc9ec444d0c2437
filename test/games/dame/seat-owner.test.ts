import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { createDameServer, type DameServer } from '../../../src/games/dame/server.js';
import { RawClient } from './raw-client.js';

/**
 * Issue 30: a tournament's Dame seat belongs to its entrant. Knowing the game id (its own!) and the
 * opponent's player number is not enough to take the opponent's seat: the server asks the arena
 * whether the connection is the seat's own, refuses any other with `- No free player`, as for a
 * taken seat, and writes the refusal into the game's record.
 */

let server: DameServer | null = null;
let store: RecordStore | null = null;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.stop();
  store?.close();
  server = null;
});

/** Connects and runs the prolog up to the PLAYER line (not sent). */
async function upToPlayer(port: number, gameId: string): Promise<RawClient> {
  const c = await RawClient.open(port);
  clients.push(c);
  await c.waitFor(/^\+ MNM Gameserver/);
  c.send('VERSION 2.1');
  await c.waitFor(/^\+ Client version accepted/);
  c.send(`ID ${gameId}`);
  await c.waitFor('+ PLAYING Checkers');
  await c.next();
  return c;
}

describe('Dame seats bound to their owner (seatOwner)', () => {
  it('refuses a connection that claims a seat not its own, keeps the seat for its owner, and records the refusal', async () => {
    store = new RecordStore(':memory:');
    server = createDameServer({ port: 0, log: silentLogger, store, motdDelayMs: 0, defaultMoveTimeMs: 400 });
    await server.start();
    const owners = new Map<number, number>();
    const gameId = server.createGame({ seatOwner: (seat, address) => owners.get(seat) === Number(address.slice(address.lastIndexOf(':') + 1)) });
    const thief = await upToPlayer(server.port, gameId);
    const white = await upToPlayer(server.port, gameId);
    const black = await upToPlayer(server.port, gameId);
    owners.set(0, white.socket.localPort!);
    owners.set(1, black.socket.localPort!);
    // The thief comes first, with the opponent's number, and then with a bare PLAYER.
    const thiefPort = thief.socket.localPort!;
    thief.send('PLAYER 0');
    expect(await thief.next()).toBe('- No free player');
    const thief2 = await upToPlayer(server.port, gameId);
    thief2.send('PLAYER');
    expect(await thief2.next()).toBe('- No free player');
    // The owners take their seats.
    white.send('PLAYER 0');
    expect(await white.next()).toMatch(/^\+ YOU 0 /);
    black.send('PLAYER');
    expect(await black.next()).toMatch(/^\+ YOU 1 /);
    // The game started with its owners; the refusals are in its record.
    await white.waitFor(/^\+ (MOVE|WAIT)/);
    const record = store.listMatches({ game: 'dame' })[0]!;
    const refused = store.getMatch(record.id)!.events.filter((e) => e.type === 'seat-refused');
    expect(refused.map((e) => e.seat)).toEqual([0]);
    expect((refused[0]!.data as { address: string }).address).toBe(`127.0.0.1:${thiefPort}`);
  });
});
