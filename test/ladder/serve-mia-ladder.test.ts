import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { createBot } from '../../src/games/mia/bots/index.js';
import { MiaClient } from '../../src/games/mia/client.js';
import { MiaServer } from '../../src/games/mia/server.js';
import { serve, type Running } from '../../src/serve.js';

/**
 * Die Liga's Mia port through `serve` (issue 34): `ladder.games` with `mia` opens the Liga port
 * beside the Mia table (`games.mia.ladderPort`); a student's client registers there with its code,
 * plays the house bot after the wait, and the game is on the standings and the student's page.
 * The public table on `games.mia.port` goes on as before, and knows nothing of the code.
 */

const TOKEN = 'ladder-test-token-0123456789';
let dataDir = '';
let running: Running | null = null;
let base = '';
const clients: MiaClient[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-mia-ladder-'));
  const games = { ...DEFAULT_SETTINGS.games, mia: { ...DEFAULT_SETTINGS.games.mia, port: 0, ladderPort: 0, houseBots: 2, startEarly: true } };
  const settings: Settings = {
    ...DEFAULT_SETTINGS,
    dataDir,
    web: { ...DEFAULT_SETTINGS.web, port: 0, token: TOKEN },
    games,
    ladder: { ...DEFAULT_SETTINGS.ladder, enabled: true, games: ['mia'], houseAfterSeconds: 1 },
  };
  running = await serve(settings, ['mia'], silentLogger);
  base = `http://127.0.0.1:${running.webPort}`;
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  await running?.lifecycle.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Die Liga on Mia in serve', () => {
  it('opens the Liga port beside the table; a code plays the house and is rated', async () => {
    const admin = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const added = await fetch(`${base}/api/ladder/roster`, { method: 'POST', headers: admin, body: JSON.stringify({ csv: 'Name\nAnna Schmidt\n' }) });
    expect(added.status).toBe(201);
    const [anna] = ((await added.json()) as { entries: { code: string; page: string }[] }).entries;
    const server = running!.servers.find((s) => s.game === 'mia') as MiaServer;
    const ladderPort = server.ladderPortNumber;
    expect(ladderPort).not.toBeNull();
    expect(ladderPort).not.toBe(server.port);
    const lines: string[] = [];
    const client = new MiaClient({ host: '127.0.0.1', port: ladderPort!, name: anna!.code, bot: createBot('adaptive', 1), onMessage: (l) => lines.push(l) });
    clients.push(client);
    await client.start();
    const until = Date.now() + 30_000;
    let rated = 0;
    while (rated === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      await running!.ladder!.settled();
      const page = (await (await fetch(`${base}/api${anna!.page.replace('/liga/', '/ladder/me/')}`)).json()) as { games: { game: string; rating: { games: number } | null }[] };
      rated = page.games.find((g) => g.game === 'mia')?.rating?.games ?? 0;
    }
    expect(rated).toBeGreaterThanOrEqual(1);
    expect(lines.some((l) => l.startsWith('ROUND STARTED;') && l.includes(anna!.code) && l.includes('House_bot'))).toBe(true);
    // The public table never heard of the code, and refuses it: everyone there would read it.
    expect(server.snapshot().players.some((p) => p.name === anna!.code)).toBe(false);
    const wrong = new MiaClient({ host: '127.0.0.1', port: server.port, name: anna!.code, bot: createBot('random', 2) });
    await expect(wrong.start()).rejects.toThrow(/INVALID_NAME/);
    await wrong.stop();
    // The student page and /api/games show the Liga port.
    const servers = (await (await fetch(`${base}/api/games`)).json()) as { game: string; ladderPort?: number }[];
    expect(servers.find((s) => s.game === 'mia')?.ladderPort).toBe(ladderPort);
    const standings = (await (await fetch(`${base}/api/ladder/mia/standings`)).json()) as { rows: { name: string; games: number }[] };
    expect(standings.rows.find((r) => r.name === 'Anna Schmidt')?.games).toBeGreaterThanOrEqual(1);
  }, 45_000);
});
