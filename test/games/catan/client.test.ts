import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { playRandomGame } from '../../../src/games/catan/bots/random.js';
import { legalFromView } from '../../../src/games/catan/client-legal.js';
import { ClientGame, type ClientView } from '../../../src/games/catan/client-view.js';
import { CatanClient, randomBot, type CatanBot } from '../../../src/games/catan/client.js';
import { censorEvent, type GameEvent } from '../../../src/games/catan/events.js';
import { lobbyPlayer, messagesFor, wireMap } from '../../../src/games/catan/messages.js';
import { formatServer, parseServer, type ServerMessage } from '../../../src/games/catan/protocol.js';
import { legalActions, type Action, type DevCards, type Hidden, type State } from '../../../src/games/catan/rules/index.js';
import { view } from '../../../src/games/catan/view.js';
import { KARTE_T1 } from './helpers.js';
import { act, hello, startServer, type TestServer } from './harness.js';

/** The protocol client: the view it builds from messages alone, its legal actions, and its handshake against any server. */

const key = (a: Action): string => JSON.stringify(a);
/** What depends on the bank's composition or another player's hand by type, which the client cannot know. */
const BANK_DEPENDENT = new Set(['seaTrade', 'playYearOfPlenty', 'completeTrade']);

/** What `viewer` receives for one step, as lines through the codec, into its ClientGame. */
function feed(game: ClientGame, state: State, events: readonly GameEvent[], viewer: number): void {
  const ctx = { map: () => wireMap(state), order: () => state.players };
  for (const e of events) {
    for (const m of messagesFor(censorEvent(e, viewer), ctx)) {
      const back = parseServer(formatServer(m));
      if (!back.ok) throw new Error(back.error.detail);
      game.apply(back.value);
    }
  }
}

/** The client's view against the server's view of the same player, in one comparison (expect is slow). */
function compare(c: ClientView, state: State, viewer: number, at: string, withLegal: boolean): void {
  const v = view(state, viewer);
  const placed = (list: readonly { owner: number; at: string; piece: string }[]): string[] => list.map((b) => `${b.owner}:${b.piece}@${b.at}`).sort();
  const count = (d: DevCards | Hidden): number => ('Unbekannt' in d ? d.Unbekannt : Object.values(d).reduce((a, b) => a + b, 0));
  const mine = {
    buildings: placed(c.buildings),
    robber: c.robber,
    players: c.players.map((p) => ({ id: p.id, status: p.status, points: p.points, cards: p.cards, knights: p.knights, dev: p.devCards })),
    own: (({ resources, devHand }) => ({ resources, devHand, bought: c.boughtThisTurn, discard: c.discard }))(c.players.find((p) => p.id === viewer)!),
    trades: c.trades.map((t) => ({ id: t.id, player: t.player, offer: t.offer, request: t.request, acceptedBy: t.acceptedBy })),
    rest: [c.longestRoad, c.largestArmy, c.bankCards, c.deckCards, c.active, v.turn === viewer ? c.devCardPlayed : null],
  };
  const own = v.players.find((p) => p.id === viewer)!;
  const truth = {
    buildings: placed(v.buildings),
    robber: v.board.robber,
    players: v.players.map((p) => ({ id: p.id, status: p.status, points: p.points, cards: p.cards, knights: p.knights, dev: count(p.devCards) })),
    own: { resources: own.resources, devHand: own.devCards, bought: own.boughtThisTurn, discard: own.discard },
    trades: v.trades.map((t) => ({ id: t.id, player: t.player, offer: t.offer, request: t.request, acceptedBy: t.acceptedBy })),
    rest: [v.longestRoad, v.largestArmy, v.bankCards, v.deckCards, v.turn, v.turn === viewer ? v.devCardPlayed : null],
  };
  if (JSON.stringify(mine) !== JSON.stringify(truth)) expect(mine, at).toEqual(truth);
  if (!withLegal) return;
  // Legal actions from the client's knowledge: the same, except that the bank's composition and
  // the partner's hand are unknown to it, so it may see more sea trades, Erfindung choices and
  // trade completions, never fewer.
  const fromView = legalFromView(c);
  const real = legalActions(state, viewer);
  const strip = (list: readonly Action[]): string[] => list.filter((a) => !BANK_DEPENDENT.has(a.type)).map(key).sort();
  const seen = new Set(fromView.actions.map(key));
  const missing = real.actions.filter((a) => BANK_DEPENDENT.has(a.type) && !seen.has(key(a))).map(key);
  const a = { actions: strip(fromView.actions), missing: [] as string[], rest: [fromView.status, fromView.discard, fromView.offer] };
  const b = { actions: strip(real.actions), missing, rest: [real.status, real.discard, real.offer] };
  if (JSON.stringify(a) !== JSON.stringify(b)) expect(a, at).toEqual(b);
}

describe('the client view', () => {
  it('follows the server view of its player from the messages alone, step by step, legal actions included', () => {
    for (const seed of ['client-view/1', 'client-view/2']) {
      const g = playRandomGame({ seed, policy: 'builder', trades: true, record: true });
      for (const viewer of g.start.players.map((p) => p.id)) {
        const game = new ClientGame();
        game.apply({ type: 'welcome', id: viewer });
        for (const p of g.start.players) game.apply({ type: 'status', player: lobbyPlayer({ id: p.id, name: p.name, colour: p.colour, status: 'Wartet auf Spielbeginn' }, p.id === viewer) });
        feed(game, g.start, g.startEvents, viewer);
        compare(game.view(), g.start, viewer, `${seed} start`, true);
        const first = viewer === g.start.players[0]!.id;
        g.steps.forEach((step, i) => {
          feed(game, step.state, step.events, viewer);
          // The view after every step for the first player, the legal actions less often (they are many).
          if (first || i % 9 === 0) compare(game.view(), step.state, viewer, `${seed} step ${i} viewer ${viewer}`, i % 3 === 0);
        });
        expect(game.view().result?.winner).toBe(g.winner);
      }
    }
  });
});

// ---- against any server --------------------------------------------------------------------------

let fake: Server | null = null;
const fakeSockets: Socket[] = [];
let t: TestServer | null = null;

afterEach(async () => {
  for (const s of fakeSockets.splice(0)) s.destroy();
  if (fake) await new Promise<void>((resolve) => fake!.close(() => resolve()));
  fake = null;
  await t?.stop();
  t = null;
});

/** A hand-written server: it sends pretty-printed, fragmented objects with \r\n and checks the client's lines. */
async function fakeServer(script: (s: { send: (...m: unknown[]) => Promise<void>; next: () => Promise<Record<string, unknown>>; socket: Socket }) => Promise<void>): Promise<number> {
  fake = createServer((socket) => {
    fakeSockets.push(socket);
    let buffer = '';
    const queue: Record<string, unknown>[] = [];
    let waiting: ((v: Record<string, unknown>) => void) | null = null;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        // Our client sends single lines only (§2.1).
        const value = JSON.parse(line) as Record<string, unknown>;
        if (waiting) {
          const w = waiting;
          waiting = null;
          w(value);
        } else queue.push(value);
      }
    });
    socket.on('error', () => undefined);
    const send = async (...m: unknown[]): Promise<void> => {
      const text = m.map((x) => JSON.stringify(x, null, 2).replace(/\n/g, '\r\n') + '\r\n').join('');
      for (let i = 0; i < text.length; i += 7) {
        socket.write(text.slice(i, i + 7));
        await new Promise((r) => setImmediate(r));
      }
    };
    const next = (): Promise<Record<string, unknown>> => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => (waiting = resolve)));
    void script({ send, next, socket }).catch((e: unknown) => {
      socket.destroy(e instanceof Error ? e : new Error(String(e)));
    });
  });
  await new Promise<void>((resolve) => fake!.listen(0, '127.0.0.1', resolve));
  const address = fake.address();
  return typeof address === 'object' && address ? address.port : 0;
}

const su = (id: number, status: string, extra: Record<string, unknown> = {}): unknown => ({
  Statusupdate: { Spieler: { id, ...extra, Status: status, Siegpunkte: 0, Rohstoffe: { Unbekannt: 0 }, Rittermacht: 0, Entwicklungskarten: { Unbekannt: 0 } } },
});

describe('the client against other servers', () => {
  it('reads pretty-printed, fragmented input; takes the next free colour after a Fehler; places when asked; ends with Spiel beendet', async () => {
    const seen: Record<string, unknown>[] = [];
    const port = await fakeServer(async ({ send, next }) => {
      await send({ Hallo: { Version: 'Fremdserver 9', Protokoll: '0.3' } });
      seen.push(await next());
      await send({ Willkommen: { id: 7 } }, su(3, 'Spiel starten', { Farbe: 'Rot', Name: 'Andere' }));
      seen.push(await next());
      await send({ Fehler: { Meldung: 'Farbe bereits vergeben' } });
      seen.push(await next());
      // This server leaves out the OK; the client follows the statuses and its own clock.
      await send({ Serverantwort: 'OK' });
      seen.push(await next());
      await send({ Serverantwort: 'OK' });
      await send({ 'Spiel gestartet': { Karte: KARTE_T1 } });
      await send(su(7, 'Dorf bauen', { Farbe: 'Blau', Name: 'Testbot' }));
      await send(su(3, 'Warten', { Farbe: 'Rot', Name: 'Andere' }));
      seen.push(await next());
      await send({ 'Spiel beendet': { Nachricht: 'Spieler Andere hat die Verbindung verloren. Spiel abgebrochen.' } });
    });
    const client = new CatanClient({ host: '127.0.0.1', port, name: 'Testbot', colour: 'Rot', bot: randomBot('fake') });
    await client.start();
    const result = await client.done;
    expect(seen[0]).toEqual({ Hallo: { Version: 'CatanTS-KI 0.3 (KI)' } });
    // Rot is taken (the other's Statusupdate says so): Orange; refused: the next free, Blau.
    expect(seen[1]).toEqual({ Spieler: { Name: 'Testbot', Farbe: 'Orange' } });
    expect(seen[2]).toEqual({ Spieler: { Name: 'Testbot', Farbe: 'Blau' } });
    expect(seen[3]).toEqual({ 'Spiel starten': {} });
    const build = seen[4] as { Bauen: { Typ: string; Ort: string } };
    expect(build.Bauen.Typ).toBe('Dorf');
    expect(build.Bauen.Ort).toMatch(/^[a-rA-S]{3}$/);
    expect(result).toMatchObject({ winner: null, me: 7, won: false, message: 'Spieler Andere hat die Verbindung verloren. Spiel abgebrochen.' });
    expect(result.view.map?.fields).toHaveLength(37);
    expect(result.stats.unreadable).toBe(0);
  });

  it('quits when the server speaks another protocol version', async () => {
    let answered = false;
    const port = await fakeServer(async ({ send, next }) => {
      await send({ Hallo: { Version: 'Alt', Protokoll: '0.2' } });
      await next();
      answered = true;
    });
    const client = new CatanClient({ host: '127.0.0.1', port, name: 'x', bot: randomBot('x') });
    await client.start();
    const result = await client.done;
    expect(result.message).toBeNull();
    expect(answered).toBe(false);
  });

  it('gives its bot the refused actions and falls back when the bot insists', async () => {
    t = await startServer();
    const asked: number[] = [];
    // A bot that keeps proposing a road nobody may build.
    const stubborn: CatanBot = {
      strategy: 'stubborn',
      decide: ({ refused }) => {
        asked.push(refused.length);
        return { type: 'build', piece: 'Strasse', at: 'ab' };
      },
    };
    const one = new CatanClient({ host: '127.0.0.1', port: t.server.port, name: 'Stur', bot: stubborn });
    await one.start();
    const others = [0, 1].map((i) => new CatanClient({ host: '127.0.0.1', port: t!.server.port, name: `R${i}`, bot: randomBot(`r${i}`) }));
    for (const c of others) await c.start();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (one.view.buildings.some((b) => b.owner === one.id && b.piece === 'Dorf')) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    expect(asked.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
    one.vanish();
    await Promise.all(others.map((c) => c.done));
  });

  it('chooses another colour when two clients want the same on our server', async () => {
    t = await startServer();
    const a = new CatanClient({ host: '127.0.0.1', port: t.server.port, name: 'A', colour: 'Weiss', bot: randomBot('a') });
    const b = new CatanClient({ host: '127.0.0.1', port: t.server.port, name: 'B', colour: 'Weiss', bot: randomBot('b') });
    await a.start();
    await b.start();
    const { c: watcher } = await hello(t.server.port);
    await act(watcher, '{"Spieler":{"Name":"W","Farbe":"Rot"}}');
    await watcher.until(() => {
      const named = watcher.lines.filter((l) => /"Status":"Wartet auf Spielbeginn"/.test(l));
      return named.length >= 2;
    }, 'both to start');
    const colours = (who: string): string | undefined => watcher.lines.map((l) => new RegExp(`"Farbe":"(\\w+)","Name":"${who}","Status":"Wartet`).exec(l)?.[1]).find((x) => x);
    expect(colours('A')).toBe('Weiss');
    expect(['Orange', 'Blau']).toContain(colours('B'));
    watcher.close();
    a.vanish();
    b.vanish();
  });
});

export type { ServerMessage };
