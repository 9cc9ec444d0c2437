import { solveMain } from './games/connect4/solve-main.js';

/**
 * `spielhalle solve`'s quick entry as one module: scripts/build.mjs bundles this file and what it
 * imports (the solver and nothing else) into dist/solve.js, which src/cli.ts loads for `solve`.
 * One file instead of twenty saves Node's ESM loader a resolve, an asynchronous read and a compile
 * per module — about 20 ms of a one-position `solve` (docs/connect4.md). Returns solveMain's
 * answer: the exit code, or null when the whole program has to take the arguments.
 */
export function quickSolve(args: readonly string[]): Promise<number | null> {
  // The core is compiled synchronously when the solver is made (search-wasm.ts wasmModule): V8
  // returns once the baseline code is ready (~3 ms) and optimizes on a background thread, whereas
  // WebAssembly.compile, which this entry used to start first, resolves only when the optimized
  // code is done (~18 ms here).
  return solveMain(args);
}
