import { UsageError } from '../../core/errors.js';
import { runSolve, type SolveOptions } from './solve-command.js';

/**
 * The quick way into `spielhalle solve` (src/cli.ts): the full program loads every game, the
 * dashboard and SQLite before it parses anything (over a second); this loads the solver alone.
 * It takes the plain forms of the command — positions and the options of `solve` — and gives up
 * (null) on anything else (help, global options, an unknown or malformed option), which then goes
 * to the full program and its usual messages. Both run the same runSolve.
 */

const FLAGS: Record<string, keyof SolveOptions> = {
  '--weak': 'weak',
  '--reset-each': 'resetEach',
  '--stats': 'stats',
};
const VALUES: Record<string, keyof SolveOptions> = {
  '--best': 'best',
  '--best-move': 'bestMove',
  '--table-log': 'tableLog',
  '--threads': 'threads',
};

/** The options and positions of `args` (what follows `solve`), or null if the full parser is needed. */
export function parseSolveArgs(args: readonly string[]): { positions: string[]; opts: SolveOptions } | null {
  const positions: string[] = [];
  const opts: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) {
      positions.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--no-book' && eq < 0) opts.book = false;
    else if (FLAGS[name] !== undefined && eq < 0) opts[FLAGS[name]] = true;
    else if (VALUES[name] !== undefined) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      // A missing value, or one that looks like an option, is commander's to report.
      if (value === undefined || (eq < 0 && value.startsWith('-'))) return null;
      // Commander keeps the last of a repeated option; so does this.
      opts[VALUES[name]] = value;
    } else return null;
  }
  return { positions, opts };
}

/** Runs `solve` with `args` if this entry handles them; the exit code, or null for the full program. */
export async function solveMain(args: readonly string[]): Promise<number | null> {
  const parsed = parseSolveArgs(args);
  if (parsed === null) return null;
  try {
    return await runSolve(parsed.positions, parsed.opts);
  } catch (err) {
    process.stderr.write(`spielhalle: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
