import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL } from '../../../src/games/catan/protocol.js';
import { SERVER_VERSION } from '../../../src/games/catan/version.js';
import { startServer, type TestServer } from './harness.js';
import { RawClient } from './tcp.js';

/**
 * Seed §8 over TCP, line for line: "Der Server soll diese Nachricht [Spiel starten] nur dann mit
 * OK akzeptieren, wenn die Farbe noch nicht vergeben ist". We refuse a taken colour at `Spieler`
 * already (our documented reading, docs/catan.md); a client that reads the seed literally sends
 * `Spiel starten` next, and hears `Farbe bereits vergeben` there too, not `Ungueltiger Name`.
 * The refused Spieler changes nothing anyone sees.
 */

const HALLO = `{"Hallo":{"Version":"${SERVER_VERSION}","Protokoll":"${PROTOCOL}"}}`;
const OK = '{"Serverantwort":"OK"}';
const FARBE_VERGEBEN = '{"Fehler":{"Meldung":"Farbe bereits vergeben"}}';

/** A lobby Statusupdate as `viewer` receives it (the subject's own copy lists every key). */
function su(id: number, viewer: number, status: string, who?: { name: string; colour: string }): string {
  const own = id === viewer;
  const head = `"id":${id}${who ? `,"Farbe":"${who.colour}","Name":"${who.name}"` : ''},"Status":"${status}","Siegpunkte":0`;
  const hand = own ? '{"Holz":0,"Lehm":0,"Wolle":0,"Getreide":0,"Erz":0}' : '{"Unbekannt":0}';
  const cards = own ? '{"Ritter":0,"Strassenbau":0,"Monopol":0,"Erfindung":0,"Siegpunkt":0}' : '{"Unbekannt":0}';
  return `{"Statusupdate":{"Spieler":{${head},"Rohstoffe":${hand},"Rittermacht":0,"Entwicklungskarten":${cards}}}}`;
}

let t: TestServer | null = null;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await t?.stop();
  t = null;
});

describe('Spieler with a taken colour, then Spiel starten (seed §8)', () => {
  it('answers both with Farbe bereits vergeben and keeps everyone else\'s lines unchanged', async () => {
    const ids = [17, 42, 63];
    t = await startServer({ ids: () => ids.shift() ?? 1000 });
    const port = t.server.port;
    const c = new Map<number, RawClient>();
    const expected = new Map<number, string[]>();
    /** Every client has received exactly its expected lines so far. */
    const settle = async (): Promise<void> => {
      for (const [id, lines] of expected) expect(await c.get(id)!.count(lines.length)).toEqual(lines);
    };
    const to = (id: number, ...lines: string[]): void => void expected.get(id)!.push(...lines);
    const toAll = (line: (viewer: number) => string): void => {
      for (const id of expected.keys()) to(id, line(id));
    };
    const join = async (id: number): Promise<void> => {
      const raw = await RawClient.open(port);
      clients.push(raw);
      c.set(id, raw);
      expected.set(id, [HALLO]);
      await settle();
      raw.send('{"Hallo":{"Version":"Literal 0.3 (KI)"}}');
    };
    const anna = { name: 'Anna', colour: 'Rot' };
    const alpha = { name: 'KI Alpha', colour: 'Blau' };

    await join(17);
    to(17, '{"Willkommen":{"id":17}}', su(17, 17, 'Spiel starten'));
    await join(42);
    to(42, '{"Willkommen":{"id":42}}', su(17, 42, 'Spiel starten'));
    toAll((v) => su(42, v, 'Spiel starten'));
    await settle();

    c.get(17)!.send('{"Spieler":{"Name":"Anna","Farbe":"Rot"}}');
    toAll((v) => su(17, v, 'Spiel starten', anna));
    to(17, OK);
    await settle();

    // Our reading: the taken colour is refused at once. Nobody else hears of it.
    c.get(42)!.send('{"Spieler":{"Name":"KI Alpha","Farbe":"Rot"}}');
    to(42, FARBE_VERGEBEN);
    await settle();
    // The literal reading: the client goes on to Spiel starten and hears the colour is taken (was: Ungueltiger Name).
    c.get(42)!.send('{"Spiel starten":{}}');
    to(42, FARBE_VERGEBEN);
    await settle();

    // A newcomer sees 42 as before its refused Spieler: no name yet.
    await join(63);
    to(63, '{"Willkommen":{"id":63}}', su(17, 63, 'Spiel starten', anna), su(42, 63, 'Spiel starten'));
    toAll((v) => su(63, v, 'Spiel starten'));
    await settle();

    // 42 picks a free colour: from then on its name is shown and Spiel starten is accepted.
    c.get(42)!.send('{"Spieler":{"Name":"KI Alpha","Farbe":"Blau"}}');
    toAll((v) => su(42, v, 'Spiel starten', alpha));
    to(42, OK);
    await settle();
    c.get(42)!.send('{"Spiel starten":{}}');
    toAll((v) => su(42, v, 'Wartet auf Spielbeginn', alpha));
    to(42, OK);
    await settle();

    // A player with a colour who names a taken one keeps name and colour: Anna stays Anna, Rot.
    c.get(17)!.send('{"Spieler":{"Name":"Anne","Farbe":"Blau"}}');
    to(17, FARBE_VERGEBEN);
    await settle();
    c.get(17)!.send('{"Spiel starten":{}}');
    toAll((v) => su(17, v, 'Wartet auf Spielbeginn', anna));
    to(17, OK);
    await settle();

    // A Spieler refused for another reason forgets the refused name: no Spieler, no name.
    c.get(63)!.send('{"Spieler":{"Name":"KI Beta","Farbe":"Lila"}}');
    to(63, '{"Fehler":{"Meldung":"Ungueltige Farbe"}}');
    c.get(63)!.send('{"Spiel starten":{}}');
    to(63, '{"Fehler":{"Meldung":"Ungueltiger Name"}}');
    await settle();

    await new Promise((r) => setTimeout(r, 100));
    for (const [id, lines] of expected) expect(c.get(id)!.lines).toEqual(lines);
  });
});
