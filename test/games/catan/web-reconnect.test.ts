import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { createCatanBot } from '../../../src/games/catan/client.js';
import type { Resource } from '../../../src/games/catan/rules/index.js';
import { createCatanServer, type CatanServer } from '../../../src/games/catan/server.js';
import { PLAY_CLOSE, registerCatanWebRoutes } from '../../../src/games/catan/web.js';
import { TAKEN_OVER } from '../../../src/games/catan/web-seat.js';
import type { CatanBrowserPlayer, CatanPlayMessage, CatanPlayState } from '../../../src/games/catan/web-views.js';
import { createWebServer, type WebServer } from '../../../src/web/server.js';

/**
 * A person's Catan seat survives a reload (issue #33, item 12): the gateway gives each seat a
 * random token; a WebSocket that brings it back within `reconnectMs` gets that seat, its lines and
 * its own view again, while the others in the game see the seat as reconnecting. A token of no
 * seat (made up, altered, of a seat that is over) gets nothing; a seat whose browser does not come
 * back closes its connection, and D9 aborts the game as before.
 */

const store = new RecordStore(':memory:');
let server: CatanServer;
const webs: WebServer[] = [];

async function gateway(reconnectMs?: number): Promise<{ ws: string; http: string }> {
  const web = createWebServer({
    servers: [server],
    store,
    log: silentLogger,
    host: '127.0.0.1',
    port: 0,
    routes: [
      (app) =>
        registerCatanWebRoutes(app, server, {
          log: silentLogger,
          store,
          ...(reconnectMs === undefined ? {} : { reconnectMs }),
        }),
    ],
  });
  webs.push(web);
  const { port } = await web.start();
  return { ws: `ws://127.0.0.1:${port}`, http: `http://127.0.0.1:${port}` };
}

let base: { ws: string; http: string };

beforeAll(async () => {
  server = createCatanServer({
    host: '127.0.0.1',
    port: 0,
    seed: 'web-reconnect',
    log: silentLogger,
    store,
    botStrategy: (seed) => createCatanBot('builder', seed),
  });
  await server.start();
  base = await gateway();
});

afterAll(async () => {
  for (const web of webs) await web.stop();
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

/** A scripted page: every message its WebSocket got. */
class Page {
  readonly socket: WebSocket;
  readonly messages: CatanPlayMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  sent = 0;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse((data as Buffer).toString('utf8')) as CatanPlayMessage);
    });
    this.socket.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  get state(): CatanPlayState | undefined {
    return this.messages.filter((m): m is CatanPlayState => m.type === 'state').at(-1);
  }

  get token(): string | undefined {
    return this.messages.find((m) => m.type === 'seat')?.token;
  }

  get settled(): CatanPlayState | undefined {
    const s = this.state;
    return s && s.commands >= this.sent && !s.waiting ? s : undefined;
  }

  send(command: unknown): void {
    this.sent++;
    this.socket.send(JSON.stringify(command));
  }

  async close(): Promise<void> {
    this.socket.close();
    await until(() => this.closed !== null, 'the page to close');
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function discardFrom(hand: Readonly<Record<Resource, number>>, count: number): Partial<Record<Resource, number>> {
  const out: Partial<Record<Resource, number>> = {};
  let left = count;
  for (const [r, n] of Object.entries(hand) as [Resource, number][]) {
    const k = Math.min(n, left);
    if (k > 0) out[r] = k;
    left -= k;
  }
  return out;
}

/** One move of whoever of `pages` is asked to act (the first legal action; offers declined). */
function step(pages: readonly Page[]): boolean {
  for (const p of pages) {
    const s = p.settled;
    if (!s || s.phase !== 'game' || !s.legal) continue;
    const offer = s.view.trades.find((t) => t.player !== s.me && s.legal!.actions.some((a) => a.type === 'cancelTrade' && a.tradeId === t.id));
    if (offer) {
      p.send({ type: 'action', action: { type: 'cancelTrade', tradeId: offer.id } });
      return true;
    }
    const status = s.view.players.find((x) => x.id === s.me)?.status ?? '';
    if (!ACTING.has(status)) continue;
    const action = s.legal.discard
      ? { type: 'discard', cards: discardFrom(s.legal.discard.hand, s.legal.discard.count) }
      : s.legal.actions.find((a) => a.type !== 'offerTrade' && a.type !== 'buyDevCard') ?? s.legal.actions[0];
    if (!action) continue;
    p.send({ type: 'action', action });
    return true;
  }
  return false;
}

async function play(pages: readonly Page[], done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out playing until ${what}`);
    if (!step(pages)) await new Promise((r) => setTimeout(r, 5));
    else await new Promise((r) => setTimeout(r, 0));
  }
}

/** Two people and two house bots in one game. */
async function twoPeople(url: string, names: [string, string]): Promise<[Page, Page]> {
  const a = new Page(`${url}/ws/catan/play?name=${names[0]}&colour=Rot`);
  await until(() => a.settled?.phase === 'lobby' && a.settled.view.players.some((p) => p.id === a.state!.me && p.colour === 'Rot'), 'the first seat');
  const b = new Page(`${url}/ws/catan/play?name=${names[1]}&colour=Blau`);
  await until(() => b.settled?.phase === 'lobby' && b.settled.view.players.some((p) => p.id === b.state!.me && p.colour === 'Blau'), 'the second seat');
  expect(b.state!.lobby).toBe(a.state!.lobby);
  a.send({ type: 'fill', size: 4 });
  await until(() => a.messages.some((m) => m.type === 'notice' && m.text === '2 house bots joined'), 'the house bots');
  a.send({ type: 'start' });
  b.send({ type: 'start' });
  await until(() => a.state?.phase === 'game' && b.state?.phase === 'game', 'the game');
  return [a, b];
}

describe('a Catan seat across a reload', () => {
  it('comes back with its token to the same seat, its lines and its own view; the others see it reconnecting', async () => {
    const [a, b] = await twoPeople(base.ws, ['Ada', 'Bert']);
    const me = a.state!.me!;
    const matchId = a.state!.matchId;
    expect(matchId).not.toBeNull();
    // Into the game: both have placed something, then the page of Ada reloads.
    await play([a, b], () => (a.settled?.view.buildings.length ?? 0) >= 6, 'six pieces are placed');
    const token = a.token!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(b.token).not.toBe(token);
    const before = a.settled!;
    const lines = a.messages.filter((m) => m.type === 'line').length;
    await a.close();

    // Bert sees Ada reconnecting; the seat is listed as waiting; nothing ended.
    await until(() => b.state?.reconnecting.includes(me) === true, 'Bert to see Ada reconnecting');
    const listed = (await (await fetch(`${base.http}/api/catan/players`)).json()) as CatanBrowserPlayer[];
    expect(listed.find((p) => p.id === me)).toMatchObject({ name: 'Ada', reconnecting: true, phase: 'game', matchId });
    expect(listed.find((p) => p.name === 'Bert')).toMatchObject({ reconnecting: false });
    expect(server.snapshot().matches.some((m) => m.id === matchId)).toBe(true);

    const again = new Page(`${base.ws}/ws/catan/play?seat=${token}`);
    await until(() => again.state !== undefined, 'the state after the reload');
    expect(again.messages[0]).toEqual({ type: 'seat', token, reconnectMs: 60_000 });
    const back = again.state!;
    expect(back.me).toBe(me);
    expect(back.matchId).toBe(matchId);
    expect(back.phase).toBe('game');
    expect(back.name).toBe('Ada');
    // The same view as before the reload: its own hand, the others' as counts only.
    expect(back.view.buildings).toEqual(before.view.buildings);
    const own = back.view.players.find((p) => p.id === me)!;
    expect(own.resources).toEqual(before.view.players.find((p) => p.id === me)!.resources);
    expect(own.resources).not.toBeNull();
    for (const p of back.view.players.filter((x) => x.id !== me)) expect(p.resources).toBeNull();
    // The lines of the seat so far come again (the page's log).
    expect(again.messages.filter((m) => m.type === 'line').length).toBe(lines);
    await until(() => b.state?.reconnecting.length === 0, 'Bert to see Ada back');

    // The game goes on with the same seats for everyone: every one of them rolls after the reload.
    const rolled = (p: Page) => p.messages.filter((m) => m.type === 'line' && m.dir === 'out' && m.line.startsWith('{"Wuerfeln"')).length;
    await play([again, b], () => rolled(again) >= 1 && rolled(b) >= 1, 'both have rolled');
    expect(again.state!.me).toBe(me);
    expect(b.state!.matchId).toBe(matchId);
    store.flush();
    expect(store.getMatch(matchId!)!.status).toBe('running');

    // Leaving (not a reload) ends the seat at once, and D9 the game.
    again.send({ type: 'leave' });
    await until(() => b.state?.phase === 'over', 'the game to end for Bert');
    expect(b.state!.ended).toBe('Spieler Ada hat die Verbindung verloren. Spiel abgebrochen.');
    await until(() => again.closed !== null && b.closed !== null, 'both pages to close');
    // A seat that is over is no seat any more.
    await until(() => (server.snapshot().matches.some((m) => m.id === matchId) ? false : true), 'the game gone');
    const late = new Page(`${base.ws}/ws/catan/play?seat=${token}`);
    await until(() => late.closed !== null, 'the late page to close');
    expect(late.closed!.code).toBe(PLAY_CLOSE.noSeat);
  }, 40_000);

  it('gives a made-up, altered or malformed token no seat, and leaves the seat with its page', async () => {
    const owner = new Page(`${base.ws}/ws/catan/play?name=Eigner&colour=Weiss`);
    await until(() => owner.token !== undefined && owner.settled?.phase === 'lobby', 'the seat');
    const token = owner.token!;
    const flipped = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    const tries = [
      ['made up', 'x'.repeat(32), PLAY_CLOSE.noSeat],
      ['altered', flipped, PLAY_CLOSE.noSeat],
      ['malformed', `${token}&name=Eigner`, PLAY_CLOSE.badRequest],
      ['too short', token.slice(0, 31), PLAY_CLOSE.badRequest],
    ] as const;
    for (const [what, t, code] of tries) {
      const thief = new Page(`${base.ws}/ws/catan/play?seat=${encodeURIComponent(t)}`);
      await until(() => thief.closed !== null, `the ${what} token to be refused`);
      expect(thief.closed!.code, what).toBe(code);
      // Nothing of the seat reached it: no token, no state, no line.
      expect(thief.messages, what).toEqual([]);
    }
    // The owner still has its seat and its page.
    expect(owner.closed).toBeNull();
    owner.send({ type: 'chat', text: 'noch da' });
    await until(() => owner.settled !== undefined && owner.messages.some((m) => m.type === 'line' && m.line.includes('noch da')), 'the owner to chat');

    // The token itself takes the seat over: the page that had it is closed, not both served.
    const second = new Page(`${base.ws}/ws/catan/play?seat=${token}`);
    await until(() => owner.closed !== null && second.state !== undefined, 'the take-over');
    expect(owner.closed!.code).toBe(TAKEN_OVER);
    expect(second.state!.me).toBe(owner.state!.me);
    second.send({ type: 'leave' });
    await until(() => second.closed !== null, 'the seat to end');
  });

  it('closes a seat whose browser does not come back within reconnectMs; D9 aborts its game', async () => {
    const short = await gateway(300);
    const a = new Page(`${short.ws}/ws/catan/play?name=Weg&colour=Orange`);
    await until(() => a.settled?.phase === 'lobby', 'the seat');
    a.send({ type: 'fill', size: 4 });
    await until(() => a.messages.some((m) => m.type === 'notice' && m.text === '3 house bots joined'), 'the house bots');
    a.send({ type: 'start' });
    await until(() => a.state?.phase === 'game' && a.state.matchId !== null, 'the game');
    const matchId = a.state!.matchId!;
    const token = a.token!;
    await a.close();
    const left = Date.now();
    await until(() => {
      store.flush();
      return store.getMatch(matchId)?.status === 'aborted';
    }, 'the game to be aborted');
    expect(Date.now() - left).toBeGreaterThanOrEqual(250);
    expect(store.getMatch(matchId)!.result).toMatchObject({ reason: 'disconnect' });
    const late = new Page(`${short.ws}/ws/catan/play?seat=${token}`);
    await until(() => late.closed !== null, 'the late page to close');
    expect(late.closed!.code).toBe(PLAY_CLOSE.noSeat);
  });
});
