import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Valid messages recorded in test/fixtures (and a few spelled out where a protocol has no
 * recording), one list per codec: what the mutators start from.
 */

/** test/fixtures/ (`FUZZ_FIXTURES` names it for a bundled worker, which has no sources next to it). */
const FIXTURES = process.env.FUZZ_FIXTURES
  ? pathToFileURL(`${process.env.FUZZ_FIXTURES.replace(/\/$/, '')}/`)
  : new URL('../../fixtures/', import.meta.url);
const fixture = (path: string): string => readFileSync(new URL(path, FIXTURES), 'utf8');
const unique = (list: readonly string[]): Buffer[] =>
  [...new Set(list.filter((l) => l.length > 0))].map((l) => Buffer.from(l));

/** Connect Four: no datagram recordings exist, so every kind as we send it and as dialect A (§3.9) does. */
export function connect4Corpus(): Buffer[] {
  const lines: string[] = [];
  for (const clienttype of [0, 1, '0']) {
    const head = (stage: number | string) => ({ version: 2, clienttype, stage });
    lines.push(
      JSON.stringify({ ...head(1), clientname: 'Alice' }),
      JSON.stringify({ ...head(2), clientname: 'Bob' }),
      JSON.stringify(head(2)),
      JSON.stringify(head(3)),
      JSON.stringify({ ...head(4), turn: 0, column: 4 }),
      JSON.stringify({ ...head(4), turn: -1, column: 1 }),
      JSON.stringify({ ...head(4), turn: 17, column: 7 }),
      JSON.stringify(head(5)),
      JSON.stringify(head(99)),
    );
  }
  // Dialect A: every value quoted, pretty-printed, names escaped byte by byte, `\/`.
  lines.push(
    '{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "1",\n    "clientname": "J\\u00C3\\u00B6rg\\/A"\n}\n',
    '{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "4",\n    "turn": "3",\n    "column": "5"\n}\n',
    '{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "2",\n    "clientname": "Jo"\n}\n',
  );
  return unique(lines);
}

/** Mia: every client line of the recorded sessions, and every server line for the client's parser. */
export function miaCorpus(): { client: Buffer[]; server: Buffer[] } {
  const client: string[] = [];
  const server: string[] = [];
  for (const line of fixture('mia/session-5-bots.txt').split('\n')) {
    const m = /^\s*\d+ms (C->S|S->C) \S+\s+"(.*)"$/.exec(line);
    if (m) (m[1] === 'C->S' ? client : server).push(m[2]!);
  }
  for (const line of fixture('mia/scenarios.txt').split('\n')) {
    const m = /^\s*\S+\s+(->|<-) (.*)$/.exec(line);
    if (m) (m[1] === '->' ? client : server).push(m[2]!);
  }
  return { client: unique(client), server: unique(server) };
}

/** Dame: the client and server lines of the recorded transcripts. */
export function dameCorpus(): { client: Buffer[]; server: Buffer[] } {
  const client: string[] = [];
  const server: string[] = ['+ MNM Gameserver v2.3 accepting connections'];
  for (const name of ['transcript-player0.txt', 'transcript-player1.txt']) {
    for (const line of fixture(`dame/${name}`).split('\n')) {
      if (line.startsWith('C: ')) client.push(line.slice(3));
      else if (line.startsWith('S: ')) server.push(line.slice(3));
    }
  }
  client.push('PLAY C3:D4;D4:E5', 'PLAY E3:C5:B6', 'PLAYER', 'VERSION 2.1', 'OKWAIT', 'THINKING');
  return { client: unique(client), server: unique(server) };
}

/** Ostseeschach: each packet of the recorded client streams and server streams (and the scenarios). */
export function ostseeschachCorpus(): { client: Buffer[]; server: Buffer[] } {
  const packets = (text: string): string[] => {
    // The recordings hold one top-level packet per line (client) or pretty-printed (server): cut at depth 1.
    const body = text.replace(/^\s*<protocol>/, '').replace(/<\/protocol>\s*$/, '');
    const out: string[] = [];
    let depth = 0;
    let start = -1;
    const tags = /<(\/?)([A-Za-z_.][\w.-]*)[^>]*?(\/?)>/g;
    for (const m of body.matchAll(tags)) {
      const closing = m[1] === '/';
      const selfClosing = m[3] === '/';
      if (!closing && depth === 0) start = m.index;
      if (!closing && !selfClosing) depth++;
      if (closing) depth--;
      if (depth === 0 && start >= 0) {
        out.push(body.slice(start, m.index + m[0].length));
        start = -1;
      }
    }
    return out;
  };
  const client: string[] = [];
  const server: string[] = [];
  for (const p of ['p1', 'p2']) {
    client.push(...packets(fixture(`ostseeschach/fullgame-${p}.client-to-server.txt`)));
    server.push(...packets(fixture(`ostseeschach/fullgame-${p}.server-to-client.xml`)));
  }
  const dir = new URL('ostseeschach/wire/scenarios/', FIXTURES);
  for (const name of readdirSync(dir)) {
    for (const block of readFileSync(new URL(name, dir), 'utf8').split(/^\S+ (?:->|<-) *$/m))
      server.push(...packets(block));
  }
  client.push(
    '<authenticate password="examplepassword"/>',
    '<prepare gameType="swc_2022_ostseeschach" pause="true"><slot displayName="A" canTimeout="true" reserved="true"/><slot displayName="B" canTimeout="false" reserved="true"/></prepare>',
    '<joinPrepared reservationCode="abc"/>',
    '<joinRoom roomId="r"/>',
    '<observe roomId="r"/>',
    '<pause roomId="r" pause="false"/>',
    '<step roomId="r" forced="true"/>',
    '<cancel roomId="r"/>',
    '<sc.protocol.CloseConnection/>',
  );
  return { client: unique(client), server: unique(server.slice(0, 400)) };
}

/** Catan: the JSON lines of the §5 example start, the T1 map, and one of every client message. */
export function catanCorpus(): { client: Buffer[]; server: Buffer[] } {
  const client: string[] = [];
  const server: string[] = [];
  for (const line of fixture('catan/example-start.txt').split('\n')) {
    const m = /^\s*(C|S)\S*\s+(\{.*\})\s*$/.exec(line);
    if (!m) continue;
    try {
      JSON.parse(m[2]!);
    } catch {
      continue;
    }
    (m[1] === 'C' ? client : server).push(m[2]!);
  }
  server.push(
    JSON.stringify({ 'Spiel gestartet': { Karte: JSON.parse(fixture('catan/karte-t1.json')) as unknown } }),
  );
  client.push(
    '{"Hallo":{"Version":"CatanTS-KI 0.3 (KI)"}}',
    '{"Spieler":{"Name":"KI","Farbe":"Weiß"}}',
    '{"Spiel starten":{}}',
    '{"Chatnachricht senden":{"Nachricht":"hallo"}}',
    '{"Wuerfeln":{}}',
    '{"Karten abgeben":{"Abgeben":{"Holz":1,"Lehm":0,"Wolle":2,"Getreide":0,"Erz":1}}}',
    '{"Raeuber versetzen":{"Ort":"J","Ziel":42}}',
    '{"Bauen":{"Typ":"Dorf","Ort":"FOP"}}',
    '{"Entwicklungskarte kaufen":{}}',
    '{"Seehandel":{"Angebot":{"Holz":4},"Nachfrage":{"Erz":1}}}',
    '{"Zug beenden":{}}',
    '{"Handel anbieten":{"Angebot":{"Holz":1},"Nachfrage":{"Erz":1}}}',
    '{"Handel annehmen":{"Handel id":3}}',
    '{"Handel abschliessen":{"Handel id":3,"Mitspieler":42}}',
    '{"Handel abbrechen":{"Handel id":3}}',
    '{"Ritter ausspielen":{"Ort":"K","Ziel":17}}',
    '{"Strassenbaukarte ausspielen":{"Strasse 1":"OP","Strasse 2":"EO"}}',
    '{"Monopol":{"Rohstoff":"Holz"}}',
    '{"Erfindung":{"Rohstoffe":{"Holz":1,"Erz":1}}}',
  );
  return { client: unique(client), server: unique(server) };
}
