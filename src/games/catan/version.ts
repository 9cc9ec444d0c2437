import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROTOCOL } from './protocol.js';

/**
 * The `Version` of the server's Hallo (seed §5: free text; `Protokoll` carries the protocol).
 * It names the software and its release, and says the protocol in words, so that nobody takes a
 * software version for a protocol version (the old "CatanTS-Server 1.0" read like protocol 1.0,
 * which exists and differs): `Spielhalle-Catan 0.1.0 (Protokoll 0.3)`.
 */

/** The version in our package.json, found by walking up from this module (src/ in tests, dist/ when built). */
export function packageVersion(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === 'spielhalle' && typeof pkg.version === 'string') return pkg.version;
      } catch {
        // Not ours or not readable: keep looking upwards.
      }
    }
    if (dirname(dir) === dir) return 'unbekannt';
  }
}

export const SERVER_VERSION = `Spielhalle-Catan ${packageVersion()} (Protokoll ${PROTOCOL})`;
