import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SpectatorEvent } from '../../../src/core/game-server.js';
import { HouseBot } from '../../../src/games/catan/house-bot.js';
import { act, botClients, exampleOptions, exampleStart, fehler, hello, OK, startServer, type TestServer } from './harness.js';
import { RawClient } from './tcp.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The Catan server over real TCP on 127.0.0.1: whole games, every error answer, bad input, disconnects, bots. */

let t: TestServer | null = null;
const raws: RawClient[] = [];

afterEach(async () => {
  for (const c of raws.splice(0)) c.close();
  await t?.stop();
  t = null;
});

const track = (c: RawClient): RawClient => {
  raws.push(c);
  return c;
};

describe('games over TCP', () => {
  it('plays two games at once between four network clients each, to a winner, and records them', async () => {
    t = await startServer({ seed: 'two-games' });
    const events: SpectatorEvent[] = [];
    t.server.subscribe((e) => events.push(e));
    const a = await botClients(t.server.port, 4, { policy: 'builder', prefix: 'A' });
    const b = await botClients(t.server.port, 4, { policy: 'builder', trades: true, prefix: 'B' });
    const results = [...(await a.done), ...(await b.done)];
    for (const group of [results.slice(0, 4), results.slice(4)]) {
      const winners = new Set(group.map((r) => r.winner));
      expect(winners.size).toBe(1);
      const winner = group.find((r) => r.won);
      expect(winner, 'one of the four won').toBeDefined();
      expect(group.every((r) => r.message === `Spieler ${winner!.view.players.find((p) => p.id === winner!.me)!.name!} hat das Spiel gewonnen.`)).toBe(true);
      // The winner's final Statusupdate shows everyone the true points.
      for (const r of group) expect(r.view.players.find((p) => p.id === r.winner)!.points).toBeGreaterThanOrEqual(10);
    }
    // Our clients follow the server's view exactly: nothing of theirs was refused except races over trade offers.
    for (const r of results.slice(0, 4)) expect(r.stats.refused).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    t.store.flush();
    const records = t.store.listMatches({ game: 'catan' });
    expect(records.map((m) => m.status)).toEqual(['finished', 'finished']);
    for (const m of records) {
      expect(m.seats).toHaveLength(4);
      expect(m.seats.every((s) => s.kind === 'ai' && /^127\.0\.0\.1:\d+$/.test(s.address ?? ''))).toBe(true);
      expect(m.result).toMatchObject({ reason: 'won' });
      const detail = t.store.getMatch(m.id)!;
      expect(detail.events[0]!.type).toBe('start');
      expect(detail.events.length).toBeGreaterThan(100);
      expect(detail.wire.some((w) => w.dir === 'in') && detail.wire.some((w) => w.dir === 'out')).toBe(true);
    }
    const snap = t.server.snapshot();
    expect(snap.gamesPlayed).toBe(2);
    expect(snap.recent.map((r) => r.status)).toEqual(['finished', 'finished']);
    expect(snap.matches).toEqual([]);
    // Spectators saw the games, and never a hand.
    const lines = events.filter((e) => e.type === 'line').map((e) => (e.data as { line: string }).line);
    expect(lines.length).toBeGreaterThan(1000);
    for (const line of lines) {
      if (line.startsWith('{"Statusupdate"')) expect(line).toMatch(/"Rohstoffe":\{"Unbekannt":\d+\}.*"Entwicklungskarten":\{"Unbekannt":\d+\}/);
      if (line.startsWith('{"Ertrag"') || line.startsWith('{"Kosten"')) expect(line).toMatch(/"Rohstoffe":\{"Unbekannt":\d+\}/);
      if (line.startsWith('{"Entwicklungskarte gekauft"')) expect(line).toContain('"Unbekannt"');
    }
    expect(events.filter((e) => e.type === 'matchEnded')).toHaveLength(2);
  });
});

describe('Fehler answers', () => {
  it('answers every lobby mistake with its Meldung and changes nothing', async () => {
    t = await startServer();
    const port = t.server.port;
    const early = track(await RawClient.open(port));
    await early.expect(/^\{"Hallo"/);
    expect(await act(early, '{"Spieler":{"Name":"A","Farbe":"Rot"}}', /Fehler/)).toBe(fehler('Aktion im aktuellen Status nicht erlaubt'));
    expect(await act(early, '{"Spiel starten":{}}', /Fehler/)).toBe(fehler('Aktion im aktuellen Status nicht erlaubt'));
    const { c: a } = await hello(port);
    const { c: b } = await hello(port);
    track(a);
    track(b);
    expect(await act(a, '{"Hallo":{"Version":"again"}}', /Fehler/)).toBe(fehler('Aktion im aktuellen Status nicht erlaubt'));
    expect(await act(a, '{"Spiel starten":{}}', /Fehler/)).toBe(fehler('Ungueltiger Name'));
    expect(await act(a, '{"Spieler":{"Name":"","Farbe":"Rot"}}', /Fehler/)).toBe(fehler('Ungueltiger Name'));
    expect(await act(a, '{"Spieler":{"Name":"   ","Farbe":"Rot"}}', /Fehler/)).toBe(fehler('Ungueltiger Name'));
    expect(await act(a, `{"Spieler":{"Name":"${'x'.repeat(41)}","Farbe":"Rot"}}`, /Fehler/)).toBe(fehler('Ungueltiger Name'));
    expect(await act(a, '{"Spieler":{"Name":"Anna","Farbe":"Lila"}}', /Fehler/)).toBe(fehler('Ungueltige Farbe'));
    expect(await act(a, `{"Spieler":{"Name":"${'ü'.repeat(40)}","Farbe":"Weiß"}}`)).toBe(OK);
    expect(await act(a, '{"Spieler":{"Name":"Anna","Farbe":"Rot"}}')).toBe(OK);
    expect(await act(b, '{"Spieler":{"Name":"Bert","Farbe":"Rot"}}', /Fehler/)).toBe(fehler('Farbe bereits vergeben'));
    expect(await act(b, '{"Wuerfeln":{}}', /Fehler/)).toBe(fehler('Aktion im aktuellen Status nicht erlaubt'));
    expect(await act(b, '{"Spieler":{"Name":"Bert"}}', /Fehler/)).toBe(fehler('Ungueltige Nachricht'));
    expect(await act(b, '{"Spieler":{"Name":"Bert","Farbe":"Blau"}}')).toBe(OK);
    expect(await act(a, '{"Spiel starten":{}}')).toBe(OK);
    expect(await act(a, '{"Spiel starten":{}}', /Fehler/)).toBe(fehler('Aktion im aktuellen Status nicht erlaubt'));
    expect(await act(a, '{"Spieler":{"Name":"Anna","Farbe":"Orange"}}', /Fehler/)).toBe(fehler('Aktion im aktuellen Status nicht erlaubt'));
    expect(await act(a, `{"Chatnachricht senden":{"Nachricht":"${'y'.repeat(501)}"}}`, /Fehler/)).toBe(fehler('Ungueltige Nachricht'));
    const from = b.lines.length;
    expect(await act(a, '{"Chatnachricht senden":{"Nachricht":"Hallo Bert"}}')).toBe(OK);
    expect(await b.expect(/Chatnachricht/, from)).toMatch(/^\{"Chatnachricht":\{"Absender":\d+,"Nachricht":"Hallo Bert"\}\}$/);
  });

  it('answers every game mistake with the rules\' Meldung; nobody else hears of it', async () => {
    t = await startServer(exampleOptions());
    const p = await exampleStart(t.server.port);
    const [a17, a42, a63] = [p.get(17)!, p.get(42)!, p.get(63)!];
    raws.push(a17, a42, a63);
    const before = [a17.lines.length, a63.lines.length];
    const cases: [typeof a42, string, string][] = [
      [a42, '{"Bauen":{"Typ":"Stadt","Ort":"FOP"}}', 'Nicht genug Rohstoffe'],
      [a42, '{"Entwicklungskarte kaufen":{}}', 'Nicht genug Rohstoffe'],
      [a42, '{"Bauen":{"Typ":"Strasse","Ort":"OP"}}', 'Ort bereits belegt'],
      [a42, '{"Bauen":{"Typ":"Strasse","Ort":"AB"}}', 'Keine Verbindung'],
      [a42, '{"Bauen":{"Typ":"Dorf","Ort":"EFO"}}', 'Abstandsregel verletzt'],
      [a42, '{"Bauen":{"Typ":"Dorf","Ort":"XYZ"}}', 'Ungueltiger Ort'],
      [a42, '{"Bauen":{"Typ":"Dorf","Ort":"AM"}}', 'Ungueltiger Ort'],
      [a42, '{"Seehandel":{"Angebot":{"Holz":2},"Nachfrage":{"Erz":1}}}', 'Ungueltiger Handel'],
      [a42, '{"Handel anbieten":{"Angebot":{"Holz":1},"Nachfrage":{"Holz":1}}}', 'Ungueltiger Handel'],
      [a42, '{"Handel abschliessen":{"Handel id":5,"Mitspieler":63}}', 'Handel nicht gefunden'],
      [a42, '{"Ritter ausspielen":{"Ort":"F"}}', 'Karte nicht spielbar'],
      [a42, '{"Karten abgeben":{"Abgeben":{"Holz":1}}}', 'Aktion im aktuellen Status nicht erlaubt'],
      [a42, '{"Raeuber versetzen":{"Ort":"F"}}', 'Aktion im aktuellen Status nicht erlaubt'],
      [a42, '{"Wuerfeln":{}}', 'Aktion im aktuellen Status nicht erlaubt'],
      [a63, '{"Zug beenden":{}}', 'Nicht am Zug'],
      [a63, '{"Handel annehmen":{"Handel id":0}}', 'Handel nicht gefunden'],
      [a17, '{"Spieler":{"Name":"Anna","Farbe":"Orange"}}', 'Spiel laeuft bereits'],
      [a17, '{"Spiel starten":{}}', 'Spiel laeuft bereits'],
      [a17, '{"Hallo":{"Version":"again"}}', 'Aktion im aktuellen Status nicht erlaubt'],
      [a17, '{"Bauen":{}}', 'Ungueltige Nachricht'],
      [a17, '{"Wurfeln":{}}', 'Ungueltige Nachricht'],
      [a17, 'Wuerfeln', 'Ungueltige Nachricht'],
      // An unclosed object is found out by what follows it: one Fehler for both lines.
      [a17, '{"Wuerfeln":{}\nWuerfeln', 'Ungueltige Nachricht'],
    ];
    const fehler42 = a42.lines.length;
    for (const [c, line, meldung] of cases) expect(await act(c, line, /^\{"Fehler"/), line).toBe(fehler(meldung));
    // Only the Fehler lines went out, and only to the senders.
    expect(a42.lines.length - fehler42).toBe(cases.filter(([c]) => c === a42).length);
    expect([a17.lines.length, a63.lines.length]).toEqual([before[0]! + 7, before[1]! + 2]);
    // Nothing changed: the turn goes on as before.
    expect(await act(a42, '{"Zug beenden":{}}')).toBe(OK);
    await a63.expect(/"id":63,"Farbe":"Weiss","Name":"KI Beta","Status":"Wuerfeln"/);
  });

  it('says Spiel ist voll when the server takes no more games', async () => {
    t = await startServer({ maxGames: 1 });
    for (let i = 0; i < 4; i++) track((await hello(t.server.port)).c);
    const late = track(await RawClient.open(t.server.port));
    expect(await act(late, '{"Hallo":{"Version":"x"}}', /Fehler/)).toBe(fehler('Spiel ist voll'));
    await late.closedByServer();
  });
});

describe('bad input', () => {
  it('answers junk, broken JSON and invalid UTF-8 with Fehler, cuts off floods and overlong objects, and the game next door goes on', async () => {
    t = await startServer({ floodPerSecond: 50, seed: 'bad-input' });
    const game = await botClients(t.server.port, 4, { policy: 'builder' });
    const port = t.server.port;
    const { c: junk } = await hello(port);
    track(junk);
    const from = junk.lines.length;
    junk.send(Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
    junk.send(Buffer.concat([Buffer.from('{"Chatnachricht senden":{"Nachricht":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}\n')]));
    junk.send('{"Bauen":{"Typ":"Dorf"}}');
    junk.send('{ "Chatnachricht senden" : {\r\n  "Nachricht" : "mehrzeilig"\r\n} }');
    await junk.until(() => junk.lines.length >= from + 5, 'answers');
    expect(junk.lines.slice(from, from + 3)).toEqual([fehler('Ungueltige Nachricht'), fehler('Ungueltige Nachricht'), fehler('Ungueltige Nachricht')]);
    expect(junk.lines.slice(from + 3, from + 5)).toEqual([expect.stringMatching(/"Nachricht":"mehrzeilig"/), OK]);

    const { c: big } = await hello(port);
    track(big);
    big.send('{"Chatnachricht senden":{"Nachricht":"' + 'z'.repeat(70_000) + '"}}');
    await big.closedByServer();

    const { c: flood } = await hello(port);
    track(flood);
    flood.send(Array.from({ length: 3000 }, () => '{"Zug beenden":{}}').join('\n'));
    await flood.closedByServer();
    // The client answering slower than the others gets its Fehler; the rest of the flood is dropped.
    expect(flood.lines.filter((l) => l.startsWith('{"Fehler"')).length).toBeLessThan(200);

    const silent = track(await RawClient.open(port));
    const results = await game.done;
    expect(results.every((r) => r.winner !== null && r.winner === results[0]!.winner)).toBe(true);
    expect(silent.closed).toBe(false);
  });

  it('closes a connection that never says Hallo', async () => {
    t = await startServer({ helloTimeoutMs: 100 });
    const c = track(await RawClient.open(t.server.port));
    await c.closedByServer(3000);
    expect(c.lines).toEqual([`{"Hallo":{"Version":"Spielhalle-Catan ${PACKAGE_VERSION} (Protokoll 0.3)","Protokoll":"0.3"}}`]);
  });

  it('names itself so that nobody takes its version for the protocol version', async () => {
    t = await startServer();
    const c = track(await RawClient.open(t.server.port));
    const hallo = JSON.parse(await c.expect(/^\{"Hallo"/)) as { Hallo: Record<string, unknown> };
    // The seed's shape: exactly Version and Protokoll; the protocol only in Protokoll and in words.
    expect(Object.keys(hallo.Hallo)).toEqual(['Version', 'Protokoll']);
    expect(hallo.Hallo.Protokoll).toBe('0.3');
    expect(hallo.Hallo.Version).toBe(`Spielhalle-Catan ${PACKAGE_VERSION} (Protokoll 0.3)`);
    expect(hallo.Hallo.Version).not.toContain('CatanTS-Server');
  });
});

describe('disconnects and timeouts', () => {
  it('ends the game without a winner when a player vanishes mid-turn (D9), and records why', async () => {
    t = await startServer({ seed: 'vanish' });
    const { clients, done } = await botClients(t.server.port, 4);
    const victim = clients[2]!;
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        const me = victim.view.players.find((p) => p.id === victim.id);
        if (me?.status === 'Handeln oder Bauen' && victim.view.buildings.length > 20) {
          clearInterval(check);
          victim.vanish();
          resolve();
        }
      }, 1);
    });
    const results = await done;
    const others = results.filter((r) => r.me !== victim.id);
    for (const r of others) {
      expect(r.winner).toBeNull();
      expect(r.message).toMatch(/^Spieler Bot \d hat die Verbindung verloren\. Spiel abgebrochen\.$/);
      expect(r.view.players.find((p) => p.id === victim.id)!.status).toBe('Verbindung verloren');
    }
    await new Promise((r) => setTimeout(r, 50));
    t.store.flush();
    const [record] = t.store.listMatches({ game: 'catan' });
    expect(record).toMatchObject({ status: 'aborted', result: { reason: 'disconnect', winner: null } });
    expect(t.server.snapshot().recent[0]).toMatchObject({ status: 'aborted', reason: 'disconnect', winner: null });
  });

  it('removes a player who leaves the lobby and tells the others (D9)', async () => {
    t = await startServer();
    const { c: a } = await hello(t.server.port);
    const { c: b, id: bId } = await hello(t.server.port);
    track(a);
    const from = a.lines.length;
    b.close();
    expect(await a.expect(/Verbindung verloren/, from)).toBe(
      `{"Statusupdate":{"Spieler":{"id":${bId},"Status":"Verbindung verloren","Siegpunkte":0,"Rohstoffe":{"Unbekannt":0},"Rittermacht":0,"Entwicklungskarten":{"Unbekannt":0}}}}`,
    );
    expect(t.server.snapshot().lobbies[0]!.players).toHaveLength(1);
  });

  it('acts for a player who does not (D10): roll, place, end the turn, with broadcasts but no OK', async () => {
    t = await startServer({ ...exampleOptions(), turnTimeoutMs: 40 });
    const { c: silent, id: silentId } = await hello(t.server.port);
    track(silent);
    const others = await botClients(t.server.port, 2, { prefix: 'Fleißig' });
    await act(silent, '{"Spieler":{"Name":"Schläfer","Farbe":"Orange"}}');
    const from = silent.lines.length;
    const oks = (): number => silent.lines.slice(from).filter((l) => l === OK).length;
    await act(silent, '{"Spiel starten":{}}', /Spiel gestartet/);
    // The server places both setup Dorf and Strasse for the sleeper and later rolls and ends its turns.
    await silent.expect(new RegExp(`"Eigentuemer":${silentId},"Typ":"Dorf"`), from, 5000);
    const rolled = await silent.expect(new RegExp(`\\{"Wuerfelwurf":\\{"Spieler":${silentId},`), from, 8000);
    await silent.expect(new RegExp(`"id":${silentId},"Farbe":"Orange","Name":"Schläfer","Status":"Warten"`), silent.lines.indexOf(rolled), 8000);
    expect(oks()).toBe(1);
    silent.close();
    const results = await others.done;
    expect(results.every((r) => r.winner === null)).toBe(true);
    t.store.flush();
    const detail = t.store.getMatch(t.store.listMatches({ game: 'catan' })[0]!.id)!;
    expect(detail.events.some((e) => (e.data as { timeout?: boolean } | null)?.timeout === true)).toBe(true);
  });
});

describe('house bots', () => {
  it('plays a game of house bots on request and shows it on the dashboard', async () => {
    t = await startServer({ seed: 'house' });
    const id = await t.server.startGameWithBots(4);
    expect(t.server.snapshot().matches.map((m) => m.id)).toEqual([id]);
    const row = t.server.snapshot().matches[0]!;
    expect(row.players.map((p) => p.kind)).toEqual(['bot', 'bot', 'bot', 'bot']);
    expect(row.board.fields).toHaveLength(37);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (t!.server.snapshot().recent.length > 0) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    expect(t.server.snapshot().recent[0]).toMatchObject({ id, status: 'finished', reason: 'won' });
    t.store.flush();
    expect(t.store.getMatch(id)!.seats.map((s) => s.kind)).toEqual(['bot', 'bot', 'bot', 'bot']);
  });

  it('calls off a game of house bots whose bot fails while joining, and plays the next one', async () => {
    t = await startServer({ seed: 'house-fault' });
    const original = HouseBot.prototype.deliver;
    let fired = false;
    const spy = vi.spyOn(HouseBot.prototype, 'deliver').mockImplementation(function (this: HouseBot, ...args) {
      if (!fired) {
        fired = true;
        throw new Error('injected fault');
      }
      return original.apply(this, args);
    });
    try {
      await expect(t.server.startGameWithBots(4)).rejects.toThrow('the game of house bots did not start');
      expect(fired).toBe(true);
      // No lobby is left behind to hold a seat of maxGames or to reject again at stop().
      expect(t.server.snapshot().lobbies).toEqual([]);
      const id = await t.server.startGameWithBots(4);
      expect(t.server.snapshot().matches.map((m) => m.id)).toEqual([id]);
    } finally {
      spy.mockRestore();
    }
  });

  it('settles a game of house bots that has not started when the server stops, without an unhandled rejection', async () => {
    t = await startServer({ seed: 'house-stop' });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    // The bots hear nothing, so they never join and the game never starts.
    const spy = vi.spyOn(HouseBot.prototype, 'deliver').mockImplementation(() => undefined);
    try {
      const dropped = t.server.startGameWithBots(4); // nobody waits for this one
      const awaited = t.server.startGameWithBots(4);
      expect(t.server.snapshot().lobbies).toHaveLength(2);
      void t.server.stop();
      await expect(awaited).rejects.toThrow('the game of house bots did not start');
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
      void dropped;
    } finally {
      spy.mockRestore();
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('fills the empty seats of a lobby with bots, on request or after botFillMs', async () => {
    t = await startServer({ botFillMs: 50, seed: 'fill' });
    const { c: human, id } = await hello(t.server.port);
    track(human);
    await act(human, '{"Spieler":{"Name":"Mensch","Farbe":"Rot"}}');
    await act(human, '{"Spiel starten":{}}');
    const started = await human.expect(/^\{"Spiel gestartet"/, 0, 5000);
    expect(started).toContain('"Felder"');
    const row = t.server.snapshot().matches[0]!;
    expect(row.players.filter((p) => p.kind === 'bot')).toHaveLength(3);
    expect(row.players.some((p) => p.id === id && p.kind === 'human')).toBe(true);
    human.close();
    await human.closedByServer();

    const { c: second, id: secondId } = await hello(t.server.port);
    track(second);
    await act(second, '{"Spieler":{"Name":"Zweiter","Farbe":"Rot"}}');
    const filled = t.server.fillLobbyWithBots(undefined, 3);
    expect(filled).toMatchObject({ added: 2 });
    const from = second.lines.length;
    await act(second, '{"Spiel starten":{}}');
    await second.expect(/^\{"Spiel gestartet"/, from);
    const game = t.server.snapshot().matches.find((m) => m.players.some((p) => p.id === secondId))!;
    expect(game.players.map((p) => p.kind).sort()).toEqual(['bot', 'bot', 'human']);
    expect(new Set(game.players.map((p) => p.colour)).size).toBe(3);
  });

  it('keeps the seats it promised to bots: a newcomer in the meantime goes to the next lobby', async () => {
    // Slow bots: their Hallo comes long after the newcomer's.
    t = await startServer({ seed: 'reserve', botThinkMs: 150 });
    const { c: first, id: firstId } = await hello(t.server.port);
    track(first);
    expect(t.server.fillLobbyWithBots()).toMatchObject({ added: 3 });
    const { c: late, id: lateId } = await hello(t.server.port);
    track(late);
    await act(first, '{"Spieler":{"Name":"Erste","Farbe":"Rot"}}');
    expect(t.server.snapshot().lobbies.map((l) => l.players.length)).toEqual([1, 1]);
    await first.until(() => first.lines.filter((l) => l.includes('"Name":"Zufall')).length >= 3, 'the bots', 5000);
    const lobbies = t.server.snapshot().lobbies;
    const ids = (i: number): number[] => lobbies[i]!.players.map((p) => p.id);
    expect(lobbies).toHaveLength(2);
    expect(ids(0)).toContain(firstId);
    expect(ids(0)).not.toContain(lateId);
    expect(ids(1)).toEqual([lateId]);
  });
});

describe('a failing match', () => {
  it('ends only that match, with the error on record, while the other game plays on', async () => {
    let doomed: string | null = null;
    t = await startServer({
      seed: 'failing',
      onStep: (matchId, step) => {
        doomed ??= matchId;
        if (matchId === doomed && step.events.some((e) => e.type === 'rolled')) throw new Error('boom');
      },
    });
    const first = await botClients(t.server.port, 3, { prefix: 'Pech' });
    // A lobby takes up to 4: the second three come once the first game has left the lobby.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (first.clients.every((c) => c.view.stage !== 'lobby' && c.view.stage !== 'connecting')) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    const second = await botClients(t.server.port, 3, { prefix: 'Glück' });
    const lost = await first.done;
    for (const r of lost) {
      expect(r.winner).toBeNull();
      expect(r.message).toBe('Interner Fehler des Servers. Spiel abgebrochen.');
    }
    const won = await second.done;
    expect(won.some((r) => r.won)).toBe(true);
    t.store.flush();
    const record = t.store.getMatch(doomed!)!;
    expect(record).toMatchObject({ status: 'aborted', result: { reason: 'internal error', error: 'boom' } });
    expect(t.server.info().status).toBe('running');
  });
});
