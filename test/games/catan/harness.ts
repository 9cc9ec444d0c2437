import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { CatanClient, randomBot, type ClientResult } from '../../../src/games/catan/client.js';
import { createCatanServer, type CatanServer, type CatanServerOptions } from '../../../src/games/catan/server.js';
import type { RandomBotOptions } from '../../../src/games/catan/bots/random.js';
import { boardT1 } from './helpers.js';
import { RawClient } from './tcp.js';

/** Servers, scripted raw clients and bot clients for the Catan server tests, all on 127.0.0.1. */

export const OK = '{"Serverantwort":"OK"}';
export const fehler = (meldung: string): string => `{"Fehler":{"Meldung":"${meldung}"}}`;

export interface TestServer {
  server: CatanServer;
  store: RecordStore;
  stop(): Promise<void>;
}

export async function startServer(options: Partial<CatanServerOptions> = {}): Promise<TestServer> {
  const store = new RecordStore(':memory:');
  const server = createCatanServer({ host: '127.0.0.1', port: 0, seed: 'test', log: silentLogger, store, ...options });
  await server.start();
  return {
    server,
    store,
    stop: async () => {
      await server.stop();
      store.close();
    },
  };
}

/** The §5 server: ids 17, 42, 63, board T1, order 42, 63, 17, the first roll [2,4]. */
export function exampleOptions(): Partial<CatanServerOptions> {
  const ids = [17, 42, 63];
  const dice: [number, number][] = [[2, 4]];
  return { ids: () => ids.shift() ?? 1000 + Math.floor(Math.random() * 1000), board: () => boardT1(), order: (list) => (list.length === 3 ? [42, 63, 17] : undefined), dice: () => dice.shift() };
}

/** Sends a line and waits for `answer` (OK unless told otherwise) after it. */
export async function act(c: RawClient, line: string, answer: string | RegExp = OK): Promise<string> {
  const from = c.lines.length;
  c.send(line);
  return c.expect(answer, from);
}

/** Connects (from `from`, default 127.0.0.1) and says Hallo; resolves with the client and its id. */
export async function hello(port: number, version = 'Test 0.3', from?: string): Promise<{ c: RawClient; id: number }> {
  const c = await RawClient.open(port, from);
  await c.expect(/^\{"Hallo"/);
  c.send(`{"Hallo":{"Version":"${version}"}}`);
  const welcome = await c.expect(/^\{"Willkommen"/);
  return { c, id: (JSON.parse(welcome) as { Willkommen: { id: number } }).Willkommen.id };
}

/** Plays the §5 start to the first roll with three raw clients (ids 17, 42, 63). */
export async function exampleStart(port: number): Promise<Map<number, RawClient>> {
  const byId = new Map<number, RawClient>();
  for (const version of ['CatanTS-Web 0.3', 'CatanTS-KI 0.3 (KI)', 'CatanTS-KI 0.3 (KI)']) {
    const { c, id } = await hello(port, version);
    byId.set(id, c);
  }
  const p = (id: number): RawClient => byId.get(id)!;
  await act(p(17), '{"Spieler":{"Name":"Anna","Farbe":"Rot"}}');
  await act(p(42), '{"Spieler":{"Name":"KI Alpha","Farbe":"Blau"}}');
  await act(p(63), '{"Spieler":{"Name":"KI Beta","Farbe":"Weiss"}}');
  await act(p(42), '{"Spiel starten":{}}');
  await act(p(63), '{"Spiel starten":{}}');
  await act(p(17), '{"Spiel starten":{}}');
  const builds: [number, string, string][] = [
    [42, 'Dorf', 'FOP'],
    [42, 'Strasse', 'OP'],
    [63, 'Dorf', 'ALM'],
    [63, 'Strasse', 'AM'],
    [17, 'Dorf', 'KLR'],
    [17, 'Strasse', 'KR'],
    [17, 'Dorf', 'CDN'],
    [17, 'Strasse', 'DN'],
    [63, 'Dorf', 'GHP'],
    [63, 'Strasse', 'HP'],
    [42, 'Dorf', 'DEO'],
    [42, 'Strasse', 'EO'],
  ];
  for (const [id, typ, ort] of builds) await act(p(id), `{"Bauen":{"Typ":"${typ}","Ort":"${ort}"}}`);
  const from = [...byId.values()].map((c) => c.lines.length);
  await act(p(42), '{"Wuerfeln":{}}');
  // The roll's last broadcast is 17's Statusupdate; every client has the whole roll once it is there.
  await Promise.all([...byId.values()].map((c, i) => c.expect(/^\{"Statusupdate":\{"Spieler":\{"id":17,.*"Status":"Warten"/, from[i])));
  return byId;
}

/** `n` of our network clients with random bots; resolves with their results once the game is over. */
export async function botClients(
  port: number,
  n: number,
  options: RandomBotOptions & { prefix?: string } = {},
): Promise<{ clients: CatanClient[]; done: Promise<ClientResult[]> }> {
  const clients: CatanClient[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${options.prefix ?? 'Bot'} ${i + 1}`;
    const c = new CatanClient({ host: '127.0.0.1', port, name, bot: randomBot(name, options) });
    await c.start();
    clients.push(c);
  }
  return { clients, done: Promise.all(clients.map((c) => c.done)) };
}
