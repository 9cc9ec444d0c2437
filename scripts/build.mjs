#!/usr/bin/env node
// Builds what is out of date, the steps side by side: the server (src/ → dist/, transpiled file by
// file with esbuild), the Connect Four solver core (asc) and the dashboard (vite). A step runs
// when an input is newer than what it built last. `--server-only` skips the dashboard (bot and
// CLI use). Type checking is not part of the build: `npm test` and `npm run typecheck` run tsc.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const quiet = process.argv.includes('--quiet');
const say = (line) => {
  if (!quiet) process.stderr.write(`build: ${line}\n`);
};

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const entry of readdirSync(path)) t = Math.max(t, newest(join(path, entry)));
  return t;
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

function files(dir, keep) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path, keep));
    else if (keep(entry.name)) out.push(path);
  }
  return out;
}

let ran = 0;

function run(cmd, args, what) {
  say(what);
  ran++;
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    let settled = false;
    const end = (ok) => {
      if (settled) return;
      settled = true;
      if (!ok) {
        if (quiet) process.stderr.write(output);
        process.stderr.write(`build: ${what} failed\n`);
      }
      resolve(ok);
    };
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('error', (err) => {
      output += `${String(err)}\n`;
      end(false);
    });
    child.on('close', (code) => end(code === 0));
  });
}

// The server: every module of src/ to the same place under dist/, as tsc would emit it, without
// checking types (a second, not a minute, under load). The stamp marks the last complete build.
async function server() {
  const stamp = join(root, 'dist', '.server-built');
  const inputs = Math.max(
    newest(join(root, 'src')),
    mtime(join(root, 'tsconfig.build.json')),
    mtime(join(root, 'tsconfig.base.json')),
  );
  if (existsSync(join(root, 'dist', 'cli.js')) && inputs <= mtime(stamp)) return true;
  say('transpiling the server (esbuild)');
  ran++;
  const { build } = await import('esbuild');
  const entryPoints = files(join(root, 'src'), (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
  const common = { platform: 'node', format: 'esm', target: 'node20', sourcemap: true, tsconfig: join(root, 'tsconfig.build.json'), logLevel: 'error' };
  try {
    await build({ ...common, entryPoints, outdir: join(root, 'dist'), outbase: join(root, 'src'), bundle: false });
  } catch {
    process.stderr.write('build: transpiling the server (esbuild) failed\n');
    return false;
  }
  // The quick entries of `spielhalle solve` and `spielhalle play connect4` (run by the installed
  // command's launcher, bin/spielhalle.cjs, and by src/cli.ts through it), each as one CommonJS
  // file of our modules: Node then reads and compiles one file instead of dozens (~20 ms of a
  // one-position solve), and a CommonJS main needs no ES module loader (~5 ms). Packages stay
  // outside (pino is loaded as it is). import.meta.url becomes the bundle's own file URL. Spaces,
  // comments and redundant syntax go (V8 scans a third fewer bytes: ~0.5 ms of a fresh solve);
  // names stay, for stack traces. The bundles sit where their modules do, so that the engine finds its worker script
  // (engine-worker.js) beside them.
  // The first program of every tournament box (src/sandbox/relay-inside.ts) starts before the
  // entrant's program, so a box's start waits for it: CommonJS too.
  const quick = [
    [join('games', 'connect4', 'solve-main.ts'), join('games', 'connect4', 'solve-bundle.cjs')],
    [join('games', 'connect4', 'play-main.ts'), join('games', 'connect4', 'play-bundle.cjs')],
    [join('sandbox', 'relay-inside.ts'), join('sandbox', 'relay-inside.cjs')],
  ];
  try {
    for (const [entry, out] of quick) {
      await build({
        ...common,
        format: 'cjs',
        entryPoints: [join(root, 'src', entry)],
        outfile: join(root, 'dist', out),
        bundle: true,
        packages: 'external',
        minifyWhitespace: true,
        minifySyntax: true,
        define: { 'import.meta.url': '__bundleUrl' },
        banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
      });
    }
  } catch {
    process.stderr.write('build: bundling the quick entries (esbuild) failed\n');
    return false;
  }
  // The Connect Four opening book is a binary asset of the solver (src/games/connect4/solver/index.ts).
  const book = join('games', 'connect4', 'solver', 'book.bin');
  copyFileSync(join(root, 'src', book), join(root, 'dist', book));
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${entryPoints.length} modules from ${relative(root, join(root, 'src'))}/\n`);
  return true;
}

// The Connect Four solver's core (AssemblyScript → WebAssembly); src/games/connect4/solver/
// search-wasm.ts finds it from src/ and from dist/, and falls back to TypeScript without it.
async function solverCore() {
  const wasmOut = join(root, 'dist', 'wasm', 'connect4-solver.wasm');
  if (newest(join(root, 'assembly', 'connect4')) <= mtime(wasmOut)) return true;
  const asc = [
    'assembly/connect4/index.ts',
    '-O3',
    '--runtime',
    'stub',
    '--noAssert',
    '--use',
    'abort=',
    // One memory for the main search and its helper threads (search-wasm.ts): shared, imported,
    // up to 4 GB (a table of 2^28 slots is 2 GB).
    '--enable',
    'threads',
    '--importMemory',
    '--sharedMemory',
    '--initialMemory',
    '2',
    '--maximumMemory',
    '65536',
    '-o',
    'dist/wasm/connect4-solver.wasm',
  ];
  return run(bin('asc'), asc, 'compiling the Connect Four solver core (asc)');
}

async function dashboard() {
  if (process.argv.includes('--server-only')) return true;
  const webOut = join(root, 'web', 'dist', 'index.html');
  const sources = Math.max(
    newest(join(root, 'web', 'src')),
    newest(join(root, 'web', 'index.html')),
    newest(join(root, 'web', 'vite.config.ts')),
    ...readdirSync(join(root, 'src', 'games')).map((g) =>
      newest(join(root, 'src', 'games', g, 'snapshot.ts')),
    ),
  );
  if (existsSync(webOut) && sources <= mtime(webOut)) return true;
  return run(
    bin('vite'),
    ['build', '--config', 'web/vite.config.ts', '--logLevel', quiet ? 'error' : 'warn'],
    'building the dashboard (vite)',
  );
}

const started = Date.now();
const results = await Promise.all([server(), solverCore(), dashboard()]);
if (results.includes(false)) process.exit(1);
say(ran === 0 ? 'up to date' : `done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
