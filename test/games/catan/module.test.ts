import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteOf } from '../../support/records.js';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import { silentLogger } from '../../../src/core/log.js';
import type { MatchDetail } from '../../../src/core/records.js';
import { CatanClient, createCatanBot, type ClientResult } from '../../../src/games/catan/client.js';
import { houseLineUp } from '../../../src/games/catan/house-games.js';
import { catan } from '../../../src/games/catan/index.js';
import { CatanServer } from '../../../src/games/catan/server.js';
import type { CatanSettings } from '../../../src/games/catan/settings.js';
import type { CatanRecordView } from '../../../src/games/catan/web-views.js';
import { findGame, GAMES } from '../../../src/games/registry.js';
import { serve, type Running } from '../../../src/serve.js';


/**
 * The Catan game module as `spielhalle serve` runs it: the server and dashboard started by
 * `serve()`, four network clients playing a whole game, the record and its replay, the house
 * games, and the dashboard's Catan API.
 */

let running: Running | null = null;
afterEach(async () => {
  await running?.lifecycle.stop();
  running = null;
});

async function start(
  catanSettings: Partial<CatanSettings> = {},
  bots = false,
): Promise<{ run: Running; server: CatanServer; base: string }> {
  const settings: Settings = {
    ...DEFAULT_SETTINGS,
    dataDir: mkdtempSync(join(tmpdir(), 'spielhalle-catan-')),
    seed: 'module',
    bots,
    web: { enabled: true, host: '127.0.0.1', port: 0 },
    games: {
      ...DEFAULT_SETTINGS.games,
      catan: { ...DEFAULT_SETTINGS.games.catan, port: 0, botThinkMs: 0, ...catanSettings },
    },
  };
  running = await serve(settings, ['catan'], silentLogger);
  const server = running.servers[0];
  if (!(server instanceof CatanServer)) throw new Error('not a Catan server');
  return { run: running, server, base: `http://127.0.0.1:${running.webPort!}` };
}

async function waitFor<T>(probe: () => T | undefined | null | false, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const finished = (run: Running): MatchDetail[] => {
  sqliteOf(run).flush();
  return sqliteOf(run).listMatches({ game: 'catan', status: 'finished' }).map((m) => sqliteOf(run).getMatch(m.id)!);
};

describe('Catan game module', () => {
  it('is registered first, with its settings', () => {
    expect(GAMES[0]?.name).toBe('catan');
    expect(findGame('catan')).toBe(catan);
    expect(DEFAULT_SETTINGS.games.catan).toMatchObject({
      enabled: true,
      port: 6000,
      turnTimeoutMs: 0,
      aiTurnTimeoutMs: 10_000,
    });
  });

  it('serves a game between four network clients to a winner, records it, and the record replays', async () => {
    const { run, server, base } = await start();
    const clients = ['Anna', 'Bert', 'Carla', 'Dirk'].map(
      (name, i) =>
        new CatanClient({
          host: '127.0.0.1',
          port: server.port,
          name,
          bot: createCatanBot('builder', `module-${i}`),
          log: silentLogger,
        }),
    );
    for (const c of clients) await c.start();
    const results: ClientResult[] = await Promise.all(clients.map((c) => c.done));
    const winners = new Set(results.map((r) => r.winner));
    expect(winners.size).toBe(1);
    expect(results.filter((r) => r.won)).toHaveLength(1);
    const [match] = await waitFor(() => finished(run).length === 1 && finished(run), 'the record');
    expect(match!.seats.map((s) => s.kind)).toEqual(['ai', 'ai', 'ai', 'ai']);
    expect(match!.result).toMatchObject({ reason: 'won', winner: [...winners][0] });
    expect(catan.verify!(match!)).toEqual({ checked: true, problems: [] });

    // A record that was tampered with does not replay.
    const events = match!.events.map((e) => ({ ...e }));
    const roll = events.findIndex((e) => e.type === 'roll');
    const build = events.findIndex((e, i) => i > roll && e.type === 'build');
    events.splice(build, 1);
    expect(catan.verify!({ ...match!, events }).problems.length).toBeGreaterThan(0);
    const lied = {
      ...match!,
      result: { ...(match!.result as object), winner: results.find((r) => !r.won)!.me },
    };
    expect(catan.verify!(lied).problems.join(' ')).toMatch(/the rules give the win to/);

    // The dashboard replays it: the final public board and the whole public log.
    const record = (await (await fetch(`${base}/api/catan/records/${match!.id}`)).json()) as CatanRecordView;
    expect(record).toMatchObject({ id: match!.id, status: 'finished', checked: true, problems: [] });
    expect(record.final!.winner).toBe([...winners][0]);
    expect(record.final!.players.find((p) => p.id === record.final!.winner)!.points).toBeGreaterThanOrEqual(
      10,
    );
    expect(record.lines[0]).toMatch(/^\{"Spiel gestartet"/);
    expect(record.lines.at(-1)).toMatch(
      /^\{"Spiel beendet":\{"Nachricht":"Spieler .* hat das Spiel gewonnen\.","Sieger":\d+\}\}$/,
    );
    // Public: no hand by type in any line.
    for (const line of record.lines)
      if (line.startsWith('{"Ertrag"') || line.startsWith('{"Kosten"')) expect(line).toContain('Unbekannt');
    expect((await fetch(`${base}/api/catan/records/nope`)).status).toBe(404);
  }, 60_000);

  it('keeps games of house bots going, one after the other', async () => {
    const { run, server } = await start({ houseGames: 1, housePlayers: 3, housePauseMs: 10 }, true);
    await waitFor(() => finished(run).length >= 2, 'two house games', 50_000);
    const [a, b] = finished(run).sort((x, y) => x.startedAt - y.startedAt);
    for (const m of [a!, b!]) {
      expect(m.seats).toHaveLength(3);
      expect(m.seats.every((s) => s.kind === 'bot')).toBe(true);
      expect(catan.verify!(m)).toEqual({ checked: true, problems: [] });
    }
    expect(server.snapshot().gamesPlayed).toBeGreaterThanOrEqual(2);
    // Seated as the schedule says (the top-level seed, table 1, games 0 and 1), so the two differ
    // in line-up and colours: names carry the strategy, e.g. "Denker Ida" for the search bot.
    const seated = (m: MatchDetail): string[] =>
      (m.meta as { players: { name: string; colour: string }[] }).players.map((p) => `${p.name}:${p.colour}`).sort();
    const planned = (g: number): string[] => houseLineUp('module', 1, g, 3).map((p) => `${p.name}:${p.colour}`).sort();
    expect(seated(a!)).toEqual(planned(0));
    expect(seated(b!)).toEqual(planned(1));
    /** Each seat's strategy (the first word of its name) and colour. */
    const roles = (m: MatchDetail): string[] =>
      (m.meta as { players: { name: string; colour: string }[] }).players.map((p) => `${p.name.split(' ')[0]!} ${p.colour}`).sort();
    const lineUp = (m: MatchDetail): string => roles(m).map((r) => r.split(' ')[0]).join(',');
    expect(lineUp(a!)).not.toBe(lineUp(b!));
    expect(roles(a!)).not.toEqual(roles(b!));
  }, 60_000);

  it('starts games of our AI and fills lobbies with it through the dashboard API', async () => {
    const { server, base } = await start({ botThinkMs: 5 });
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const game = await post('/api/catan/games', { players: 3 });
    expect(game.status).toBe(201);
    expect(server.snapshot().matches.map((m) => m.id)).toContain(game.body.id);
    expect((await post('/api/catan/games', { players: 5 })).status).toBe(400);

    // A client waits in the lobby; the button fills the empty seats and the game starts.
    const anna = new CatanClient({
      host: '127.0.0.1',
      port: server.port,
      name: 'Anna',
      colour: 'Blau',
      bot: createCatanBot('random', 1),
      log: silentLogger,
    });
    await anna.start();
    const lobby = await waitFor(
      () => server.hall.lobbyRows().find((l) => l.players.some((p) => p.name === 'Anna')),
      'Anna in a lobby',
    );
    const lobbies = (await (await fetch(`${base}/api/catan/lobbies`)).json()) as { id: string }[];
    expect(lobbies.map((l) => l.id)).toContain(lobby.id);
    expect((await post('/api/catan/lobbies/fill', { lobby: 'lobby-999' })).status).toBe(404);
    const filled = await post('/api/catan/lobbies/fill', { lobby: lobby.id, size: 4 });
    expect(filled).toEqual({ status: 200, body: { lobby: lobby.id, added: 3 } });
    const match = await waitFor(
      () => server.snapshot().matches.find((m) => m.players.some((p) => p.name === 'Anna')),
      'the game with Anna',
    );
    expect(match.players.map((p) => p.kind).sort()).toEqual(['ai', 'bot', 'bot', 'bot']);
    expect(match.players.find((p) => p.name === 'Anna')!.colour).toBe('Blau');
    await anna.stop();
  }, 30_000);
});
