import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { Rng } from '../../src/core/rng.js';
import { createDameBot } from '../../src/games/dame/bots/index.js';
import { DameClient } from '../../src/games/dame/client.js';
import { main } from '../../src/cli-program.js';
import { serve, type Running } from '../../src/serve.js';

/**
 * Die Liga through `serve` (issue 34): `ladder.enabled` opens the ladder on the Dame server and
 * its API on the dashboard. Staff import a roster behind the admin token (never without it), a
 * student plays with the code, and the student's private page shows the game with the reason of
 * a loss; the standings export as CSV. `spielhalle ladder` works on the same store.
 */

const TOKEN = 'ladder-test-token-0123456789';
let dataDir = '';
let running: Running | null = null;
let base = '';
let damePort = 0;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-ladder-'));
  const games = { ...DEFAULT_SETTINGS.games, dame: { ...DEFAULT_SETTINGS.games.dame, port: 0, moveTimeMs: 300, motdDelayMs: 0 } };
  const settings: Settings = {
    ...DEFAULT_SETTINGS,
    dataDir,
    bots: false,
    web: { ...DEFAULT_SETTINGS.web, port: 0, token: TOKEN },
    games,
    ladder: { ...DEFAULT_SETTINGS.ladder, enabled: true, houseAfterSeconds: 1 },
  };
  running = await serve(settings, ['dame'], silentLogger);
  base = `http://127.0.0.1:${running.webPort}`;
  damePort = running.servers[0]!.info().port;
});

afterAll(async () => {
  await running?.lifecycle.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const admin = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe('Die Liga in serve', () => {
  it('keeps the roster behind the admin token, imports a CSV, and shows a student their game and why they lost', async () => {
    const csv = 'Name;Gruppe\nAnna Schmidt;Tutorium 1\n"Müller, Ben";Tutorium 2\n';
    expect((await fetch(`${base}/api/ladder/roster`)).status).toBe(401);
    expect((await fetch(`${base}/api/ladder/roster`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csv }) })).status).toBe(401);
    const bad = await fetch(`${base}/api/ladder/roster`, { method: 'POST', headers: admin, body: JSON.stringify({ csv: 'Name\nAnna\nAnna\n' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { line: number }[] }).errors[0]!.line).toBe(3);
    const added = await fetch(`${base}/api/ladder/roster`, { method: 'POST', headers: admin, body: JSON.stringify({ csv }) });
    expect(added.status).toBe(201);
    const { entries } = (await added.json()) as { entries: { name: string; code: string; page: string }[] };
    expect(entries.map((e) => e.name)).toEqual(['Anna Schmidt', 'Müller, Ben']);
    const anna = entries[0]!;
    expect(anna.code).toMatch(/^[a-z0-9]{13}$/);

    // Anna's client, unchanged, with her code as the Game-ID; nobody else comes: a house bot after 1 s.
    const rng = Rng.seeded(1);
    const random = createDameBot('random');
    const result = await new DameClient({ host: '127.0.0.1', port: damePort, gameId: anna.code, player: (s, ms) => random(s, ms, rng) }).run();
    expect(result.error).toBeNull();
    await running!.ladder!.settled();

    const page = (await (await fetch(`${base}/api${anna.page.replace('/liga/', '/ladder/me/')}`)).json()) as {
      entry: { name: string; code: string };
      games: { game: string; rating: { games: number } | null; history: unknown[]; games: { opponentIsHouse: boolean; score: number; place: number; players: number; reason: { kind: string } | null; recordId: string | null }[] }[];
    };
    expect(page.entry).toMatchObject({ name: 'Anna Schmidt', code: anna.code });
    const dame = page.games.find((g) => g.game === 'dame')!;
    expect(dame.rating?.games).toBe(1);
    expect(dame.history).toHaveLength(1);
    expect(dame.games).toHaveLength(1);
    const game = dame.games[0]!;
    expect(game.opponentIsHouse).toBe(true);
    expect(game).toMatchObject({ players: 2, place: game.score === 0 ? 2 : 1 });
    expect(game.recordId).not.toBeNull();
    // A random mover against the house bot: a loss on the board has the reason 'played'.
    if (game.score === 0) expect(game.reason).toEqual({ kind: 'played' });
    // An unknown page is a 404 that says why.
    expect((await fetch(`${base}/api/ladder/me/${'x'.repeat(32)}`)).status).toBe(404);

    const standings = await fetch(`${base}/api/ladder/dame/standings?format=csv`);
    expect(standings.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await standings.text()).trim().split('\n');
    expect(lines[0]).toBe('place,name,group,rating,rd,low,high,games,established,wins,draws,losses');
    expect(lines[1]).toMatch(/^1,Anna Schmidt,Tutorium 1,\d+,\d+,\d+,\d+,1,false,[01],0,[01]$/);
  }, 40_000);

  it('revokes a code from the dashboard; the CLI lists the roster from the same store', async () => {
    const roster = (await (await fetch(`${base}/api/ladder/roster`, { headers: admin })).json()) as { entries: { id: string; name: string; code: string }[] };
    const ben = roster.entries.find((e) => e.name === 'Müller, Ben')!;
    const revoked = await fetch(`${base}/api/ladder/roster/${ben.id}/revoke`, { method: 'POST', headers: admin, body: '{}' });
    expect(revoked.status).toBe(200);
    // A revoked entry cannot be renewed (it is added again instead): refused in words, not a 500.
    const renew = await fetch(`${base}/api/ladder/roster/${ben.id}/renew`, { method: 'POST', headers: admin, body: '{}' });
    expect(renew.status).toBe(409);
    expect(((await renew.json()) as { error: string }).error).toMatch(/revoked/);
    const badSeason = await fetch(`${base}/api/ladder/dame/season`, { method: 'POST', headers: admin, body: JSON.stringify({ action: 'new', name: 'Semester\u0007' }) });
    expect(badSeason.status).toBe(400);
    const r = await new DameClient({ host: '127.0.0.1', port: damePort, gameId: ben.code, player: () => Promise.reject(new Error('no move expected')) }).run();
    expect(r.error).toBe('- Liga: this code was revoked; ask your tutor for a new one');

    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => out.push(chunk) > 0);
    try {
      const config = join(dataDir, 'config.json');
      writeFileSync(config, JSON.stringify({ dataDir }));
      expect(await main(['node', 'spielhalle', '--config', config, 'ladder', 'list', '--revoked'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const text = out.join('');
    expect(text.split('\n')[0]).toBe('name\tgroup\tcode\treservation\tpage');
    expect(text).toMatch(new RegExp(`^Müller, Ben\\tTutorium 2\\t${ben.code}\\t[0-9a-f-]{36}\\t/liga/[A-Za-z0-9_-]{32}\\trevoked$`, 'm'));
  }, 30_000);
});
