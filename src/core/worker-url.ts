import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where a worker thread's script is: the compiled `<name>.js` next to the calling module, or, when
 * the program runs from the TypeScript sources (tests, benches, `tsx`), a bundle of `<name>.ts`
 * made once per process with esbuild (a dev dependency), because Node 20 cannot load a TypeScript
 * loader inside a worker thread. The banner gives the bundle a `require`, which the CommonJS
 * packages it contains (pino) need for Node's built-in modules.
 */

const bundles = new Map<string, Promise<URL>>();

const BANNER = "import { createRequire as __spielhalleRequire } from 'node:module'; const require = __spielhalleRequire(import.meta.url);";

/** The URL of worker script `name` (without extension) next to the module at `moduleUrl`. */
export function workerUrl(moduleUrl: string, name: string): Promise<URL> {
  if (!moduleUrl.endsWith('.ts')) return Promise.resolve(new URL(`./${name}.js`, moduleUrl));
  const source = fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
  let bundle = bundles.get(source);
  if (!bundle) {
    bundle = (async () => {
      const { build } = await import('esbuild');
      const out = join(mkdtempSync(join(tmpdir(), 'spielhalle-worker-')), `${name}.mjs`);
      await build({
        entryPoints: [source],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: out,
        logLevel: 'error',
        packages: 'bundle',
        banner: { js: BANNER },
      });
      return pathToFileURL(out);
    })();
    bundle.catch(() => bundles.delete(source));
    bundles.set(source, bundle);
  }
  return bundle;
}
