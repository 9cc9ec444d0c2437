#!/usr/bin/env node
// Builds what is out of date: the server (tsc, incremental) and the dashboard (vite) when any of
// its sources is newer than its output. `--server-only` skips the dashboard (bot and CLI use).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const quiet = process.argv.includes('--quiet');

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const entry of readdirSync(path)) t = Math.max(t, newest(join(path, entry)));
  return t;
}

function run(cmd, args, what) {
  if (!quiet) process.stderr.write(`build: ${what}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(String(r.stdout ?? '') + String(r.stderr ?? ''));
    process.stderr.write(`build: ${what} failed\n`);
    process.exit(1);
  }
}

const serverOut = join(root, 'dist', 'cli.js');
if (newest(join(root, 'src')) > newest(join(root, 'dist')) || !existsSync(serverOut)) {
  run(bin('tsc'), ['-p', 'tsconfig.build.json'], 'compiling the server (tsc)');
}

// The Connect Four solver's core (AssemblyScript → WebAssembly); src/games/connect4/solver/
// search-wasm.ts finds it from src/ and from dist/, and falls back to TypeScript without it.
const wasmOut = join(root, 'dist', 'wasm', 'connect4-solver.wasm');
if (newest(join(root, 'assembly', 'connect4')) > newest(wasmOut)) {
  const asc = ['assembly/connect4/index.ts', '-O3', '--runtime', 'stub', '--noAssert', '--use', 'abort=', '-o', 'dist/wasm/connect4-solver.wasm'];
  run(bin('asc'), asc, 'compiling the Connect Four solver core (asc)');
}

if (!process.argv.includes('--server-only')) {
  const webOut = join(root, 'web', 'dist', 'index.html');
  const sources = Math.max(
    newest(join(root, 'web', 'src')),
    newest(join(root, 'web', 'index.html')),
    newest(join(root, 'web', 'vite.config.ts')),
    ...readdirSync(join(root, 'src', 'games')).map((g) => newest(join(root, 'src', 'games', g, 'snapshot.ts'))),
  );
  if (!existsSync(webOut) || sources > statSync(webOut).mtimeMs) {
    run(bin('vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', quiet ? 'error' : 'warn'], 'building the dashboard (vite)');
  }
}
