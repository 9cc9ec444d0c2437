import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { GAMES } from '../../src/games/registry.js';
import { createWebServer } from '../../src/web/server.js';
import type { TournamentCreated, TournamentErrors } from '../../src/web/tournament-api.js';

/**
 * Issue #33 items 1 and 2 in the dashboard's API: starting a tournament with a registered program
 * that cannot start is refused with every bad entrant (400, at the entrant's field), and the
 * request's wrong field types do not hide the tournament file's own problems; item 8: Mia's
 * `rounds` without `gamesPerTable` gets the CLI's hint in every answer.
 */

describe('POST /api/tournaments: preflight and every error at its field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-tpreflight-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses programs that cannot start, and reports shape and value errors together', async () => {
    const store = new RecordStore(':memory:');
    const web = createWebServer({
      servers: [],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      tournaments: {
        dataDir: dir,
        games: GAMES,
        programs: [
          { name: 'missing', game: 'dame', command: '/does/not/exist -h {host} -p {port}' },
          { name: 'nodir', game: 'dame', command: 'java -jar client.jar', cwd: join(dir, 'not-there') },
          { name: 'quits', game: 'dame', command: `sh -c 'echo kaputt >&2; exit 4'` },
        ],
      },
    });
    try {
      const post = (payload: object) => web.app.inject({ method: 'POST', url: '/api/tournaments', payload });
      const refused = await post({
        name: 'Kurs',
        game: 'dame',
        format: 'round-robin',
        entrants: [{ name: 'rnd', bot: 'random' }, { program: 'missing' }, { program: 'nodir' }, { program: 'quits' }],
      });
      expect(refused.statusCode, refused.body).toBe(400);
      const errors = refused.json<TournamentErrors>().errors;
      expect(errors.map((e) => ({ path: e.path, message: e.message }))).toEqual([
        { path: 'entrants[1].program', message: 'no such program: /does/not/exist' },
        { path: 'entrants[2].program', message: `no such directory (cwd): ${join(dir, 'not-there')}` },
        { path: 'entrants[3].program', message: expect.stringMatching(/^exited with code 4 within \d+\.\d s of its start without connecting: kaputt$/) as unknown },
      ]);
      // The command line stays on the server even in an error.
      expect(refused.body).not.toContain('client.jar');
      expect(store.listTournaments()).toEqual([]);

      // A wrong type (tableSize "x") no longer hides the file's checks (duplicate names, format).
      const both = await post({
        name: 'Kurs',
        game: 'dame',
        format: 'tables',
        tableSize: 'x',
        entrants: [{ name: 'a', bot: 'random' }, { name: 'a', bot: 'random' }],
      });
      expect(both.statusCode).toBe(400);
      const paths = both.json<TournamentErrors>().errors.map((e) => e.path);
      expect(paths).toEqual(expect.arrayContaining(['tableSize', 'format', 'entrants[1].name']));
      for (const e of both.json<TournamentErrors>().errors) expect(e.line).toBe(`${e.path}: ${e.message}`);
    } finally {
      await web.stop();
      store.close();
    }
  }, 30_000);

  it("answers Mia settings with rounds but no gamesPerTable with the CLI's hint, beside errors or with the new tournament", async () => {
    const store = new RecordStore(':memory:');
    const web = createWebServer({ servers: [], store, log: silentLogger, host: '127.0.0.1', port: 0, tournaments: { dataDir: dir, games: GAMES } });
    const hint = {
      code: 'miaRounds',
      path: 'rounds',
      message:
        'rounds: 2 means 2 tournament rounds (each a round of tables); the rounds of Mäxchen each table plays are gamesPerTable (default 20). If you meant those, write gamesPerTable: 2 instead; writing both keys silences this hint',
      line: 'rounds: rounds: 2 means 2 tournament rounds (each a round of tables); the rounds of Mäxchen each table plays are gamesPerTable (default 20). If you meant those, write gamesPerTable: 2 instead; writing both keys silences this hint',
      values: { rounds: 2, gamesPerTable: 20 },
    };
    const mia = (extra: object) => ({ name: 'Mia', game: 'mia', format: 'tables', moveTime: 0.05, entrants: [{ name: 'a', bot: 'random' }, { name: 'b', bot: 'random' }], ...extra });
    try {
      const post = (payload: object) => web.app.inject({ method: 'POST', url: '/api/tournaments', payload });
      const bad = await post(mia({ rounds: 2, tableSize: 9 }));
      expect(bad.statusCode).toBe(400);
      expect(bad.json<TournamentErrors>().warnings).toEqual([hint]);
      expect((await post(mia({ rounds: 2, gamesPerTable: 2, tableSize: 9 }))).json<TournamentErrors>().warnings).toEqual([]);
      const created = await post(mia({ rounds: 2 }));
      expect(created.statusCode, created.body).toBe(201);
      const { id, warnings } = created.json<TournamentCreated>();
      expect(warnings).toEqual([hint]);
      expect((await web.app.inject({ method: 'POST', url: `/api/tournaments/${id}/stop`, payload: {} })).statusCode).toBe(200);
    } finally {
      await web.stop();
      store.close();
    }
  });
});
