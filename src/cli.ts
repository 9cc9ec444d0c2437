#!/usr/bin/env node
// Not `import … from 'node:fs'`: an ES module's import of a built-in makes its module facade,
// which reads every export, and fs's lazy ones (its streams, fs/promises) load ~3 ms of modules
// that `solve` never uses. (The quick bundles do the same, scripts/build.mjs.)
const { existsSync, realpathSync } = process.getBuiltinModule('node:fs');
const { fileURLToPath } = process.getBuiltinModule('node:url');

/**
 * The `spielhalle` entry. It loads as little as the command needs: `spielhalle solve` answers in a
 * fraction of the time the whole program (cli-program.ts: every game, the dashboard, SQLite)
 * takes to load, so its plain forms go to the solver's own small entry, those of `play connect4`
 * to the terminal game's, and everything else — `solve --help` and any form an entry does not
 * take — to the whole program. Exit codes: 0 ok,
 * 1 failure, 2 usage error.
 */
export async function main(argv: string[]): Promise<number> {
  // The build's bundle of a quick entry (scripts/build.mjs); from the sources, the entry itself.
  const code =
    argv[2] === 'solve'
      ? await quick<typeof import('./games/connect4/solve-main.js')>('./games/connect4/solve-bundle.js', () => import('./games/connect4/solve-main.js')).then((e) => e.solveMain(argv.slice(3)))
      : argv[2] === 'play' && argv[3] === 'connect4'
        ? await quick<typeof import('./games/connect4/play-main.js')>('./games/connect4/play-bundle.js', () => import('./games/connect4/play-main.js')).then((e) => e.playMain(argv.slice(4)))
        : null;
  if (code !== null) {
    if (code !== 0) process.exitCode = code;
    return code;
  }
  const program = await import('./cli-program.js');
  return program.main(argv);
}

/** A quick entry: its bundle next to this file if the build made one, else its module. */
async function quick<T>(bundle: string, module: () => Promise<T>): Promise<T> {
  const url = new URL(bundle, import.meta.url);
  return existsSync(url) ? ((await import(url.href)) as T) : module();
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  const code = await main(process.argv);
  // `serve` and `bot` keep running until a signal; everything else ends here.
  if (code !== 0) process.exit(code);
}
