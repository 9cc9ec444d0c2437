import { recordsWhere, type Settings } from './config.js';
import { UsageError } from './core/errors.js';
import type { PgRecordStore } from './core/records-pg.js';

/**
 * The PostgreSQL record store of the settings (`database.url`), for the commands that read or
 * write it (`matches`, `replay`, `tournament`, `worker`): the driver is loaded only now, and a
 * database that cannot be reached is a usage error naming where the records were looked for.
 */
export async function openDatabaseRecords(settings: Settings, mode: 'read' | 'write' | 'serve'): Promise<PgRecordStore> {
  const { PgRecordStore } = await import('./core/records-pg.js');
  try {
    return await PgRecordStore.open({ url: settings.database.url, schema: settings.database.schema, mode });
  } catch (err) {
    throw new UsageError(`cannot open the records in ${recordsWhere(settings)}: ${(err as Error).message}`);
  }
}
