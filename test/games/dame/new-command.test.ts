import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardUrl } from '../../../src/games/dame/new-command.js';

/** `spielhalle dame new` finds the dashboard where the settings put it (issue 16.2). */

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'src', 'cli.ts');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Request {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A tiny stand-in for the dashboard API on 127.0.0.1: answers every POST with a fixed id. */
async function fakeDashboard(id: string): Promise<{ port: number; requests: Request[] }> {
  const requests: Request[] = [];
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: data ? JSON.parse(data) : null });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const a = server.address();
  return { port: typeof a === 'object' && a ? a.port : 0, requests };
}

/** Runs the CLI in a scratch directory (no spielhalle.config.json there) without blocking this process. */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'spielhalle-dame-new-'));
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SPIELHALLE_')));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, cli, ...args], { cwd, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function configFile(settings: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'spielhalle-dame-cfg-')), 'spielhalle.config.json');
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

const SLOW = 60_000;

describe('spielhalle dame new', () => {
  it('posts to the web.port of --config, with its web.token', async () => {
    const dash = await fakeDashboard('k3x9q2m7a1b5c');
    const token = 'a-dashboard-token-0123456789';
    const config = configFile({ web: { port: dash.port, token } });
    const r = await run(['--config', config, 'dame', 'new', '--name', 'Gruppe 7', '--engine-seat', '1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('k3x9q2m7a1b5c\n');
    expect(dash.requests).toHaveLength(1);
    expect(dash.requests[0]).toMatchObject({ method: 'POST', url: '/api/dame/games', body: { name: 'Gruppe 7', engineSeat: 1 } });
    expect(dash.requests[0]!.headers.authorization).toBe(`Bearer ${token}`);
  }, SLOW);

  it('takes SPIELHALLE_WEB_PORT over the file, and --url over both', async () => {
    const fromEnv = await fakeDashboard('fromenv000000');
    const fromUrl = await fakeDashboard('fromurl000000');
    const config = configFile({ web: { port: 9 } });
    const env = await run(['--config', config, 'dame', 'new'], { SPIELHALLE_WEB_PORT: String(fromEnv.port) });
    expect(env).toMatchObject({ code: 0, stdout: 'fromenv000000\n' });
    const url = await run(['--config', config, 'dame', 'new', '--url', `http://127.0.0.1:${fromUrl.port}`], { SPIELHALLE_WEB_PORT: String(fromEnv.port) });
    expect(url).toMatchObject({ code: 0, stdout: 'fromurl000000\n' });
    expect(fromEnv.requests).toHaveLength(1);
    expect(fromUrl.requests).toHaveLength(1);
    // A token of the settings is never sent to a dashboard named by --url.
    expect(fromUrl.requests[0]!.headers.authorization).toBeUndefined();
  }, SLOW);

  it('says where the address came from when nothing answers there', async () => {
    const config = configFile({ web: { port: 9 } });
    const r = await run(['--config', config, 'dame', 'new']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9 \(from web\.host\/web\.port of .*spielhalle\.config\.json/);
  }, SLOW);

  it('reaches a dashboard on a wildcard address over loopback', () => {
    expect(dashboardUrl({ enabled: true, host: '0.0.0.0', port: 8123, token: '' })).toBe('http://127.0.0.1:8123');
    expect(dashboardUrl({ enabled: true, host: '::', port: 8123 })).toBe('http://127.0.0.1:8123');
    expect(dashboardUrl({ enabled: true, host: '::1', port: 8123 })).toBe('http://[::1]:8123');
    expect(dashboardUrl({ enabled: true, host: 'localhost', port: 80 })).toBe('http://localhost:80');
  });
});
