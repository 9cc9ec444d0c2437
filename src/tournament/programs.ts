import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { settingsSchema, type Settings } from '../config.js';
import type { ProgramOutput } from '../core/record-types.js';
import type { ProgramLauncher, ProgramRun } from '../core/tournament-match.js';
import { PLACEHOLDERS, splitCommandLine, type Isolation, type Limits } from './file.js';
import { createSandboxLauncher } from './sandbox.js';

/**
 * The external programs of one match: a launcher per program seat that remembers every run it
 * started, so the coordinator can stop them all once the match is over and keep what they wrote.
 */

/** Everything captured of one seat's program in one match. */
export type SeatOutput = Omit<ProgramOutput, 'seat' | 'name'>;

/** Starts an entrant's program for one match (src/tournament/sandbox.ts with its limits). */
export interface ProgramSpec {
  command: string;
  cwd: string;
  limits: Limits;
  isolation?: Isolation;
  keepState?: boolean;
}

export type ProgramFactory = (program: ProgramSpec) => {
  launch: ProgramLauncher;
  /** What each run of it so far wrote and how it ended, in the order started. */
  outputs(): SeatOutput[];
};

export interface MatchPrograms {
  /** The launcher a seat plays with. */
  launcherFor(
    seat: number,
    name: string,
    program: ProgramSpec,
  ): ProgramLauncher;
  /** Stops every program still running (whole process groups) and returns their output by seat. */
  finish(): Promise<ProgramOutput[]>;
}

export function matchPrograms(factory: ProgramFactory): MatchPrograms {
  const runs: ProgramRun[] = [];
  const seats: { seat: number; name: string; outputs: () => SeatOutput[] }[] = [];
  return {
    launcherFor(seat, name, program) {
      const host = factory(program);
      seats.push({ seat, name, outputs: () => host.outputs() });
      return (values, endpoints) => {
        const run = host.launch(values, endpoints);
        runs.push(run);
        return run;
      };
    },
    async finish() {
      await Promise.all(runs.map((r) => r.stop()));
      // One entry per run: a seat normally starts its program once per match.
      return seats.flatMap((s) => s.outputs().map((o) => ({ seat: s.seat, name: s.name, ...o })));
    },
  };
}

/**
 * Programs in the sandbox (src/tournament/sandbox.ts): own process group and directory, limits,
 * bounded output; running groups are noted in `pidDir` (see killLeftoverGroups).
 */
export const sandboxPrograms =
  (pidDir?: string): ProgramFactory =>
  (program) => {
    const sandbox = createSandboxLauncher({ ...program, ...(pidDir === undefined ? {} : { pidDir }) });
    return {
      launch: sandbox.launch,
      outputs: () =>
        sandbox.outputs().map((o) => ({
          stdout: o.stdout,
          stderr: o.stderr,
          truncated: o.truncated,
          exit:
            o.exit === null
              ? null
              : {
                  code: o.exit.code,
                  signal: o.exit.signal,
                  ...(o.exit.limit === undefined ? {} : { limit: o.exit.limit }),
                  ...(o.exit.error === undefined ? {} : { error: o.exit.error }),
                },
        })),
    };
  };

// ---- programs staff register for the dashboard (`tournaments.programs`) -------------------------

/** A registered program as the settings hold it (`tournaments.programs[i]`). */
export type RegisteredProgramSpec = Settings['tournaments']['programs'][number];

/** The settings' own schema of one registered program: the dashboard validates exactly alike. */
export const registeredProgramSchema = settingsSchema.shape.tournaments.shape.programs.element;

/** One problem with a program to register: the field and what is wrong, one line. */
export interface ProgramProblem {
  path: string;
  message: string;
}

/** The program file a command's first word names (PATH when it has no slash), or why there is none. */
export function findProgram(word: string, cwd: string | undefined, pathVar = process.env.PATH ?? ''): { file: string } | { error: string } {
  const check = (file: string): { file: string } | { error: string } => {
    try {
      if (!statSync(file).isFile()) return { error: `not a program file: ${file}` };
    } catch {
      return { error: `no such program: ${file}` };
    }
    try {
      accessSync(file, constants.X_OK);
    } catch {
      return { error: `not executable: ${file}` };
    }
    return { file };
  };
  if (word.includes('/')) {
    if (isAbsolute(word)) return check(word);
    if (cwd === undefined) return { error: `${word} is relative: give the cwd it is relative to` };
    return check(resolve(cwd, word));
  }
  for (const dir of pathVar.split(':').filter((d) => isAbsolute(d))) {
    const found = check(join(dir, word));
    if ('file' in found) return found;
  }
  return { error: `no such program on PATH: ${word}` };
}

/**
 * Everything wrong with a program to register, as the settings and a tournament file would say
 * it: the settings' schema, the command line (quotes, placeholders of its game), the working
 * directory (an absolute directory), and the program itself (found and executable).
 */
export function checkRegisteredProgram(input: unknown): { ok: true; program: RegisteredProgramSpec } | { ok: false; problems: ProgramProblem[] } {
  const parsed = registeredProgramSchema.safeParse(input);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    };
  const p = parsed.data;
  const problems: ProgramProblem[] = [];
  const known = PLACEHOLDERS[p.game];
  const split = splitCommandLine(p.command);
  if (!split.ok) problems.push({ path: 'command', message: split.message });
  for (const m of p.command.matchAll(/\{([^{}\s]*)\}/g)) {
    if (!known.includes(m[1] ?? ''))
      problems.push({
        path: 'command',
        message: `unknown placeholder {${m[1] ?? ''}} for ${p.game} (allowed: ${known.map((k) => `{${k}}`).join(' ')})`,
      });
  }
  if (p.cwd !== undefined) {
    if (!isAbsolute(p.cwd)) problems.push({ path: 'cwd', message: `not an absolute path: ${p.cwd}` });
    else if (!existsSync(p.cwd) || !statSync(p.cwd).isDirectory())
      problems.push({ path: 'cwd', message: `no such directory: ${p.cwd}` });
  }
  const first = split.ok ? split.words[0] : undefined;
  if (split.ok && first === undefined) problems.push({ path: 'command', message: 'empty command' });
  if (first !== undefined && !first.includes('{') && problems.every((x) => x.path !== 'cwd')) {
    const found = findProgram(first, p.cwd);
    if ('error' in found) problems.push({ path: 'command', message: found.error });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, program: p };
}
