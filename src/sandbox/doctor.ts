import { sandboxSupport } from '../tournament/sandbox.js';
import { bwrapWorks, findBwrap } from './box.js';
import { describeCgroups } from './cgroup.js';

/**
 * `spielhalle doctor`: what this machine gives a tournament's programs. Without boxes, command
 * entrants run only where the tournament says `isolation: none` (docs/tournaments.md "Sandbox").
 */
export function doctorLines(): { ok: boolean; lines: string[] } {
  const box = bwrapWorks();
  const limits = sandboxSupport();
  const asRoot = process.getuid?.() === 0;
  const lines = [
    box.ok
      ? `isolation: bwrap (${findBwrap() ?? 'bwrap'}): every program in a box of its own — namespaces, ${asRoot ? 'an unprivileged uid of its own' : 'your uid'}, its own directory, loopback only to its match`
      : `isolation: NONE available — ${box.why}. Tournaments with command entrants refuse to start unless their file says isolation: none, and then the programs are NOT isolated.`,
    `CPU limit: RLIMIT_CPU through ${limits.prlimit ? 'prlimit' : 'sh ulimit'}; memory and CPU of the whole process tree sampled every 200 ms`,
    `programs die with the runner: ${limits.pdeathsig ? 'yes (setpriv --pdeathsig' + (box.ok ? ', bwrap --die-with-parent)' : ')') : box.ok ? 'yes (bwrap --die-with-parent)' : 'no (install util-linux setpriv)'}`,
    `processes per box: ${asRoot && box.ok ? 'capped (RLIMIT_NPROC of its own uid)' : 'not capped (run the tournament as root for a uid per box)'}`,
    describeCgroups(),
  ];
  return { ok: box.ok, lines };
}
