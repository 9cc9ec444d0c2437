import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Stoppable } from '../../../src/core/lifecycle.js';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import { dame, DameServer } from '../../../src/games/dame/index.js';
import { dameTournament } from '../../../src/games/dame/tournament.js';

/**
 * Issue 33 item 5: Dame records name their players. A house game is recorded under `engine` and
 * its opponent bot's name, a tournament match under the entrant names, each with the game's id
 * and MNM name in the meta; a search by player (the store's, which the dashboard's Matches page
 * and `spielhalle matches --player <name>` use) finds them.
 */

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'src', 'cli.ts');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

function matchesCli(dir: string, ...args: string[]): string[] {
  const r = spawnSync(process.execPath, ['--import', tsx, cli, 'matches', '--data-dir', dir, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trimEnd().split('\n').filter((l) => l !== '');
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-dame-names-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface DameMeta {
  gameId?: string;
  gameName?: string;
  tournamentMatch?: string;
  house?: { table: number; round: number; opponent: string; engineTimeMs: number };
}

describe('Dame records carry the players\' names', () => {
  it('a house game: engine and its opponent bot by name, the game name and id in the meta', async () => {
    const dir = scratch();
    const store = new RecordStore(join(dir, 'spielhalle.db'));
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      seed: 'names',
      games: { ...DEFAULT_SETTINGS.games, dame: { ...DEFAULT_SETTINGS.games.dame, port: 0, houseGames: 1, houseMoveTimeMs: 200, housePauseMs: 60_000 } },
    };
    const ctx = { settings, log: silentLogger, store };
    const server = dame.createServer(ctx);
    if (!(server instanceof DameServer)) throw new Error('not a Dame server');
    await server.start();
    let stopped = false;
    const parts: Stoppable[] = await dame.startHouseBots!(ctx, server);
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      for (const p of parts) await p.stop();
      await server.stop();
      store.close();
    };
    cleanups.push(stop);
    await until(() => store.listMatches({ game: 'dame' }).length > 0, 15_000, 'the house game to start');
    const [record] = store.listMatches({ game: 'dame' });
    const meta = record?.meta as DameMeta;
    const names = record?.seats.map((s) => s.name) ?? [];
    expect(names).toContain('engine');
    const opponent = meta.house?.opponent ?? '';
    expect(['greedy', 'depth2', 'depth4']).toContain(opponent);
    expect(names).toContain(opponent);
    expect(names).not.toContain('White Player');
    expect(record?.seats.find((s) => s.name === 'engine')?.kind).toBe('engine');
    const game = server.listGames().find((g) => g.matchId === record?.id);
    expect(meta.gameId).toBe(game?.id);
    expect(meta.gameName).toMatch(/^House game 1\.0: /);
    expect(meta.house).toMatchObject({ table: 1, round: 0 });
    // Search by player (the store's, and so the dashboard's and the CLI's).
    expect(store.listMatches({ player: 'engine' }).map((m) => m.id)).toEqual([record?.id]);
    expect(store.listMatches({ player: opponent }).map((m) => m.id)).toEqual([record?.id]);
    expect(store.listMatches({ player: 'White Player' })).toEqual([]);
  }, 60_000);

  it('a tournament match: the entrant names, the game id and name; matches --player finds it', async () => {
    const dir = scratch();
    const store = new RecordStore(join(dir, 'spielhalle.db'));
    const arena = await dameTournament.open({ store, log: silentLogger });
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await arena.close();
      store.close();
    };
    cleanups.push(close);
    const outcome = await arena.play({
      id: 't-20261129-000000-dame/1-0',
      seed: 5,
      moveTimeMs: 200,
      seats: [
        { name: 'anna', player: { kind: 'bot', bot: 'depth2', options: {} } },
        { name: 'bert', player: { kind: 'bot', bot: 'random', options: {} } },
      ],
    });
    expect(outcome.records).toHaveLength(1);
    const record = store.getMatch(outcome.records[0]!);
    expect(record?.seats.map((s) => s.name)).toEqual(['anna', 'bert']);
    const meta = record?.meta as DameMeta;
    expect(meta.tournamentMatch).toBe('t-20261129-000000-dame/1-0');
    expect(meta.gameName).toBe('Tournament t-20261129-000000-dame/1-0');
    expect(meta.gameId).toMatch(/^\S+$/);
    expect(store.listMatches({ player: 'bert' }).map((m) => m.id)).toEqual([record?.id]);
    // Another match in the store, without anna: the CLI's --player leaves it out.
    const other = store.startMatch({ game: 'dame', startedAt: Date.now(), seats: [{ seat: 0, name: 'carl', kind: 'client' }, { seat: 1, name: 'dora', kind: 'client' }] });
    store.finishMatch(other, { status: 'finished', endedAt: Date.now(), result: { winner: 0, reason: 'no-moves' } });
    await close();
    const lines = matchesCli(dir, '--player', 'anna');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${record?.id ?? '?'}\\s.*\\sanna, bert\\s`));
  }, 90_000);
});
