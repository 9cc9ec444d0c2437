import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { BotDriver, type CatanBot } from '../../../src/games/catan/driver.js';
import { parseServer, type ClientMessage } from '../../../src/games/catan/protocol.js';
import type { Action } from '../../../src/games/catan/rules/index.js';
import { KARTE_T1 } from './helpers.js';

/**
 * The bot driver's side of domestic trades (spec D11): an offer it does not take is declined
 * explicitly, and as offerer it waits for everyone's answer before acting again, so no acceptance
 * arrives for an offer it has already completed or withdrawn.
 */

const su = (id: number, status: string, resources: Record<string, number> = { Unbekannt: 0 }): string =>
  JSON.stringify({
    Statusupdate: {
      Spieler: {
        id,
        Farbe: id === 7 ? 'Blau' : id === 3 ? 'Rot' : 'Weiss',
        Name: `P${id}`,
        Status: status,
        Siegpunkte: 2,
        Rohstoffe: resources,
        Rittermacht: 0,
        Entwicklungskarten: { Unbekannt: 0 },
      },
    },
  });

/** A driver for player 7 in a game with players 3 and 5, its scheduled work run by `flush`. */
function harness(decide: CatanBot['decide']) {
  const clock = new VirtualClock(1000);
  const sent: ClientMessage[] = [];
  let queue: (() => void)[] = [];
  const driver = new BotDriver({
    name: 'P7',
    bot: { strategy: 'test', decide },
    send: (m) => sent.push(m),
    schedule: (fn) => queue.push(fn),
    clock,
    log: silentLogger,
  });
  const flush = (): void => {
    while (queue.length > 0) {
      const now = queue;
      queue = [];
      for (const fn of now) fn();
    }
  };
  const feed = (...lines: string[]): void => {
    for (const line of lines) {
      const m = parseServer(line);
      if (!m.ok) throw new Error(m.error.detail);
      driver.receive(m.value);
      flush();
    }
  };
  const ok = JSON.stringify({ Serverantwort: 'OK' });
  // Hallo, Willkommen; OK to Spieler and to Spiel starten; then the game.
  feed(
    JSON.stringify({ Hallo: { Version: 'Test', Protokoll: '0.3' } }),
    JSON.stringify({ Willkommen: { id: 7 } }),
    ok,
    ok,
    JSON.stringify({ 'Spiel gestartet': { Karte: KARTE_T1 } }),
  );
  expect(sent.map((m) => m.type)).toEqual(['hello', 'player', 'startGame']);
  sent.length = 0;
  const actions = (): Action[] => sent.flatMap((m) => (m.type === 'action' ? [m.action] : []));
  return { clock, driver, sent, actions, feed, flush };
}

const OK = JSON.stringify({ Serverantwort: 'OK' });

/** Player 7 on its turn, whose bot offers 1 Lehm for 1 Wolle once and then ends the turn; the offer is out. */
function offeringPlayer(): ReturnType<typeof harness> {
  let offered = false;
  const h = harness(({ legal }) => {
    if (legal.status !== 'Handeln oder Bauen') return null;
    if (!offered) {
      offered = true;
      return { type: 'offerTrade', offer: { Lehm: 1 }, request: { Wolle: 1 } };
    }
    return { type: 'endTurn' };
  });
  h.feed(su(3, 'Warten'), su(5, 'Warten'), su(7, 'Handeln oder Bauen', { Lehm: 2 }));
  expect(h.actions()).toEqual([{ type: 'offerTrade', offer: { Lehm: 1 }, request: { Wolle: 1 } }]);
  h.feed(
    JSON.stringify({
      Handelsangebot: { Spieler: 7, 'Handel id': 0, Angebot: { Lehm: 1 }, Nachfrage: { Wolle: 1 } },
    }),
    OK,
  );
  return h;
}

describe('the bot driver and domestic trades', () => {
  it('declines an offer its bot passes on with Handel abbrechen, and answers each offer once', () => {
    const h = harness(() => null);
    h.feed(su(7, 'Warten', { Lehm: 2 }), su(5, 'Warten'), su(3, 'Handeln oder Bauen'));
    h.feed(
      JSON.stringify({
        Handelsangebot: { Spieler: 3, 'Handel id': 4, Angebot: { Wolle: 1 }, Nachfrage: { Lehm: 1 } },
      }),
    );
    expect(h.actions()).toEqual([{ type: 'cancelTrade', tradeId: 4 }]);
    h.feed(OK, JSON.stringify({ 'Handelsangebot abgebrochen': { Spieler: 7, 'Handel id': 4 } }));
    h.feed(su(3, 'Handeln oder Bauen'));
    expect(h.actions()).toHaveLength(1);
  });

  it('passes its bot only the answers to one offer at a time', () => {
    const seen: string[][] = [];
    const h = harness(({ legal }) => {
      seen.push(legal.actions.map((a) => JSON.stringify(a)));
      return legal.actions.find((a) => a.type === 'acceptTrade') ?? null;
    });
    h.feed(su(7, 'Warten', { Lehm: 2, Holz: 1 }), su(5, 'Warten'), su(3, 'Handeln oder Bauen'));
    h.feed(
      JSON.stringify({
        Handelsangebot: { Spieler: 3, 'Handel id': 0, Angebot: { Wolle: 1 }, Nachfrage: { Lehm: 1 } },
      }),
      JSON.stringify({
        Handelsangebot: { Spieler: 3, 'Handel id': 1, Angebot: { Erz: 1 }, Nachfrage: { Holz: 1 } },
      }),
    );
    expect(h.actions()).toEqual([{ type: 'acceptTrade', tradeId: 0 }]);
    h.feed(OK, JSON.stringify({ 'Handelsangebot angenommen': { Spieler: 7, 'Handel id': 0 } }));
    expect(h.actions()).toEqual([
      { type: 'acceptTrade', tradeId: 0 },
      { type: 'acceptTrade', tradeId: 1 },
    ]);
    for (const list of seen)
      for (const a of list) expect(a).toMatch(seen.indexOf(list) === 0 ? /"tradeId":0/ : /"tradeId":1/);
  });

  it('as offerer waits for every other player to answer before it acts again', () => {
    const h = offeringPlayer();

    // Nobody has answered yet: no Zug beenden that would cancel the offer under their acceptances.
    h.clock.advance(500);
    h.flush();
    expect(h.actions()).toHaveLength(1);
    h.feed(JSON.stringify({ 'Handelsangebot angenommen': { Spieler: 3, 'Handel id': 0 } }));
    expect(h.actions()).toHaveLength(1);
    h.feed(JSON.stringify({ 'Handelsangebot abgebrochen': { Spieler: 5, 'Handel id': 0 } }));
    expect(h.actions()).toEqual([
      { type: 'offerTrade', offer: { Lehm: 1 }, request: { Wolle: 1 } },
      { type: 'endTurn' },
    ]);
  });

  it('acts anyway once the wait for silent players runs out', () => {
    const h = offeringPlayer();

    h.clock.advance(999);
    h.flush();
    expect(h.actions()).toHaveLength(1);
    h.clock.advance(1);
    h.flush();
    expect(h.actions().at(-1)).toEqual({ type: 'endTurn' });
  });
});
