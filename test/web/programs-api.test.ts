import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { checkRegisteredProgram } from '../../src/tournament/programs.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';

/**
 * Issue #33, item 4: staff register a program for dashboard tournaments behind the admin token.
 * Without the token (or with none configured) the API refuses; with it the program is checked like
 * the settings' programs, offered by the form, kept for the next start, and a tournament may name it.
 */

const dir = mkdtempSync(join(tmpdir(), 'spielhalle-programs-'));
const store = new RecordStore(':memory:');
const servers: WebServer[] = [];
const TOKEN = 'staff-token-0123456789';

function web(o: { token?: string; requireToken?: boolean; dataDir?: string } = {}): WebServer {
  const w = createWebServer({
    servers: [],
    store,
    log: silentLogger,
    host: '127.0.0.1',
    port: 0,
    ...(o.token === undefined ? {} : { token: o.token }),
    ...(o.requireToken === undefined ? {} : { requireToken: o.requireToken }),
    tournaments: { dataDir: o.dataDir ?? join(dir, 'data'), programs: [] },
  });
  servers.push(w);
  return w;
}

afterAll(async () => {
  for (const w of servers) await w.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const client = join(dir, 'anna');
writeFileSync(join(dir, 'client.js'), '');
const anna = { name: 'anna', game: 'dame', command: `${process.execPath} client.js -h {host} -p {port} -g {gameId}`, cwd: dir };

const register = (w: WebServer, body: unknown, token?: string) =>
  w.app.inject({
    method: 'POST',
    url: '/api/tournaments/programs',
    payload: body as Record<string, unknown>,
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });

const listed = async (w: WebServer, game: string) =>
  (await w.app.inject({ method: 'GET', url: `/api/tournaments/programs?game=${game}` })).json<unknown[]>();

/** The form's errors of a tournament naming `anna` (its name left empty on purpose, so nothing starts). */
const tournamentErrors = async (w: WebServer) => {
  const r = await w.app.inject({
    method: 'POST',
    url: '/api/tournaments',
    headers: { authorization: `Bearer ${TOKEN}` },
    payload: {
      name: '',
      game: 'dame',
      format: 'round-robin',
      entrants: [{ program: 'anna' }, { name: 'r', bot: 'random', options: {} }],
      gamesPerPairing: 3,
    },
  });
  expect(r.statusCode).toBe(400);
  return (r.json<{ errors: { path: string; message: string }[] }>()).errors;
};

describe('registering a program from the dashboard', () => {
  it('is closed without an admin token configured, even on loopback', async () => {
    const w = web({ dataDir: join(dir, 'closed') });
    expect(w.token).toBeNull();
    expect((await w.app.inject({ method: 'GET', url: '/api/tournaments/programs/registering' })).json()).toEqual({
      open: false,
      settingsKey: 'tournaments.programs',
    });
    const r = await register(w, anna);
    expect(r.statusCode).toBe(403);
    expect(r.json<{ error: string }>().error).toContain('web.token');
    expect(await listed(w, 'dame')).toEqual([]);
  });

  it('refuses a request without the token, checks the program, and offers it once registered', async () => {
    const w = web({ token: TOKEN });
    // Loopback: nothing else needs the token, registering a command line does.
    expect(w.token).toBeNull();
    expect((await w.app.inject({ method: 'GET', url: '/api/tournaments/programs/registering' })).json()).toMatchObject({ open: true });
    for (const token of [undefined, 'wrong-token-0123456789', `${TOKEN}x`]) {
      const r = await register(w, anna, token);
      expect(r.statusCode, String(token)).toBe(401);
    }
    expect(await listed(w, 'dame')).toEqual([]);
    // Before: a tournament cannot name it.
    expect((await tournamentErrors(w)).map((e) => e.path)).toContain('entrants[0].program');

    // Checked like the settings: the schema, its game's placeholders, the program and its cwd.
    const bad = await register(w, { name: 'bad name!', game: 'dame', command: '/does/not/exist {reservation}', cwd: 'relative' }, TOKEN);
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toEqual(['name']);
    const wrong = await register(w, { name: 'bad', game: 'dame', command: '/does/not/exist {reservation}', cwd: 'relative' }, TOKEN);
    expect(wrong.json<{ errors: { line: string }[] }>().errors.map((e) => e.line)).toEqual([
      'command: unknown placeholder {reservation} for dame (allowed: {host} {port} {gameId} {player})',
      'cwd: not an absolute path: relative',
    ]);
    const missing = await register(w, { name: 'bad', game: 'dame', command: '/does/not/exist -p {port}' }, TOKEN);
    expect(missing.json<{ errors: { line: string }[] }>().errors.map((e) => e.line)).toEqual([
      'command: no such program: /does/not/exist',
    ]);
    writeFileSync(client, '#!/bin/sh\n', { mode: 0o644 });
    const notExecutable = await register(w, { name: 'bad', game: 'dame', command: './anna {port}', cwd: dir }, TOKEN);
    expect(notExecutable.json<{ errors: { line: string }[] }>().errors.map((e) => e.line)).toEqual([
      `command: not executable: ${client}`,
    ]);
    expect(await listed(w, 'dame')).toEqual([]);

    const ok = await register(w, anna, TOKEN);
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ name: 'anna', game: 'dame' });
    // Listed by name and game only (never its command), and a tournament may name it now.
    expect(await listed(w, 'dame')).toEqual([{ name: 'anna', game: 'dame' }]);
    expect(await listed(w, 'catan')).toEqual([]);
    expect((await tournamentErrors(w)).map((e) => e.path)).not.toContain('entrants[0].program');
    expect((await register(w, anna, TOKEN)).statusCode).toBe(409);

    // Kept for the next start.
    const next = web({ token: TOKEN });
    expect(await listed(next, 'dame')).toEqual([{ name: 'anna', game: 'dame' }]);
  });

  it('needs the token like every change when the dashboard is exposed', async () => {
    const w = web({ requireToken: true, dataDir: join(dir, 'exposed') });
    expect(w.token).not.toBeNull();
    expect((await register(w, anna)).statusCode).toBe(401);
    expect((await register(w, anna, w.token!)).statusCode).toBe(201);
  });

  it('checks a program on PATH by its name', () => {
    expect(checkRegisteredProgram({ name: 'n', game: 'catan', command: 'sh -c true {host} {port} {name}' })).toMatchObject({ ok: true });
    expect(checkRegisteredProgram({ name: 'n', game: 'catan', command: 'no-such-program-here {port}' })).toEqual({
      ok: false,
      problems: [{ path: 'command', message: 'no such program on PATH: no-such-program-here' }],
    });
  });
});
