import { spawn, spawnSync } from 'node:child_process';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { Ladder, type LadderSettings, type LadderTable, type MultiLadderTable } from '../../src/ladder/ladder.js';
import { openLadderStore, type LadderStore } from '../../src/ladder/store.js';
import type { RosterEntry } from '../../src/ladder/types.js';

/**
 * What the per-game ladder tests share: a game server of the test's making with the record store
 * in memory, a ladder store in memory with three students, the ladder with the game's table, and
 * everything stopped after each test.
 */

export const ROSTER = [
  { name: 'Anna Schmidt', group: 'T1' },
  { name: 'Ben Müller', group: 'T1' },
  { name: 'Cem Yılmaz', group: 'T2' },
];

export interface Opened<S> {
  server: S;
  ladder: Ladder;
  store: LadderStore;
  records: RecordStore;
  entries: RosterEntry[];
}

export class LadderFixture<S extends { stop(): Promise<void> }> {
  private opened: Opened<S> | null = null;

  /**
   * `serve` makes and starts the game's server; `table` makes the game's table and opens its door
   * on the server. The house bot comes only after a minute unless `settings` say otherwise.
   */
  async open(serve: (records: RecordStore) => Promise<S>, table: (ladder: Ladder, server: S) => LadderTable<never> | MultiLadderTable<never>, settings: Partial<LadderSettings> = {}): Promise<Opened<S>> {
    const records = new RecordStore(':memory:');
    const server = await serve(records);
    const store = await openLadderStore(':memory:');
    const entries = await store.addEntries(ROSTER, Date.now());
    const ladder = new Ladder({ store, log: silentLogger, settings: { houseAfterMs: 60_000, tickMs: 50, ...settings } });
    ladder.addTable(table(ladder, server));
    await ladder.start();
    this.opened = { server, ladder, store, records, entries };
    return this.opened;
  }

  async close(): Promise<void> {
    const o = this.opened;
    this.opened = null;
    if (o === null) return;
    await o.ladder.stop();
    await o.server.stop();
    await o.store.close();
    o.records.close();
  }
}

/** Seven more students (`Student 4` … `Student 10`, group T3), the roster read again: all ten. */
export async function tenStudents(store: LadderStore, ladder: Ladder): Promise<RosterEntry[]> {
  await store.addEntries(
    Array.from({ length: 7 }, (_, i) => ({ name: `Student ${i + 4}`, group: 'T3' })),
    Date.now(),
  );
  await ladder.reload();
  const all = await store.listEntries();
  if (all.length !== 10) throw new Error(`expected ten students on the roster, found ${all.length}`);
  return all;
}

/** Whether `tool` is on the PATH (a course client's compiler or runtime). */
export const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** Runs a course client to its end (killed after `killAfterMs`): its exit code and all it printed. */
export function runProgram(cmd: string, args: readonly string[], cwd: string, killAfterMs = 60_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
}
