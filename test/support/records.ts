import { RecordStore } from '../../src/core/records.js';

/** serve() on the embedded default keeps the SQLite store, which answers at once: tests read it directly. */
export function sqliteOf(r: { store: unknown }): RecordStore {
  if (!(r.store instanceof RecordStore)) throw new Error('expected the embedded SQLite record store');
  return r.store;
}
