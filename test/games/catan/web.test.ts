import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { createCatanBot } from '../../../src/games/catan/client.js';
import { verifyCatanMatch } from '../../../src/games/catan/replay.js';
import type { Action, Resource } from '../../../src/games/catan/rules/index.js';
import { createCatanServer, type CatanServer } from '../../../src/games/catan/server.js';
import { SERVER_VERSION } from '../../../src/games/catan/version.js';
import { PLAY_CLOSE, registerCatanWebRoutes } from '../../../src/games/catan/web.js';
import type {
  CatanBrowserPlayer,
  CatanPlayMessage,
  CatanPlayState,
} from '../../../src/games/catan/web-views.js';
import { createWebServer, type WebServer } from '../../../src/web/server.js';

/**
 * A person's seat in Catan (`/ws/catan/play`) over a real WebSocket, against a real Catan server
 * on 127.0.0.1 with house bots: the gateway's protocol client plays what a scripted "browser"
 * chooses from the legal actions it is sent, every Fehler comes back to the browser, and the
 * server records the person as an ordinary human client. Also the D15 relay (`/ws/catan/relay`).
 */

const store = new RecordStore(':memory:');
let server: CatanServer;
let web: WebServer;
let wsBase: string;
let httpBase: string;

beforeAll(async () => {
  server = createCatanServer({
    host: '127.0.0.1',
    port: 0,
    seed: 'web',
    log: silentLogger,
    store,
    botStrategy: (seed) => createCatanBot('builder', seed),
  });
  await server.start();
  web = createWebServer({
    servers: [server],
    store,
    log: silentLogger,
    host: '127.0.0.1',
    port: 0,
    routes: [(app) => registerCatanWebRoutes(app, server, { log: silentLogger, store })],
  });
  const { port } = await web.start();
  httpBase = `http://127.0.0.1:${port}`;
  wsBase = `ws://127.0.0.1:${port}`;
});

afterAll(async () => {
  await web.stop();
  await server.stop();
  store.close();
});

const ACTING = new Set([
  'Dorf bauen',
  'Strasse bauen',
  'Wuerfeln',
  'Karten wegen Raeuber abgeben',
  'Raeuber versetzen',
  'Handeln oder Bauen',
]);

/** A scripted browser: every message it got, and a way to wait for the one a test needs. */
class Browser {
  readonly socket: WebSocket;
  readonly messages: CatanPlayMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  sent = 0;
  private waiters: (() => void)[] = [];

  constructor(path: string) {
    this.socket = new WebSocket(`${wsBase}${path}`);
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse((data as Buffer).toString('utf8')) as CatanPlayMessage);
      this.wake();
    });
    this.socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  get state(): CatanPlayState | undefined {
    return this.messages.filter((m): m is CatanPlayState => m.type === 'state').at(-1);
  }

  of<T extends CatanPlayMessage['type']>(type: T): Extract<CatanPlayMessage, { type: T }>[] {
    return this.messages.filter((m): m is Extract<CatanPlayMessage, { type: T }> => m.type === type);
  }

  send(command: unknown): void {
    this.sent++;
    this.socket.send(typeof command === 'string' ? command : JSON.stringify(command));
  }

  /** The state once the gateway has handled every command sent and the server has answered it. */
  get settled(): CatanPlayState | undefined {
    const s = this.state;
    return s && s.commands >= this.sent && !s.waiting ? s : undefined;
  }

  get myStatus(): string | undefined {
    const s = this.state;
    return s?.view.players.find((p) => p.id === s.me)?.status;
  }

  async until(check: (b: this) => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${what}; last state: ${(JSON.stringify(this.state) as string | undefined)?.slice(0, 600)}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Discards the first cards of the hand, type by type. */
function discardFrom(
  hand: Readonly<Record<Resource, number>>,
  count: number,
): Partial<Record<Resource, number>> {
  const out: Partial<Record<Resource, number>> = {};
  let left = count;
  for (const [r, n] of Object.entries(hand) as [Resource, number][]) {
    const k = Math.min(n, left);
    if (k > 0) out[r] = k;
    left -= k;
  }
  return out;
}

describe('the Catan play gateway', () => {
  it('plays a whole game against three house bots, choosing from the legal actions it is sent', async () => {
    const b = new Browser('/ws/catan/play?name=Script&colour=Orange');
    await b.until(
      (x) =>
        x.state?.phase === 'lobby' &&
        x.settled?.view.players.some((p) => p.id === x.state!.me && p.colour === 'Orange') === true,
      'the seat in the lobby with its colour',
    );
    const me = b.state!.me!;
    expect(b.of('line')[0]).toEqual({
      type: 'line',
      dir: 'in',
      line: `{"Hallo":{"Version":"${SERVER_VERSION}","Protokoll":"0.3"}}`,
    });
    expect(b.of('line')[1]).toEqual({
      type: 'line',
      dir: 'out',
      line: '{"Hallo":{"Version":"CatanTS-Web 0.3"}}',
    });
    const players = (await (await fetch(`${httpBase}/api/catan/players`)).json()) as CatanBrowserPlayer[];
    expect(players).toEqual([expect.objectContaining({ id: me, name: 'Script', phase: 'lobby' })]);
    expect(b.state!.lobby).toMatch(/^lobby-\d+$/);

    b.send({ type: 'fill', size: 4 });
    await b.until((x) => x.of('notice').some((n) => n.text === '3 house bots joined'), 'the house bots');
    b.send({ type: 'start' });
    await b.until((x) => x.state?.phase === 'game', 'the game to start');

    let deliberate = false;
    let decisions = 0;
    // The person declines every offer the bots make (the bots wait for an answer from a person).
    const declined = new Set<number>();
    const offerToAnswer = (x: Browser): number | undefined =>
      x.settled?.view.trades.find((t) => t.player !== x.state!.me && !declined.has(t.id))?.id;
    for (;;) {
      await b.until(
        (x) =>
          x.state?.phase === 'over' ||
          offerToAnswer(x) !== undefined ||
          (x.settled !== undefined && ACTING.has(x.myStatus ?? '') && x.settled.legal !== null),
        `decision ${decisions + 1}`,
        20_000,
      );
      if (b.state!.phase === 'over') break;
      const offer = offerToAnswer(b);
      if (offer !== undefined) {
        declined.add(offer);
        b.send({ type: 'action', action: { type: 'cancelTrade', tradeId: offer } });
        continue;
      }
      const s = b.settled!;
      const legal = s.legal!;
      if (!deliberate && legal.status === 'Wuerfeln') {
        // Ending the turn before rolling: the server says no, and the browser hears it.
        deliberate = true;
        b.send({ type: 'action', action: { type: 'endTurn' } });
        await b.until((x) => x.of('fehler').length > 0 && x.settled !== undefined, 'the Fehler');
        expect(b.of('fehler')[0]).toEqual({
          type: 'fehler',
          meldung: 'Aktion im aktuellen Status nicht erlaubt',
          sent: '{"Zug beenden":{}}',
        });
        continue;
      }
      const action: Action | undefined = legal.discard
        ? { type: 'discard', cards: discardFrom(legal.discard.hand, legal.discard.count) }
        : legal.actions[0];
      expect(action, `an action in ${legal.status}`).toBeDefined();
      b.send({ type: 'action', action });
      decisions++;
    }
    expect(deliberate).toBe(true);
    expect(decisions).toBeGreaterThan(20);
    await b.until((x) => x.closed !== null, 'the gateway to close');
    expect(b.closed).toEqual({ code: 1000, reason: 'game over' });

    const end = b.state!;
    expect(end.ended).toMatch(/^Spieler .* hat das Spiel gewonnen\.$/);
    // Only the deliberate Fehler, or the ones a client cannot foresee (the bank's stock, another hand).
    const others = b
      .of('fehler')
      .slice(1)
      .map((f) => f.meldung);
    expect(others.every((m) => m === 'Bank hat nicht genug Rohstoffe' || m === 'Nicht genug Rohstoffe')).toBe(
      true,
    );

    store.flush();
    const record = store.getMatch(end.matchId!)!;
    expect(record.status).toBe('finished');
    expect(record.seats.find((x) => x.name === 'Script')).toMatchObject({ kind: 'human' });
    expect(record.seats.filter((x) => x.kind === 'bot')).toHaveLength(3);
    expect((record.result as { winner: number }).winner).toBe(end.view.result!.winner);
    expect(verifyCatanMatch(record)).toEqual({ checked: true, problems: [] });
    // The person's lines are in the record like any client's.
    expect(record.wire.some((w) => w.dir === 'in' && w.data === '{"Zug beenden":{}}')).toBe(true);
  }, 60_000);

  it('shows the server refusing a colour, and reads only well-formed commands', async () => {
    const a = new Browser('/ws/catan/play?name=Erste&colour=Blau');
    await a.until(
      (x) => x.settled?.view.players.some((p) => p.id === x.state!.me && p.colour === 'Blau') === true,
      'the first seat',
    );
    const b = new Browser('/ws/catan/play?name=Zweite&colour=Blau');
    // The gateway sees Blau taken and asks for the next free colour.
    await b.until(
      (x) => x.settled?.view.players.some((p) => p.id === x.state!.me && p.colour === 'Rot') === true,
      'the second seat',
    );
    b.send({ type: 'player', name: 'Zweite', colour: 'Blau' });
    await b.until((x) => x.of('fehler').length === 1, 'the Fehler');
    expect(b.of('fehler')[0]).toEqual({
      type: 'fehler',
      meldung: 'Farbe bereits vergeben',
      sent: '{"Spieler":{"Name":"Zweite","Farbe":"Blau"}}',
    });
    b.send('not json');
    b.send({ type: 'action', action: { type: 'teleport' } });
    await b.until((x) => x.of('notice').length >= 2, 'the notices');
    expect(b.of('notice').map((n) => n.text.split(':')[0])).toEqual(['not a command', 'not a command']);
    // In a lobby, a game action is the server's to refuse.
    b.send({ type: 'action', action: { type: 'roll' } });
    await b.until((x) => x.of('fehler').length === 2, 'the second Fehler');
    expect(b.of('fehler')[1]!.meldung).toBe('Aktion im aktuellen Status nicht erlaubt');
    // Leaving gives the seat up at once (a closed WebSocket alone keeps it for a reload).
    a.send({ type: 'leave' });
    b.send({ type: 'leave' });
    await a.until((x) => x.closed !== null, 'closed');
    await b.until((x) => x.closed !== null, 'closed');
    await new Promise((r) => setTimeout(r, 100));
    expect(
      server.hall
        .lobbyRows()
        .flatMap((l) => l.players)
        .filter((p) => p.name === 'Erste' || p.name === 'Zweite'),
    ).toEqual([]);
  });

  it('closes a seat with a bad name at once', async () => {
    const b = new Browser('/ws/catan/play?name=');
    await b.until((x) => x.closed !== null, 'the close');
    expect(b.closed!.code).toBe(PLAY_CLOSE.badRequest);
  });

  it('relays a browser client 1:1 to its own TCP connection (D15)', async () => {
    const ws = new WebSocket(`${wsBase}/ws/catan/relay`);
    const frames: string[] = [];
    let wake: () => void = () => undefined;
    ws.on('message', (d) => {
      frames.push((d as Buffer).toString('utf8'));
      wake();
    });
    const next = async (n: number): Promise<void> => {
      while (frames.length < n) await new Promise<void>((r) => (wake = r));
    };
    await next(1);
    expect(frames[0]).toBe(`{"Hallo":{"Version":"${SERVER_VERSION}","Protokoll":"0.3"}}`);
    ws.send('{"Hallo":{"Version":"Relay 0.3"}}');
    await next(3);
    expect(frames[1]).toMatch(/^\{"Willkommen":\{"id":\d+\}\}$/);
    expect(frames[2]).toMatch(/^\{"Statusupdate":\{"Spieler":\{"id":\d+,"Status":"Spiel starten"/);
    // Pretty-printed, as the seed allows: the server reads it all the same.
    ws.send('{\n  "Spieler": {"Name": "Relay", "Farbe": "Weiss"}\n}');
    await next(5);
    expect(frames[3]).toContain('"Name":"Relay"');
    expect(frames[4]).toBe('{"Serverantwort":"OK"}');
    ws.close();
  });
});
