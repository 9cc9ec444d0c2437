import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { createCatanServer, type CatanServer } from '../../../src/games/catan/server.js';
import { boardT1, KARTE_T1 } from './helpers.js';
import { RawClient } from './tcp.js';

/**
 * catan.md §5 over real TCP: three scripted clients play the example start from the handshake to
 * the first roll, and every line each of them receives is compared byte for byte with the spec's
 * transcript (test/fixtures/catan/example-start.txt, copied from the spec), expanded from its
 * notation: SU (own copy in full, censored for the others), B, E, OK, KARTE_T1, and PACKAGE_VERSION
 * (package.json's) in the server's Hallo, which names our software, not the spec's example server.
 */

const SCRIPT = readFileSync(new URL('../../fixtures/catan/example-start.txt', import.meta.url), 'utf8').split('\n');
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** The server's Hallo: the script's first line, with our package's version for PACKAGE_VERSION. */
const SERVER_HALLO = /^Snew\s+(.*)$/.exec(SCRIPT[0]!)![1]!.replace('PACKAGE_VERSION', PACKAGE_VERSION);
const OK = '{"Serverantwort":"OK"}';
const RESOURCES = ['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz'] as const;
const NO_DEV = '{"Ritter":0,"Strassenbau":0,"Monopol":0,"Erfindung":0,"Siegpunkt":0}';

type Hand = Partial<Record<(typeof RESOURCES)[number], number>>;

/** Names and colours as the Spieler messages of the script set them. */
const named = new Map<number, { name: string; colour: string }>();

function su(id: number, status: string, vp: number, hand: Hand, viewer: number): string {
  const who = named.get(id);
  const head = `"id":${id}${who ? `,"Farbe":"${who.colour}","Name":"${who.name}"` : ''},"Status":"${status}","Siegpunkte":${vp}`;
  const total = Object.values(hand).reduce((a, b) => a + b, 0);
  const own = viewer === id;
  const rohstoffe = own ? `{${RESOURCES.map((r) => `"${r}":${hand[r] ?? 0}`).join(',')}}` : `{"Unbekannt":${total}}`;
  const dev = own ? NO_DEV : '{"Unbekannt":0}';
  return `{"Statusupdate":{"Spieler":{${head},"Rohstoffe":${rohstoffe},"Rittermacht":0,"Entwicklungskarten":${dev}}}}`;
}

/** One notation item as `viewer` receives it. */
function expand(item: string, viewer: number): string {
  let m: RegExpMatchArray | null;
  if (item === 'OK') return OK;
  if (item.startsWith('(the same server Hallo)')) return SERVER_HALLO;
  if ((m = /^SU\((\d+),"([^"]+)",(\d+)(?:,(\{.*\}))?\)$/.exec(item))) return su(Number(m[1]), m[2]!, Number(m[3]), m[4] ? (JSON.parse(m[4]) as Hand) : {}, viewer);
  if ((m = /^B\((\d+),(\w+),(\w+)\)$/.exec(item))) return `{"Bauvorgang":{"Gebaeude":{"Eigentuemer":${m[1]!},"Typ":"${m[2]!}","Ort":"${m[3]!}"}}}`;
  if ((m = /^E\((\d+),(\{.*\})\)$/.exec(item))) {
    const hand = JSON.parse(m[2]!) as Hand;
    const shown = Number(m[1]) === viewer ? m[2]! : `{"Unbekannt":${Object.values(hand).reduce((a, b) => a + b, 0)}}`;
    return `{"Ertrag":{"Spieler":${m[1]!},"Rohstoffe":${shown}}}`;
  }
  return item.replace('KARTE_T1', JSON.stringify(KARTE_T1));
}

let server: CatanServer;
let store: RecordStore;
const clients: RawClient[] = [];

beforeEach(async () => {
  named.clear();
  store = new RecordStore(':memory:');
  const ids = [17, 42, 63];
  server = createCatanServer({
    host: '127.0.0.1',
    port: 0,
    seed: 'example',
    log: silentLogger,
    store,
    ids: () => ids.shift() ?? 1000,
    board: () => boardT1(),
    order: () => [42, 63, 17],
    dice: () => [2, 4],
  });
  await server.start();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.stop();
  store.close();
});

describe('the example start of catan.md §5 over TCP', () => {
  it('sends every client exactly the lines of the transcript', async () => {
    const byId = new Map<number, RawClient>();
    const expected = new Map<RawClient, string[]>();
    let fresh: RawClient | null = null;
    const connected = (): RawClient[] => [...expected.keys()];
    const settle = async (): Promise<void> => {
      for (const [c, lines] of expected) {
        const got = await c.count(lines.length);
        expect(got).toEqual(lines);
      }
    };
    let steps = 0;
    for (const raw of SCRIPT) {
      const line = raw.trim();
      if (line === '') continue;
      const [, who, text] = /^(\S+)\s+(.*)$/.exec(line)!;
      if (who === 'Snew') {
        await settle();
        fresh = await RawClient.open(server.port);
        clients.push(fresh);
        expected.set(fresh, [SERVER_HALLO]);
      } else if (who === 'Cnew') {
        await settle();
        fresh!.send(text!);
      } else if (who!.startsWith('C')) {
        await settle();
        const id = Number(who!.slice(1));
        const spieler = /^\{"Spieler":\{"Name":"([^"]+)","Farbe":"([^"]+)"\}\}$/.exec(text!);
        if (spieler) named.set(id, { name: spieler[1]!, colour: spieler[2]! });
        byId.get(id)!.send(text!);
        steps++;
      } else if (who === 'S*' || who === 'S*†') {
        for (const c of connected()) expected.get(c)!.push(expand(text!, [...byId].find(([, x]) => x === c)![0]));
      } else {
        const id = Number(who!.slice(1));
        const welcome = /^\{"Willkommen":\{"id":(\d+)\}\}$/.exec(text!);
        if (welcome) byId.set(id, fresh!);
        if (text!.startsWith('{"Fehler"')) named.delete(id);
        expected.get(byId.get(id)!)!.push(expand(text!, id));
      }
    }
    await settle();
    // Nothing more arrives.
    await new Promise((r) => setTimeout(r, 100));
    for (const [c, lines] of expected) expect(c.lines.length).toBe(lines.length);
    expect(steps).toBe(20);
    expect(byId.size).toBe(3);
    // The game is on; the record has the seed, the seats in turn order and every action.
    store.flush();
    const [record] = store.listMatches({ game: 'catan' });
    expect(record).toMatchObject({ status: 'running', seed: 'example/1' });
    expect(record!.seats.map((s) => [s.name, s.kind])).toEqual([
      ['KI Alpha', 'ai'],
      ['KI Beta', 'ai'],
      ['Anna', 'human'],
    ]);
    expect(store.getMatch(record!.id)!.events.map((e) => e.type)).toEqual(['start', ...Array<string>(12).fill('build'), 'roll']);
  });
});
