import type { ProgramOutput } from '../core/record-types.js';
import type { ProgramLauncher, ProgramRun } from '../core/tournament-match.js';
import type { Isolation, Limits } from './file.js';
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
