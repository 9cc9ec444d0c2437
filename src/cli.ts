#!/usr/bin/env node
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The `spielhalle` entry. It loads as little as the command needs: `spielhalle solve` answers in a
 * fraction of the time the whole program (cli-program.ts: every game, the dashboard, SQLite)
 * takes to load, so its plain forms go to the solver's own small entry, and everything else —
 * `solve --help` and any form that entry does not take — to the whole program. Exit codes: 0 ok,
 * 1 failure, 2 usage error.
 */
export async function main(argv: string[]): Promise<number> {
  if (argv[2] === 'solve') {
    // The build's bundle of the solve entry (scripts/build.mjs); from the sources, the entry itself.
    const bundle = new URL('./solve.js', import.meta.url);
    type Entry = typeof import('./solve-entry.js');
    const entry = existsSync(bundle) ? ((await import(bundle.href)) as Entry) : await import('./solve-entry.js');
    const code = await entry.quickSolve(argv.slice(3));
    if (code !== null) {
      if (code !== 0) process.exitCode = code;
      return code;
    }
  }
  const program = await import('./cli-program.js');
  return program.main(argv);
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  const code = await main(process.argv);
  // `serve` and `bot` keep running until a signal; everything else ends here.
  if (code !== 0) process.exit(code);
}
