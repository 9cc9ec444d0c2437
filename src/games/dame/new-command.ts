import { isIP } from 'node:net';
import type { Command } from 'commander';
import { loadSettings, type Settings } from '../../config.js';
import { UsageError } from '../../core/errors.js';

/**
 * `spielhalle dame new`: creates a game through the dashboard API of a running `spielhalle serve`
 * and prints its id. The dashboard is found the way `serve` finds its own settings (--config,
 * SPIELHALLE_* environment, ./spielhalle.config.json, defaults), unless --url names it.
 */

interface NewFlags {
  name?: string;
  moveTime?: string;
  engineSeat?: string;
  url?: string;
  token?: string;
}

/** Where the dashboard of these settings answers: a wildcard address is reached on loopback. */
export function dashboardUrl(web: Settings['web']): string {
  const wildcard = web.host === '0.0.0.0' || web.host === '::' || web.host === '[::]';
  const host = wildcard ? '127.0.0.1' : web.host;
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${web.port}`;
}

interface Target {
  url: string;
  token: string | undefined;
  /** For messages: where the address came from. */
  from: string;
}

/**
 * An explicit --url wins. Otherwise the settings give the address and, when set, the token (which
 * is only ever sent to the dashboard those same settings describe).
 */
function target(opts: NewFlags, config: string | undefined): Target {
  if (opts.url !== undefined) return { url: opts.url, token: opts.token ?? process.env.SPIELHALLE_WEB_TOKEN, from: '--url' };
  const loaded = loadSettings({ file: config });
  const web = loaded.config.web;
  return {
    url: dashboardUrl(web),
    token: opts.token ?? (web.token ? web.token : undefined),
    from: `web.host/web.port of ${loaded.file ?? 'the defaults and environment'}`,
  };
}

export function registerDameNewCommand(program: Command): void {
  program
    .command('dame')
    .description('Dame games on a running `spielhalle serve`')
    .command('new')
    .description('create a game on the running server and print its 13-character id')
    .option('--name <name>', 'the game name its players see (default "Game from <date> <time>")')
    .option('--move-time <ms>', 'the time per move in ms (default: the server\'s, 3000)')
    .option('--engine-seat <0|1>', 'our engine takes this seat (0 = White, 1 = Black)')
    .option('--url <url>', 'the dashboard of the running server (default: web.host and web.port of the settings, as `serve` reads them)')
    .option('--token <token>', 'the dashboard token, when it listens beyond loopback (default: web.token, or SPIELHALLE_WEB_TOKEN)')
    .action(async (opts: NewFlags, cmd: Command) => {
      const body: Record<string, unknown> = {};
      if (opts.name !== undefined) body.name = opts.name;
      if (opts.moveTime !== undefined) {
        const ms = Number(opts.moveTime);
        if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`--move-time must be a whole number of ms, got "${opts.moveTime}"`);
        body.moveTimeMs = ms;
      }
      if (opts.engineSeat !== undefined) {
        if (opts.engineSeat !== '0' && opts.engineSeat !== '1') throw new UsageError(`--engine-seat must be 0 or 1, got "${opts.engineSeat}"`);
        body.engineSeat = Number(opts.engineSeat);
      }
      const { url, token, from } = target(opts, cmd.optsWithGlobals<{ config?: string }>().config);
      let endpoint: URL;
      try {
        endpoint = new URL('/api/dame/games', url);
      } catch {
        throw new UsageError(`--url must be a URL such as http://127.0.0.1:8080, got "${url}"`);
      }
      let response: Response;
      try {
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
        response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
      } catch (err) {
        throw new Error(`cannot reach ${url} (from ${from}; is \`spielhalle serve\` running?): ${(err as Error).message}`);
      }
      const answer = (await response.json().catch(() => ({}))) as { id?: string; error?: string };
      if (!response.ok || answer.id === undefined) throw new Error(answer.error ?? `the server answered ${response.status}`);
      process.stdout.write(`${answer.id}\n`);
    });
}
