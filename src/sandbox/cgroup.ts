import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Kernel limits for a box (issue 30): a control group of its own with a memory limit and a cap on
 * its processes, where the machine offers it — cgroup v2 with the memory and pids controllers
 * delegated to the runner's group, or cgroup v1's memory and pids hierarchies (these machines).
 * The box's first process writes its own pid into the group before it execs bwrap, so everything
 * the box ever starts is inside. The /proc sampler in tournament/sandbox.ts stays as the fallback
 * and for CPU time; the group makes the limits exact: the kernel refuses the 513th process and
 * OOM-kills at the memory limit instead of a sampler noticing up to 200 ms later.
 */

export interface CgroupLimits {
  memoryBytes: number;
  pids: number;
}

export type CgroupSupport =
  | { kind: 'v2'; parent: string }
  | { kind: 'v1'; memory: string; pids: string }
  | { kind: 'none'; why: string };

const ROOT = '/sys/fs/cgroup';
/** Names of box groups: spielhalle-box-<runner pid>-<n> (a dead runner's leftovers are swept). */
const PREFIX = 'spielhalle-box-';

/** The runner's own group in each hierarchy (/proc/self/cgroup: `id:controllers:path`). */
function ownGroups(): Map<string, string> {
  const groups = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return groups;
  }
  for (const line of text.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m === null) continue;
    if (m[1] === '') groups.set('', m[2]!);
    for (const c of m[1]!.split(',')) if (c !== '') groups.set(c, m[2]!);
  }
  return groups;
}

/** Whether a group may be made under `dir` (a probe, made and removed). */
function canCreateUnder(dir: string): boolean {
  const probe = path.join(dir, `${PREFIX}probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

let support: CgroupSupport | undefined;

export function cgroupSupport(): CgroupSupport {
  if (support !== undefined) return support;
  const own = ownGroups();
  // cgroup v2: at /sys/fs/cgroup (pure v2) or /sys/fs/cgroup/unified (hybrid), when the runner's
  // group hands memory and pids down to its children.
  for (const mount of [ROOT, path.join(ROOT, 'unified')]) {
    if (!existsSync(path.join(mount, 'cgroup.controllers')) || !own.has('')) continue;
    const parent = path.join(mount, own.get('')!);
    let delegated = '';
    try {
      delegated = readFileSync(path.join(parent, 'cgroup.subtree_control'), 'utf8');
    } catch {
      continue;
    }
    if (/\bmemory\b/.test(delegated) && /\bpids\b/.test(delegated) && canCreateUnder(parent)) return (support = { kind: 'v2', parent });
  }
  const memory = own.has('memory') ? path.join(ROOT, 'memory', own.get('memory')!) : null;
  const pids = own.has('pids') ? path.join(ROOT, 'pids', own.get('pids')!) : null;
  if (memory !== null && pids !== null && existsSync(path.join(memory, 'memory.limit_in_bytes')) && existsSync(path.join(pids, 'cgroup.procs'))) {
    if (canCreateUnder(memory) && canCreateUnder(pids)) return (support = { kind: 'v1', memory, pids });
    return (support = { kind: 'none', why: `cgroup v1 is mounted, but this runner may not make groups in ${memory} and ${pids} (run as root)` });
  }
  return (support = { kind: 'none', why: 'no cgroup v2 group with memory and pids delegated to this runner, and no cgroup v1 memory and pids hierarchies' });
}

/** One line for `spielhalle doctor`. */
export function describeCgroups(): string {
  const s = cgroupSupport();
  if (s.kind === 'v2') return `cgroup limits: v2 (${s.parent}): memory limit and a cap on processes per box, enforced by the kernel`;
  if (s.kind === 'v1') return `cgroup limits: v1 (${s.memory}, ${s.pids}): memory limit and a cap on processes per box, enforced by the kernel`;
  return `cgroup limits: none (${s.why}); the /proc sampler enforces the memory limit, RLIMIT_NPROC the processes`;
}

const write = (file: string, text: string): void => writeFileSync(file, text);

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Kills what is in `dir` and removes it (true when gone). */
function removeGroup(dir: string): boolean {
  try {
    for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone
      }
    }
  } catch {
    return !existsSync(dir);
  }
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false; // EBUSY while the killed processes are still being reaped
  }
}

/** Removes `dir` now, or (killed processes still being reaped) a little later, up to 5 s. */
function removeSoon(dir: string, attempt = 0): void {
  if (removeGroup(dir) || attempt >= 50) return;
  setTimeout(() => removeSoon(dir, attempt + 1), 100).unref();
}

let swept = false;

/** Removes the box groups of runners that are gone (killed with -9, say). */
function sweepLeftovers(parents: readonly string[]): void {
  if (swept) return;
  swept = true;
  for (const parent of parents) {
    let names: string[] = [];
    try {
      names = readdirSync(parent).filter((n) => n.startsWith(PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      const runner = Number(name.slice(PREFIX.length).split('-')[0]);
      if (Number.isInteger(runner) && runner !== process.pid && !isAlive(runner)) removeSoon(path.join(parent, name));
    }
  }
}

let made = 0;

export class BoxCgroup {
  /** The files the box's first process writes its own pid into (joining every hierarchy). */
  readonly procsFiles: readonly string[];
  private removed = false;

  private constructor(
    private readonly dirs: readonly string[],
    private readonly kind: 'v1' | 'v2',
  ) {
    this.procsFiles = dirs.map((d) => path.join(d, 'cgroup.procs'));
  }

  /**
   * A group with `limits` for one box, its cgroup.procs writable by `uid` (the box's first process
   * joins itself); null where the machine offers none (cgroupSupport says why).
   */
  static create(limits: CgroupLimits, uid: number | null): BoxCgroup | null {
    const s = cgroupSupport();
    if (s.kind === 'none') return null;
    const name = `${PREFIX}${process.pid}-${++made}`;
    const parents = s.kind === 'v2' ? [s.parent] : [s.memory, s.pids];
    sweepLeftovers(parents);
    const dirs = parents.map((p) => path.join(p, name));
    const group = new BoxCgroup(dirs, s.kind);
    try {
      for (const d of dirs) mkdirSync(d);
      const memory = String(limits.memoryBytes);
      if (s.kind === 'v2') {
        write(path.join(dirs[0]!, 'memory.max'), memory);
        write(path.join(dirs[0]!, 'memory.swap.max'), '0');
        write(path.join(dirs[0]!, 'pids.max'), String(limits.pids));
      } else {
        write(path.join(dirs[0]!, 'memory.limit_in_bytes'), memory);
        // With swap accounting, memory + swap too (no escape into swap); without, nothing to set.
        const memsw = path.join(dirs[0]!, 'memory.memsw.limit_in_bytes');
        if (existsSync(memsw)) write(memsw, memory);
        write(path.join(dirs[1]!, 'pids.max'), String(limits.pids));
      }
      if (uid !== null) for (const f of group.procsFiles) chownSync(f, uid, uid);
      return group;
    } catch {
      group.remove();
      return null;
    }
  }

  /** How often the kernel's OOM killer struck in the box (the memory limit). */
  oomKills(): number {
    try {
      if (this.kind === 'v2') {
        const m = /^oom_kill (\d+)$/m.exec(readFileSync(path.join(this.dirs[0]!, 'memory.events'), 'utf8'));
        return m === null ? 0 : Number(m[1]);
      }
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(path.join(this.dirs[0]!, 'memory.oom_control'), 'utf8'));
      return m === null ? 0 : Number(m[1]);
    } catch {
      return 0;
    }
  }

  /** How often a fork was refused at the process cap. */
  pidsRefused(): number {
    try {
      const events = readFileSync(path.join(this.dirs[this.kind === 'v2' ? 0 : 1]!, 'pids.events'), 'utf8');
      const m = /^max (\d+)$/m.exec(events);
      return m === null ? 0 : Number(m[1]);
    } catch {
      return 0;
    }
  }

  /** Kills whatever is still in the group and removes it. */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    for (const d of this.dirs) if (existsSync(d)) removeSoon(d);
  }
}
