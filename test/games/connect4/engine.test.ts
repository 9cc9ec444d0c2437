import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { Connect4Engine, EngineAborted } from '../../../src/games/connect4/engine.js';
import { Connect4Hub } from '../../../src/games/connect4/hub.js';
import { registerConnect4Routes } from '../../../src/games/connect4/routes.js';
import type { AnalyseProgress, AnalyseProgressView } from '../../../src/games/connect4/views.js';
import { createWebServer, type WebServer } from '../../../src/web/server.js';

/**
 * The solver worker drops what nobody waits for: an analysis whose caller aborted leaves the
 * queue or stops its search within a checkpoint, so the next request is answered at once. A
 * running analysis reports its progress, and the dashboard's route passes both on: a closed HTTP
 * request cancels its analysis, and `/api/connect4/analyse/progress` shows how far it got.
 */

/** Takes the solver well over 5 s (13 s in TypeScript, half that in WebAssembly). */
const DEEP = [4, 4, 5, 3];
/** Pons' example: solved in milliseconds. */
const QUICK = [4, 4, 4, 5, 5, 5, 5, 4, 2, 2, 1];

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe('the Connect Four engine', () => {
  const engine = new Connect4Engine();
  afterAll(() => engine.close());

  it('reports progress and stops an analysis whose signal aborts', async () => {
    // Warm the worker up (its start is not what is measured).
    expect((await engine.analyse(QUICK, 10_000)).filter((s) => s !== null)).toContain(-15);
    const seen: AnalyseProgress[] = [];
    const abort = new AbortController();
    const deep = engine.analyse(DEEP, 60_000, { signal: abort.signal, onProgress: (p) => seen.push(p) });
    const outcome = deep.then(
      () => 'solved',
      (e: unknown) => e,
    );
    await until(() => seen.some((p) => p.nodes > 0), 'progress with nodes');
    expect(engine.activeRequests).toBe(1);
    const last = seen.at(-1)!;
    expect(last.column).toBeGreaterThanOrEqual(1);
    expect(last.columns).toBeGreaterThanOrEqual(1);
    expect(last.columnsDone).toBeLessThan(last.columns);
    expect(last.elapsedMs).toBeGreaterThanOrEqual(0);

    abort.abort();
    const { value: error, ms } = await timed(outcome);
    expect(error).toBeInstanceOf(EngineAborted);
    expect((error as EngineAborted).cancelled).toBe(true);
    expect(ms).toBeLessThan(1000);
    expect(engine.activeRequests).toBe(0);
    // The worker is free at once for the next request.
    const next = await timed(engine.analyse(QUICK, 10_000));
    expect(next.ms).toBeLessThan(1500);
  }, 30_000);

  it('drops a queued analysis without running it', async () => {
    const first = new AbortController();
    const second = new AbortController();
    const running = engine.analyse(DEEP, 60_000, { signal: first.signal }).catch((e: unknown) => e);
    const queued = engine.analyse([4, 4, 5, 3, 2], 60_000, { signal: second.signal }).catch((e: unknown) => e);
    expect(engine.activeRequests).toBe(2);
    second.abort();
    expect(await queued).toBeInstanceOf(EngineAborted);
    expect(engine.activeRequests).toBe(1);
    first.abort();
    expect(await running).toBeInstanceOf(EngineAborted);
    expect(engine.activeRequests).toBe(0);
    // An already aborted signal never reaches the worker.
    await expect(engine.analyse(QUICK, 10_000, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(EngineAborted);
    expect(engine.activeRequests).toBe(0);
  }, 30_000);
});

describe('the analyse route', () => {
  const engine = new Connect4Engine();
  const store = new RecordStore(':memory:');
  let hub: Connect4Hub;
  let web: WebServer;
  let base: string;

  beforeAll(async () => {
    hub = new Connect4Hub({ host: '127.0.0.1', port: 0, broadcastAddress: null, peerPorts: [], store: null, log: silentLogger, engine });
    await hub.start();
    web = createWebServer({
      servers: [hub],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      routes: [(app) => registerConnect4Routes(app, { hub, games: hub.solverGames, engine, log: silentLogger, maxBrowserPeers: 0, analyseTimeoutMs: 60_000 })],
    });
    base = `http://127.0.0.1:${(await web.start()).port}`;
  });

  afterAll(async () => {
    await web.stop();
    await hub.stop();
    store.close();
  });

  const progressOf = async (moves: string) => (await (await fetch(`${base}/api/connect4/analyse/progress?moves=${moves}`)).json()) as AnalyseProgressView;

  it('shows the progress of a running analysis, and cancels it when the request is closed', async () => {
    expect((await fetch(`${base}/api/connect4/analyse?moves=${QUICK.join('')}`)).status).toBe(200);
    expect(await progressOf('4453')).toEqual({ moves: '4453', solving: false });

    const browser = new AbortController();
    const abandoned = fetch(`${base}/api/connect4/analyse?moves=4453`, { signal: browser.signal }).catch((e: unknown) => e);
    let progress: AnalyseProgressView = { moves: '4453', solving: false };
    const deadline = Date.now() + 10_000;
    while (!(progress.solving && progress.nodes > 0)) {
      if (Date.now() > deadline) throw new Error('no progress reported');
      await new Promise((r) => setTimeout(r, 50));
      progress = await progressOf('4453');
    }
    expect(progress).toMatchObject({ moves: '4453', solving: true, column: expect.any(Number) as number, columns: 7 });

    // The browser moves on: its request is closed, and the solver stops working on it.
    browser.abort();
    await abandoned;
    await until(() => engine.activeRequests === 0, 'the abandoned analysis to stop', 2000);
    expect(await progressOf('4453')).toEqual({ moves: '4453', solving: false });
    // The next position is answered at once, not after the abandoned one.
    const next = await timed(fetch(`${base}/api/connect4/analyse?moves=${QUICK.join('')}`));
    expect(next.value.status).toBe(200);
    expect(next.ms).toBeLessThan(2000);
  }, 30_000);
});
