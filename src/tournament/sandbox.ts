import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProgramEndpoints, ProgramExit, ProgramLauncher, ProgramRun } from '../core/tournament-match.js';
import { boxEtc, boxUid, bwrapArgv, bwrapWorks, findBwrap, isDirectory, relayScriptPath, type Isolation } from '../sandbox/box.js';
import { BoxCgroup } from '../sandbox/cgroup.js';
import { BoxRelay } from '../sandbox/relay.js';
import { commandArgv, type Limits } from './file.js';

/**
 * Runs an entrant's external program for one match: no shell, its own process group and working
 * directory, a clean environment, bounded stdout/stderr, and limits on wall-clock time, CPU time
 * and resident memory of the whole process group. What is enforced and how is documented in
 * docs/tournaments.md ("Sandbox: what is enforced").
 */

export interface SandboxOptions {
  /** The entrant's command line with {placeholders} (split and filled by file.ts commandArgv). */
  command: string;
  /** Its working directory (created when missing); also its HOME, with TMPDIR=cwd/tmp. */
  cwd: string;
  /** Per match; missing ones take SANDBOX_DEFAULTS (CPU defaults to the wall-clock limit). */
  limits: Limits;
  /** Added to the clean environment (wins over it). */
  env?: Record<string, string>;
  /** Per stream, default 64 KiB: the first half and the last half are kept, the rest counted. */
  maxOutputBytes?: number;
  /** stop(): SIGKILL this long after SIGTERM, default 2000 ms. */
  stopGraceMs?: number;
  /** How RLIMIT_CPU is set: `prlimit` (util-linux) or `sh -c 'ulimit -t …'`; default: prlimit when present. */
  cpuLimitVia?: 'prlimit' | 'ulimit';
  /**
   * A directory where each running program's process group is noted (one file per group, removed
   * when the group is gone), so that a later run can kill what a killed runner left behind
   * (killLeftoverGroups).
   */
  pidDir?: string;
  /**
   * `bwrap` (the default): the program runs in a box (src/sandbox/box.ts) and reaches nothing but
   * its match's endpoints; `none`: only the process group, the environment and the limits.
   */
  isolation?: Isolation;
  /** With `bwrap`: the program works in its own directory, read-write, instead of a fresh copy per match. */
  keepState?: boolean;
}

/** A box's working directory (a tmpfs) and private /tmp hold at most this much. */
export const BOX_DISK_MB = 256;
export const BOX_TMP_MB = 64;
/** Processes (and threads) a box's uid may have at once (a root runner's boxes have a uid each). */
export const BOX_MAX_PROCESSES = 512;

export interface SandboxOutput {
  run: ProgramRun;
  stdout: string;
  stderr: string;
  /** Bytes dropped from stdout and stderr together. */
  truncated: number;
  exit: ProgramExit | null;
}

export interface Sandbox {
  launch: ProgramLauncher;
  /** Every program launched so far, in launch order, with what it has printed until now. */
  outputs(): SandboxOutput[];
  /** Stops every program still running. */
  stopAll(): Promise<void>;
}

/** The limits used when the tournament file gives none. */
export const SANDBOX_DEFAULTS = { wallSeconds: 30 * 60, memoryMb: 2048 } as const;
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
export const DEFAULT_STOP_GRACE_MS = 2000;
/** How often the process group's CPU time and resident memory are sampled. */
export const POLL_MS = 200;
/** How long after the leader's exit its output pipes may stay open (held by escaped processes). */
const DRAIN_MS = 500;

const PRLIMIT_CANDIDATES = ['/usr/bin/prlimit', '/bin/prlimit', '/usr/sbin/prlimit', '/sbin/prlimit'];
const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv', '/usr/sbin/setpriv', '/sbin/setpriv'];
let setprivPath: string | null | undefined;

/** util-linux `setpriv`, which sets the parent-death signal before it execs the program. */
function findSetpriv(): string | null {
  if (setprivPath === undefined) setprivPath = SETPRIV_CANDIDATES.find((p) => isExecutableFile(p)) ?? null;
  return setprivPath;
}
let prlimitPath: string | null | undefined;

function findPrlimit(): string | null {
  if (prlimitPath === undefined) {
    prlimitPath = PRLIMIT_CANDIDATES.find((p) => isExecutableFile(p)) ?? null;
  }
  return prlimitPath;
}

/** What this machine can enforce: RLIMIT_CPU through prlimit (else through `ulimit -t` in sh). */
export function sandboxSupport(): { prlimit: boolean; pdeathsig: boolean } {
  return { prlimit: findPrlimit() !== null, pdeathsig: findSetpriv() !== null };
}

export function createSandboxLauncher(options: SandboxOptions): Sandbox {
  const runs: SandboxRun[] = [];
  const launch: ProgramLauncher = (values, endpoints) => {
    const run = new SandboxRun(options, values, endpoints);
    runs.push(run);
    return run;
  };
  return {
    launch,
    outputs: () =>
      runs.map((run) => ({
        run,
        stdout: run.stdout.text(),
        stderr: run.stderr.text(),
        truncated: run.stdout.truncated + run.stderr.truncated,
        exit: run.exit,
      })),
    stopAll: async () => {
      await Promise.all(runs.map((run) => run.stop()));
    },
  };
}

/** Gives a directory tree (the box's copy of the entrant's directory) to the box's uid. */
function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, uid);
    else if (!entry.isSymbolicLink()) chownSync(p, uid, uid);
  }
}

/** A box's PATH: the system's directories (what is bound into it), and where our Node is. */
export const BOX_PATH = [...new Set(['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', path.dirname(process.execPath)])].join(':');

/** Our own package (dist, node_modules): our clients run as entrants from there. */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * What of the command line a box must see read-only besides the system: the directory of every
 * word that names an existing file or directory outside the working directory (the program's own
 * files elsewhere), and of our package only `dist`, `node_modules` and `package.json` (never its
 * data directory or settings); Node's own directory when it is not a system one.
 */
export function readOnlyPaths(words: readonly string[], cwd: string): string[] {
  const out = new Set<string>();
  const system = ['/usr/', '/bin/', '/lib/', '/lib64/', '/sbin/', '/opt/'];
  const inside = (p: string, dir: string): boolean => p === dir || p.startsWith(dir + path.sep);
  for (const word of [process.execPath, ...words]) {
    if (word === '' || word.startsWith('-')) continue;
    const p = path.resolve(cwd, word);
    if (!existsSync(p) || inside(p, cwd) || system.some((d) => p.startsWith(d)) || p === '/') continue;
    if (inside(p, PACKAGE_ROOT)) {
      for (const part of ['dist', 'bin', 'node_modules', 'package.json']) out.add(path.join(PACKAGE_ROOT, part));
      if (!inside(p, path.join(PACKAGE_ROOT, 'dist')) && !inside(p, path.join(PACKAGE_ROOT, 'node_modules'))) out.add(isDirectory(p) ? p : path.dirname(p));
      continue;
    }
    out.add(isDirectory(p) ? p : path.dirname(p));
  }
  return [...out].filter((p) => !inside(cwd, p));
}

/** The environment a program sees: nothing of the server's own (no SPIELHALLE_* secrets). */
export function sandboxEnv(
  cwd: string,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: cwd,
    TMPDIR: path.join(cwd, 'tmp'),
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
  };
  const javaHome = process.env.JAVA_HOME;
  if (javaHome !== undefined) env.JAVA_HOME = javaHome;
  return { ...env, ...extra };
}

/** Keeps the first and the last half of `max` bytes of a stream and counts what lies between. */
export class BoundedOutput {
  private readonly headMax: number;
  private readonly tailMax: number;
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(max: number) {
    this.headMax = Math.floor(max / 2);
    this.tailMax = max - this.headMax;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headBytes < this.headMax) {
      const take = Math.min(this.headMax - this.headBytes, rest.length);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Drop whole chunks that lie entirely before the last tailMax bytes.
    for (
      let first = this.tail[0];
      first && this.tailBytes - first.length >= this.tailMax;
      first = this.tail[0]
    ) {
      this.tail.shift();
      this.tailBytes -= first.length;
      this.dropped += first.length;
    }
  }

  /** Bytes dropped so far. */
  get truncated(): number {
    return this.dropped + Math.max(0, this.tailBytes - this.tailMax);
  }

  text(): string {
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailMax) tail = tail.subarray(tail.length - this.tailMax);
    const head = Buffer.concat(this.head).toString('utf8');
    const dropped = this.truncated;
    return dropped > 0
      ? `${head}\n[… ${dropped} bytes dropped …]\n${tail.toString('utf8')}`
      : head + tail.toString('utf8');
  }
}

type Resolved = { file: string } | { error: string };

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds the program like execvp would (PATH when the word has no slash), to report a clear error. */
export function resolveProgram(word: string, cwd: string, pathVar: string): Resolved {
  const check = (file: string): Resolved => {
    let isFile: boolean;
    try {
      isFile = statSync(file).isFile();
    } catch {
      return { error: `no such program: ${file}` };
    }
    if (!isFile) return { error: `not a program file: ${file}` };
    try {
      accessSync(file, constants.X_OK);
    } catch {
      return { error: `not executable: ${file}` };
    }
    return { file };
  };
  if (word === '') return { error: 'empty command' };
  if (word.includes('/')) return check(path.resolve(cwd, word));
  let notExecutable: Resolved | null = null;
  for (const dir of pathVar.split(':')) {
    const result = check(path.resolve(cwd, dir === '' ? '.' : dir, word));
    if ('file' in result) return result;
    if (notExecutable === null && result.error.startsWith('not executable')) notExecutable = result;
  }
  return notExecutable ?? { error: `no such program on PATH: ${word}` };
}

class SandboxRun implements ProgramRun {
  pid: number | undefined;
  readonly exited: Promise<ProgramExit>;
  done = false;
  exit: ProgramExit | null = null;
  readonly stdout: BoundedOutput;
  readonly stderr: BoundedOutput;

  private resolveExit!: (exit: ProgramExit) => void;
  private child: ChildProcess | null = null;
  private limitHit: ProgramExit['limit'];
  private leaderGone = false;
  private stopping = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly cpuLimit: number;
  private readonly memoryBytes: number;
  private readonly grace: number;
  private lastCpu = 0;

  /** The local ports of the box's TCP connections to its game (its seat's connections). */
  private readonly ownPorts = new Set<number>();
  private readonly boxed: boolean;
  private relay: BoxRelay | null = null;
  private runDir: string | null = null;
  private copyBack: { from: string; to: string } | null = null;
  /** The box's control group (memory limit, process cap), where the machine offers one. */
  private cgroup: BoxCgroup | null = null;

  constructor(options: SandboxOptions, values: Readonly<Record<string, string>>, endpoints?: ProgramEndpoints) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.stdout = new BoundedOutput(max);
    this.stderr = new BoundedOutput(max);
    const wall = options.limits.wallSeconds ?? SANDBOX_DEFAULTS.wallSeconds;
    this.cpuLimit = options.limits.cpuSeconds ?? wall;
    this.memoryBytes = (options.limits.memoryMb ?? SANDBOX_DEFAULTS.memoryMb) * 1024 * 1024;
    this.grace = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    const fail = (e: unknown): void => this.finish({ code: null, signal: null, error: e instanceof Error ? e.message : String(e) });
    this.boxed = (options.isolation ?? 'bwrap') !== 'none';
    try {
      if (!this.boxed) this.start(options, values, wall);
      else void this.startBoxed(options, values, wall, endpoints).catch(fail);
    } catch (e) {
      fail(e);
    }
  }

  /**
   * Whether a TCP connection (or the UDP socket) at the game from `localPort` is this program's:
   * one that came through its box. Without a box (isolation: none) that cannot be told, and every
   * connection may be.
   */
  ownsConnection(localPort: number): boolean {
    return !this.boxed || this.ownPorts.has(localPort);
  }

  private async startBoxed(options: SandboxOptions, values: Readonly<Record<string, string>>, wall: number, endpoints: ProgramEndpoints | undefined): Promise<void> {
    const works = bwrapWorks();
    if (!works.ok) throw new Error(`no isolation: ${works.why}; install bubblewrap, or let the tournament say isolation: none`);
    const cwd = path.resolve(options.cwd);
    mkdirSync(cwd, { recursive: true });
    const uid = boxUid();
    const runDir = mkdtempSync(path.join(tmpdir(), 'spielhalle-box-'));
    this.runDir = runDir;
    const etc = boxEtc(uid ?? process.getuid?.() ?? 65534);
    for (const [name, text] of Object.entries(etc)) writeFileSync(path.join(runDir, name), text);
    const ends = endpoints ?? { tcp: values.port === undefined ? [] : [Number(values.port)], udp: [] };
    const relay = await BoxRelay.open(path.join(runDir, 'relay.sock'), ends, {
      onTcp: (_port, localPort) => this.ownPorts.add(localPort),
      onUdp: (localPort) => this.ownPorts.add(localPort),
    });
    this.relay = relay;
    if (this.done || this.stopping) return;
    // A copy in the run's directory: the box's uid may read that one (a bundle of the sources is not).
    const relaySource = await relayScriptPath();
    const relayScript = path.join(runDir, relaySource.module ? 'relay-inside.mjs' : 'relay-inside.cjs');
    copyFileSync(relaySource.file, relayScript);
    if (uid !== null) {
      chownSync(runDir, uid, uid);
      chownSync(path.join(runDir, 'relay.sock'), uid, uid);
    }
    chmodSync(runDir, 0o711);
    const argv = commandArgv(options.command, values);
    // The same clean environment as without a box, with the box's PATH and its private /tmp.
    const env = sandboxEnv(cwd, { PATH: BOX_PATH, TMPDIR: '/tmp', ...options.env });
    const [word, ...args] = argv;
    if (word === undefined) throw new Error('empty command');
    const resolved = resolveProgram(word, cwd, `${env.PATH}:${process.env.PATH ?? ''}`);
    if ('error' in resolved) throw new Error(resolved.error);
    const bwrap = findBwrap()!;
    const keepState = options.keepState === true;
    // The box works on a copy of the entrant's directory (what one match leaves, no other sees),
    // made here, where the runner may read it, and given to the box's uid; with keepState the box
    // writes into that copy and it is copied back after the match.
    const source = path.join(runDir, 'source');
    cpSync(cwd, source, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    if (uid !== null) chownTree(source, uid);
    if (keepState) this.copyBack = { from: source, to: cwd };
    const boxed = bwrapArgv({
      argv: [resolved.file, ...args],
      cwd,
      keepState,
      readOnly: readOnlyPaths([resolved.file, ...args], cwd),
      runDir,
      relayScript,
      relayModule: relaySource.module,
      tcp: ends.tcp,
      udp: ends.udp,
      uid,
      env,
      diskMb: BOX_DISK_MB,
      tmpMb: BOX_TMP_MB,
      node: process.execPath,
      source,
    });
    this.cgroup = BoxCgroup.create({ memoryBytes: this.memoryBytes, pids: BOX_MAX_PROCESSES }, uid);
    this.spawnLimited(options, [bwrap, ...boxed], runDir, {}, wall, uid);
  }

  private start(options: SandboxOptions, values: Readonly<Record<string, string>>, wall: number): void {
    const argv = commandArgv(options.command, values);
    const cwd = path.resolve(options.cwd);
    mkdirSync(path.join(cwd, 'tmp'), { recursive: true });
    const env = sandboxEnv(cwd, options.env);
    const [word, ...args] = argv;
    if (word === undefined) throw new Error('empty command');
    const resolved = resolveProgram(word, cwd, env.PATH ?? '');
    if ('error' in resolved) throw new Error(resolved.error);
    this.spawnLimited(options, [resolved.file, ...args], cwd, env, wall, null);
  }

  /** Starts `program` under the CPU rlimit, the parent-death signal and the samplers. */
  private spawnLimited(options: SandboxOptions, program0: readonly string[], cwd: string, env: Record<string, string>, wall: number, uid: number | null): void {

    // RLIMIT_CPU per process: SIGXCPU at the soft limit, SIGKILL one second later (the hard limit);
    // RLIMIT_CORE 0, so that SIGXCPU leaves no core dump behind.
    const soft = Math.max(1, Math.ceil(this.cpuLimit));
    const hard = soft + 1;
    const prlimit = options.cpuLimitVia === 'ulimit' ? null : findPrlimit();
    if (options.cpuLimitVia === 'prlimit' && prlimit === null) throw new Error('prlimit is not installed');
    // The program dies with the runner (SIGKILL when its parent, this process, dies — even by
    // kill -9): setpriv sets the parent-death signal and execs it, keeping the pid.
    // A box dies with its runner by itself (bwrap --die-with-parent): setpriv only for the others.
    const setpriv = this.boxed ? null : findSetpriv();
    const program = setpriv !== null ? [setpriv, '--pdeathsig', 'KILL', '--', ...program0] : [...program0];
    // A box's uid is its own: RLIMIT_NPROC caps its processes, a fork storm included.
    const nproc = uid !== null ? [`--nproc=${BOX_MAX_PROCESSES}`] : [];
    const [file0, wrapped0] =
      prlimit !== null
        ? [prlimit, [`--cpu=${soft}:${hard}`, '--core=0', ...nproc, '--', ...program]]
        : [
            '/bin/sh',
            [
              '-c',
              `ulimit -S -t ${soft} && ulimit -H -t ${hard} && ulimit -c 0 && exec "$@"`,
              'sh',
              ...program,
            ],
          ];
    // A box's first process joins its control group itself, before anything else runs in it.
    const joins = this.cgroup?.procsFiles ?? [];
    const [file, wrapped] =
      joins.length === 0
        ? [file0, wrapped0]
        : [
            '/bin/sh',
            [
              '-c',
              'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "spielhalle: cannot join the box\'s cgroup $1" >&2; exit 125; }; shift; n=$((n - 1)); done; exec "$@"',
              'sh',
              String(joins.length),
              ...joins,
              file0,
              ...wrapped0,
            ],
          ];

    const child = spawn(file, wrapped, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...(uid !== null ? { uid, gid: uid } : {}) });
    this.child = child;
    this.pid = child.pid;
    child.stdout.on('data', (chunk: Buffer) => this.stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    child.on('error', (err) => {
      if (this.pid === undefined) this.finish({ code: null, signal: null, error: err.message });
    });
    child.on('exit', (code, signal) => this.leaderExited(code, signal));
    if (this.pid === undefined) return; // 'error' follows
    if (options.pidDir !== undefined) this.noteGroup(options.pidDir, this.pid);
    // setTimeout takes at most 2³¹−1 ms (24.8 days).
    this.timers.push(setTimeout(() => this.limitKill('wall'), Math.min(wall * 1000, 2 ** 31 - 1)));
    watch(this.pid, (cpu, rss) => this.sample(cpu, rss));
  }

  private pidFile: string | null = null;

  /** Notes the group with its leader's start time, so that a leftover can be told from pid reuse. */
  private noteGroup(dir: string, pid: number): void {
    try {
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, String(pid));
      writeFileSync(file, `${startTimeOf(String(pid)) ?? 0}\n`);
      this.pidFile = file;
    } catch {
      // Only a safety net for a killed runner.
    }
  }

  private sample(cpuSeconds: number, rssBytes: number): void {
    if (this.leaderGone) return;
    this.lastCpu = Math.max(this.lastCpu, cpuSeconds);
    if (rssBytes > this.memoryBytes || (this.cgroup !== null && this.cgroup.oomKills() > 0)) this.limitKill('memory');
    else if (cpuSeconds > this.cpuLimit) this.limitKill('cpu');
  }

  private limitKill(limit: NonNullable<ProgramExit['limit']>): void {
    if (this.leaderGone || this.limitHit !== undefined) return;
    this.limitHit = limit;
    this.killGroup('SIGKILL');
  }

  private killGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is empty already.
    }
  }

  private leaderExited(code0: number | null, signal0: NodeJS.Signals | null): void {
    if (this.leaderGone) return;
    this.leaderGone = true;
    // bwrap ends with 128 + n when what it ran died of signal n: the program's own signal.
    let code = code0;
    let signal = signal0;
    if (this.relay !== null && code !== null && code > 128) {
      const name = Object.entries(osConstants.signals).find(([, n]) => n === code! - 128)?.[0] as NodeJS.Signals | undefined;
      if (name !== undefined) {
        signal = name;
        code = null;
      }
    }
    // Nothing of the group may outlive its leader (the pgid cannot be reused while members live).
    this.killGroup('SIGKILL');
    if (this.pid !== undefined) unwatch(this.pid);
    for (const t of this.timers) clearTimeout(t);
    let limit = this.limitHit;
    // The kernel's OOM killer at the box's memory limit (its control group) is the memory limit too.
    if (limit === undefined && this.cgroup !== null && this.cgroup.oomKills() > 0) limit = 'memory';
    if (
      limit === undefined &&
      (signal === 'SIGXCPU' || (signal === 'SIGKILL' && this.lastCpu >= this.cpuLimit))
    )
      limit = 'cpu';
    const exit: ProgramExit = { code, signal, ...(limit === undefined ? {} : { limit }) };
    const child = this.child;
    if (child === null) return this.finish(exit);
    // Let the pipes drain; a process that escaped the group (setsid) could hold them open.
    const streams = [child.stdout, child.stderr].filter((s) => s !== null && !s.closed);
    if (streams.length === 0) return this.finish(exit);
    let open = streams.length;
    const drained = setTimeout(() => {
      for (const s of streams) s?.destroy();
      this.finish(exit);
    }, DRAIN_MS);
    for (const s of streams) {
      s?.once('close', () => {
        if (--open === 0) {
          clearTimeout(drained);
          this.finish(exit);
        }
      });
    }
  }

  private finish(exit: ProgramExit): void {
    if (this.done) return;
    this.done = true;
    if (this.pidFile !== null) rmSync(this.pidFile, { force: true });
    const relay = this.relay;
    this.relay = null;
    void relay?.close();
    if (this.copyBack !== null) {
      try {
        cpSync(this.copyBack.from, this.copyBack.to, { recursive: true, force: true, preserveTimestamps: true, verbatimSymlinks: true });
      } catch {
        // What it wrote is lost for the next match; the match itself is over.
      }
    }
    if (this.runDir !== null) rmSync(this.runDir, { recursive: true, force: true });
    this.cgroup?.remove();
    this.leaderGone = true;
    for (const t of this.timers) clearTimeout(t);
    this.exit = exit;
    this.resolveExit(exit);
  }

  stop(): Promise<ProgramExit> {
    if (!this.done && this.pid === undefined && !this.stopping) {
      // Still setting up its box: it never runs.
      this.stopping = true;
      this.finish({ code: null, signal: 'SIGKILL' });
      return this.exited;
    }
    if (!this.done && !this.leaderGone && !this.stopping) {
      this.stopping = true;
      this.killGroup('SIGTERM');
      this.timers.push(setTimeout(() => this.killGroup('SIGKILL'), this.grace));
    }
    return this.exited;
  }
}

// One poller for all sandboxes: every POLL_MS it reads /proc/<pid>/stat of every process once and
// sums CPU time (utime+stime+cutime+cstime) and resident memory by process group.

type Sampler = (cpuSeconds: number, rssBytes: number) => void;
const watched = new Map<number, Sampler>();
let pollTimer: NodeJS.Timeout | null = null;
let pageSize: number | undefined;
const CLOCK_TICKS = 100; // USER_HZ: the unit of /proc/<pid>/stat times on every Linux ABI

function watch(pgid: number, sampler: Sampler): void {
  watched.set(pgid, sampler);
  if (pollTimer === null) {
    pollTimer = setInterval(pollGroups, POLL_MS);
    pollTimer.unref();
  }
}

function unwatch(pgid: number): void {
  watched.delete(pgid);
  if (watched.size === 0 && pollTimer !== null) {
    clearInterval(pollTimer);
    pollTimer = null;
  }
}

function getPageSize(): number {
  if (pageSize === undefined) {
    try {
      pageSize =
        Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8', timeout: 2000 }).trim()) || 4096;
    } catch {
      pageSize = 4096;
    }
  }
  return pageSize;
}

const statBuffer = Buffer.alloc(4096);

/** /proc/<pid>/stat with one open/read/close (half the cost of readFileSync, which also fstat()s). */
function readProcStat(pid: string): string | null {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return null;
  }
  try {
    return statBuffer.toString('latin1', 0, readSync(fd, statBuffer, 0, statBuffer.length, 0));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * One sample of every watched group: the processes in the group, and every descendant of its
 * leader that left the group (a box's processes are in sessions of their own; a daemon calls
 * setsid) — they count against the limits all the same.
 */
function pollGroups(): void {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return; // no procfs: only the wall clock and RLIMIT_CPU apply
  }
  const page = getPageSize();
  const procs = new Map<number, { ppid: number; pgid: number; ticks: number; rss: number }>();
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readProcStat(name);
    if (stat === null) continue; // gone meanwhile
    // Fields after "pid (comm) ": state ppid pgrp … utime(14) stime cutime cstime … rss(24).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    procs.set(Number(name), {
      ppid: Number(f[1]),
      pgid: Number(f[2]),
      ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
      rss: Number(f[21]) * page,
    });
  }
  // Which watched group a process belongs to: its own group, else the group its ancestors lead to.
  const owner = new Map<number, number | null>();
  const groupOf = (pid: number): number | null => {
    const known = owner.get(pid);
    if (known !== undefined) return known;
    const p = procs.get(pid);
    owner.set(pid, null); // a cycle guard while the chain is walked
    let g: number | null = null;
    if (p !== undefined) {
      if (watched.has(p.pgid)) g = p.pgid;
      else if (watched.has(pid)) g = pid;
      else if (p.ppid > 1) g = groupOf(p.ppid);
    }
    owner.set(pid, g);
    return g;
  };
  const totals = new Map<number, { ticks: number; rss: number }>();
  for (const [pid, p] of procs) {
    const pgid = groupOf(pid);
    if (pgid === null) continue;
    const t = totals.get(pgid);
    if (t === undefined) totals.set(pgid, { ticks: p.ticks, rss: p.rss });
    else {
      t.ticks += p.ticks;
      t.rss += p.rss;
    }
  }
  for (const [pgid, sampler] of [...watched]) {
    const t = totals.get(pgid);
    if (t !== undefined) sampler(t.ticks / CLOCK_TICKS, t.rss);
  }
}

/** Field 22 of /proc/<pid>/stat: when the process started (clock ticks since boot). */
function startTimeOf(pid: string): number | null {
  const stat = readProcStat(pid);
  if (stat === null) return null;
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/**
 * Kills what a runner that was itself killed (kill -9, a crash) left of its programs: every
 * process of a group noted in `pidDir` that started no earlier than the group's leader. (A group
 * id is the leader's pid; while any member lives it cannot be reused, and a process that started
 * before our leader cannot be in its group.) The leaders themselves died with the runner (parent-
 * death signal); this catches what they had started. Returns how many processes it killed.
 */
export function killLeftoverGroups(pidDir: string): number {
  let files: string[];
  try {
    files = readdirSync(pidDir);
  } catch {
    return 0;
  }
  const groups = new Map<number, number>();
  for (const name of files) {
    const pgid = Number(name);
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    let started = 0;
    try {
      started = Number(readFileSync(path.join(pidDir, name), 'utf8').trim()) || 0;
    } catch {
      // unreadable: treat as no start time known
    }
    groups.set(pgid, started);
  }
  let killed = 0;
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    // no procfs: the group kill below is all we can do
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57 || Number(name) === process.pid) continue;
    const stat = readProcStat(name);
    if (stat === null) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const started = groups.get(Number(f[2]));
    if (started === undefined || Number(f[19]) < started) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  for (const name of files) rmSync(path.join(pidDir, name), { force: true });
  return killed;
}
