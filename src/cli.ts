#!/usr/bin/env node
// Not `import … from 'node:fs'`: an ES module's import of a built-in makes its module facade,
// which reads every export, and fs's lazy ones (its streams, fs/promises) load ~3 ms of modules
// that `solve` never uses.
const { realpathSync } = process.getBuiltinModule('node:fs');
const { createRequire } = process.getBuiltinModule('node:module');
const { dirname } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');

/**
 * The `spielhalle` entry. It loads as little as the command needs: `spielhalle solve` answers in a
 * fraction of the time the whole program (cli-program.ts: every game, the dashboard, SQLite)
 * takes to load, so its plain forms run the solver's own small entry, those of `play connect4`
 * the terminal game's — both through the installed command's launcher (bin/spielhalle.cjs,
 * quick), which runs them from the build beside this file — and everything else, `solve --help`
 * and any form an entry does not take, the whole program. Exit codes: 0 ok, 1 failure, 2 usage
 * error.
 */
export async function main(argv: string[]): Promise<number> {
  const launcher = createRequire(import.meta.url)('../bin/spielhalle.cjs') as Launcher;
  // From the sources (src/), no bundle is beside this file: the whole program answers.
  const code = await launcher.quick(argv, dirname(fileURLToPath(import.meta.url)));
  if (code !== null) {
    if (code !== 0) process.exitCode = code;
    return code;
  }
  const program = await import('./cli-program.js');
  return program.main(argv);
}

/** What bin/spielhalle.cjs exports. */
interface Launcher {
  quick(argv: readonly string[], dist: string): Promise<number | null>;
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  const code = await main(process.argv);
  // `serve` and `bot` keep running until a signal; everything else ends here.
  if (code !== 0) process.exit(code);
}
