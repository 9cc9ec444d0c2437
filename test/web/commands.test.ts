import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
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
});
