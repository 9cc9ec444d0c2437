#!/usr/bin/env node
'use strict';
/**
 * The installed `spielhalle` command (package.json "bin"). CommonJS on purpose: Node runs a
 * CommonJS main without setting up its ES module loader, ~5 ms sooner than an ES module such as
 * dist/cli.js — a tenth of a fresh `spielhalle solve < Test_L3_R1` (issue 20). The commands with a
 * quick entry (a CommonJS bundle of their own, scripts/build.mjs) run from here; everything else,
 * and any form a quick entry does not take, goes to dist/cli.js's main: the same program as
 * `node dist/cli.js`, which sends its quick forms here too (quick).
 */
const { existsSync } = require('node:fs');
const { join } = require('node:path');

/** The quick entry of `argv`: its bundle, the function that runs it, and that function's arguments. */
function quickEntry(argv) {
  if (argv[2] === 'solve') return { bundle: join('games', 'connect4', 'solve-bundle.cjs'), run: 'solveMain', args: argv.slice(3) };
  if (argv[2] === 'play' && argv[3] === 'connect4') {
    return { bundle: join('games', 'connect4', 'play-bundle.cjs'), run: 'playMain', args: argv.slice(4) };
  }
  return null;
}

/**
 * Runs the quick entry of `argv` from the build in `dist` if it has one: its exit code, or null
 * when the whole program must answer (no quick entry, no bundle — a source checkout without a
 * build — or a form the entry does not take).
 */
async function quick(argv, dist) {
  const entry = quickEntry(argv);
  if (entry === null) return null;
  const bundle = join(dist, entry.bundle);
  return existsSync(bundle) ? require(bundle)[entry.run](entry.args) : null;
}

module.exports = { quick };

if (require.main === module) {
  const dist = join(__dirname, '..', 'dist');
  quick(process.argv, dist)
    .then((code) => (code !== null ? code : import('../dist/cli.js').then((cli) => cli.main(process.argv))))
    .then((code) => {
      // `serve` and `bot` keep running until a signal; everything else ends here.
      if (code !== 0) process.exit(code);
    });
}
