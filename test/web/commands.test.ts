import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command as Program } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli-program.js';
import { clientCommand } from '../../src/conformance/cli.js';
import { findProgram } from '../../src/conformance/launch.js';
import { GAMES } from '../../src/games/registry.js';
import { checkClientView } from '../../src/web/check-client-api.js';
import { ROOT } from './browser.js';

/**
 * The commands the dashboard offers to copy run as shown in a checkout: they all go through
 * components/Command.tsx, which spells them `npm run -s spielhalle -- …` (and names the installed
 * form beside it), and that npm script passes its arguments on to the CLI.
 */

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('commands shown by the dashboard', () => {
  it('are spelled only in components/Command.tsx', () => {
    const bare =
      /(?:^|[`'">{\s])spielhalle (?:bot|play|serve|replay|matches|tournament|check-client|solve|prune)\b/m;
    const offenders = files(join(ROOT, 'web', 'src'))
      .filter((path) => !path.endsWith(join('components', 'Command.tsx')))
      .filter((path) => bare.test(readFileSync(path, 'utf8')))
      .map((path) => relative(ROOT, path));
    expect(offenders).toEqual([]);
  });

  it('run from a checkout through the npm script, which hands its arguments to the CLI', () => {
    const command = readFileSync(join(ROOT, 'web', 'src', 'components', 'Command.tsx'), 'utf8');
    expect(command).toContain('`npm run -s spielhalle -- ${args}`');
    expect(command).toContain('`spielhalle ${args}`');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    // npm appends what follows `--` to the script's last command: the CLI.
    expect(pkg.scripts.spielhalle).toMatch(/node dist\/cli\.js$/);
    expect(pkg.bin.spielhalle).toBe('bin/spielhalle.cjs');
  });

  it("on every game's \"Test your client\" page: our own client's command, which runs as shown from a checkout", () => {
    const page = readFileSync(join(ROOT, 'web', 'src', 'pages', 'CheckClient.tsx'), 'utf8');
    expect(page).toContain('<Command args={data.exampleArgs} testId="check-client-example" />');
    expect(page).toContain('<Command args={data.configFileArgs} testId="check-client-config-file" />');
    const program = buildProgram();
    const sub = (parent: Program, name: string): Program => {
      const found = parent.commands.find((c) => c.name() === name);
      expect(found, `spielhalle … ${name}`).toBeDefined();
      return found!;
    };
    /** Every option word of `words` is one the command takes. */
    const expectOptionsOf = (command: Program, words: readonly string[], what: string): void => {
      const flags = command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);
      for (const w of words.filter((x) => x.startsWith('-'))) expect(flags, `${what}: ${w}`).toContain(w.replace(/=.*/, ''));
    };
    const games = GAMES.filter((g) => g.conformance !== undefined);
    expect(games.map((g) => g.name).sort()).toEqual(['catan', 'connect4', 'dame', 'mia', 'ostseeschach']);
    for (const g of games) {
      const view = checkClientView(g.name, g.conformance!);
      expect(view.exampleArgs, g.name).toMatch(new RegExp(`^check-client ${g.name} -- spielhalle bot ${g.name} `));
      const client = clientCommand([view.exampleArgs!.slice(`check-client ${g.name} -- `.length)]);
      // Only the game's placeholders, and only options that `spielhalle bot <game>` takes.
      const placeholders = client.flatMap((w) => [...w.matchAll(/\{([^{}\s]*)\}/g)].map((m) => m[1]!));
      for (const p of placeholders) expect(view.placeholders, `${g.name}: {${p}}`).toContain(p);
      expectOptionsOf(sub(sub(program, 'bot'), g.name), client.slice(3), `spielhalle bot ${g.name}`);
      // In a checkout `spielhalle` is not on PATH: check-client runs this package's own CLI.
      expect(findProgram(client, ROOT, { PATH: '/usr/bin:/bin' }), g.name).toMatchObject({ ok: true, argv: [process.execPath, join(ROOT, 'dist', 'cli.js'), ...client.slice(1)] });
      // The form for a client that reads a config file names options check-client takes.
      expectOptionsOf(sub(program, 'check-client'), view.configFileArgs.split(' -- ')[0]!.split(' '), 'check-client');
    }
  });
});
