import { recordsWhere, type Settings } from './config.js';
import { UnavailableError, UsageError } from './core/errors.js';
import type { Logger } from './core/log.js';
import type { PgRecordStore } from './core/records-pg.js';

/**
 * The PostgreSQL record store of the settings (`database.url`), for the commands that read or
 * write it (`matches`, `replay`, `tournament`, `worker`): the driver is loaded only now. A
 * database that is not there (refused, starting up) is waited for with backoff by the commands
 * that run for long (`wait`: `worker`, `tournament run|resume`) and is exit code 75 for the others;
 * any other failure (wrong password, no such database) is a usage error naming where the records
 * were looked for.
 */
export async function openDatabaseRecords(
  settings: Settings,
  mode: 'read' | 'write' | 'serve',
  options: { wait?: boolean; log?: Logger; signal?: AbortSignal } = {},
): Promise<PgRecordStore> {
  const { PgRecordStore } = await import('./core/records-pg.js');
  const { isConnectionError } = await import('./core/pg-outage.js');
  const storeOptions = { url: settings.database.url, schema: settings.database.schema, mode, ...(options.log === undefined ? {} : { log: options.log }) };
  try {
    return options.wait === true ? await PgRecordStore.openWhenReachable(storeOptions, options.signal) : await PgRecordStore.open(storeOptions);
  } catch (err) {
    const message = `cannot open the records in ${recordsWhere(settings)}: ${(err as Error).message}`;
    if (isConnectionError(err)) throw new UnavailableError(message);
    throw new UsageError(message);
  }
}
