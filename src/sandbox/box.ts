import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../core/errors.js';
import { workerUrl } from '../core/worker-url.js';

/**
 * One box (model: IOI's isolate): how an entrant's program runs in bubblewrap (`bwrap`, Debian
 * package `bubblewrap`). Its own user, PID, mount, IPC, UTS, cgroup and network namespaces, a new
 * session, death with its runner; as an unprivileged uid of its own when the runner is root; the
 * system directories read-only, its working directory a fresh copy in a size-capped tmpfs (or the
 * entrant's own directory, read-write, when the tournament says it keeps state), a private /tmp,
 * a /proc that shows the box alone; no network but loopback, where relay-inside.ts carries its
 * match's endpoint out through one Unix socket. docs/tournaments.md "Sandbox" says what each does.
 */

export type Isolation = 'bwrap' | 'none';

/** System directories a C/C++ binary, Java 17, Python 3 or Node needs, read-only when they exist. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];
/** Of /etc, only what programs read to start (never passwd/shadow or the server's own config). */
const ETC_ENTRIES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'java-17-openjdk',
  'ssl',
  'ca-certificates',
  'localtime',
  'mime.types',
  'python3',
  'python3.11',
];
/** Inside the box: where the relay's socket, the relay script and the entrant's files appear. */
export const BOX_RUN = '/run/box';
export const BOX_SOCKET = `${BOX_RUN}/relay.sock`;
/** Where the relay script appears in the box (`.mjs` when it is an ES module: relayPath). */
export const BOX_RELAY = `${BOX_RUN}/relay-inside.cjs`;
export const relayPath = (module: boolean): string => (module ? `${BOX_RUN}/relay-inside.mjs` : BOX_RELAY);
export const BOX_SOURCE = `${BOX_RUN}/source`;
/** The first of the uids boxes run as when the runner is root (like isolate's 60000 + box id). */
export const BOX_UID_BASE = 61_000;
export const BOX_UIDS = 4000;

export interface BoxPlan {
  /** The resolved program and its arguments. */
  argv: readonly string[];
  /** The entrant's directory (its program and data); the program runs there, at the same path. */
  cwd: string;
  /** true: the entrant's directory itself, read-write (the tournament keeps state between matches). */
  keepState: boolean;
  /** Further directories or files, read-only at the same path (the program's own files elsewhere). */
  readOnly: readonly string[];
  /** This run's directory outside: relay socket, generated /etc files. */
  runDir: string;
  relayScript: string;
  /** Whether the relay script is an ES module (the sources' bundle) rather than CommonJS. */
  relayModule: boolean;
  /** TCP and UDP ports of the match (the relay's spec). */
  tcp: readonly number[];
  udp: readonly number[];
  /** The uid and gid the box runs as (root runner), or null: the runner's own. */
  uid: number | null;
  env: Readonly<Record<string, string>>;
  /** Size caps of the working directory's and /tmp's tmpfs, in MiB. */
  diskMb: number;
  tmpMb: number;
  node: string;
  /**
   * A copy of the entrant's directory that the box's uid may read (the runner makes it: a
   * tournament's work directory may be private to the runner). The box copies it on into its
   * size-capped working directory, or with keepState works in it (the runner copies it back).
   */
  source: string;
}

let bwrapPath: string | null | undefined;

/** SPIELHALLE_BWRAP names a bwrap elsewhere (a build of its own, a Nix store path); alone then. */
export const BWRAP_ENV = 'SPIELHALLE_BWRAP';

export function findBwrap(): string | null {
  if (bwrapPath === undefined) {
    const chosen = process.env[BWRAP_ENV];
    const candidates = chosen !== undefined && chosen !== '' ? [chosen] : ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];
    bwrapPath = candidates.find((p) => existsSync(p)) ?? null;
  }
  return bwrapPath;
}

let probed: { ok: true } | { ok: false; why: string } | undefined;

/**
 * Whether boxes work on this machine: bwrap installed, and a box with every namespace starts (user
 * namespaces allowed; as root, also as an unprivileged uid). The reason when not.
 */
export function bwrapWorks(): { ok: true } | { ok: false; why: string } {
  if (probed !== undefined) return probed;
  const bwrap = findBwrap();
  const chosen = process.env[BWRAP_ENV];
  if (bwrap === null && chosen !== undefined && chosen !== '') return (probed = { ok: false, why: `${BWRAP_ENV}=${chosen}: no such file` });
  if (bwrap === null) return (probed = { ok: false, why: 'bubblewrap is not installed (Debian: apt-get install bubblewrap)' });
  const asRoot = process.getuid?.() === 0;
  const r = spawnSync(bwrap, ['--unshare-all', '--die-with-parent', '--new-session', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '/bin/true'], {
    encoding: 'utf8',
    timeout: 10_000,
    ...(asRoot ? { uid: BOX_UID_BASE, gid: BOX_UID_BASE } : {}),
  });
  if (r.error !== undefined) return (probed = { ok: false, why: `bwrap could not be run: ${r.error.message}` });
  if (r.status !== 0) return (probed = { ok: false, why: `bwrap cannot create namespaces here: ${(r.stderr || `exit ${String(r.status)}`).trim()}` });
  return (probed = { ok: true });
}

/**
 * For a runner that plays whatever tournament comes (a distributed worker): refuses to start where
 * entrant programs cannot be boxed, since each of them would otherwise lose its match unplayed.
 */
export function requireBoxes(who: string): void {
  const works = bwrapWorks();
  if (!works.ok)
    throw new UsageError(`${who} cannot box entrant programs: ${works.why}. Install bubblewrap (spielhalle doctor says what this machine gives); without boxes a program's matches would be lost unplayed`);
}

let nextBox = 0;

/** A uid for the next box (root runner): distinct among the boxes this process runs at once. */
export function boxUid(): number | null {
  if (process.getuid?.() !== 0) return null;
  // Spread over processes too (a coordinator and workers on one machine) by the pid.
  const slot = ((process.pid % 100) * 40 + (nextBox++ % 40)) % BOX_UIDS;
  return BOX_UID_BASE + slot;
}

/** `--ro-bind` for a path; a top-level symlink (merged /usr: /bin → usr/bin) stays a symlink. */
function roBind(p: string): string[] {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink() && path.dirname(p) === '/') return ['--symlink', readlinkSync(p), p];
  } catch {
    return [];
  }
  return ['--ro-bind', p, p];
}

/** The bwrap command line of a box: `bwrap … node relay-inside.js … -- program args`. */
export function bwrapArgv(plan: BoxPlan): string[] {
  const a: string[] = ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--disable-userns', '--hostname', 'box'];
  if (plan.uid !== null) a.push('--uid', String(plan.uid), '--gid', String(plan.uid));
  for (const dir of SYSTEM_DIRS) a.push(...roBind(dir));
  for (const entry of ETC_ENTRIES) if (existsSync(`/etc/${entry}`)) a.push('--ro-bind', `/etc/${entry}`, `/etc/${entry}`);
  for (const file of ['passwd', 'group', 'hosts', 'nsswitch.conf']) a.push('--ro-bind', path.join(plan.runDir, file), `/etc/${file}`);
  a.push('--proc', '/proc', '--dev', '/dev');
  a.push('--perms', '1777', '--size', String(plan.tmpMb * 1024 * 1024), '--tmpfs', '/tmp');
  // What the box needs of ours: the relay and its socket, in a directory of its own.
  const relay = relayPath(plan.relayModule);
  a.push('--dir', BOX_RUN, '--ro-bind', plan.relayScript, relay, '--bind', path.join(plan.runDir, 'relay.sock'), BOX_SOCKET);
  // The program's own files elsewhere, read-only; then the working directory (it may lie below).
  for (const p of plan.readOnly) if (existsSync(p)) a.push('--ro-bind', p, p);
  let copyFrom: string | undefined;
  if (plan.keepState) a.push('--bind', plan.source, plan.cwd);
  else {
    a.push('--ro-bind', plan.source, BOX_SOURCE);
    a.push('--perms', '0755', '--size', String(plan.diskMb * 1024 * 1024), '--tmpfs', plan.cwd);
    copyFrom = BOX_SOURCE;
  }
  a.push('--chdir', plan.cwd, '--clearenv');
  for (const [k, v] of Object.entries(plan.env)) a.push('--setenv', k, v);
  const spec = { tcp: plan.tcp, udp: plan.udp, cwd: plan.cwd, ...(copyFrom === undefined ? {} : { copyFrom }) };
  a.push('--', plan.node, relay, BOX_SOCKET, JSON.stringify(spec), '--', ...plan.argv);
  return a;
}

/** The /etc files a box gets instead of the machine's: a user for its uid, loopback names only. */
export function boxEtc(uid: number): Record<string, string> {
  return {
    passwd: `root:x:0:0:root:/root:/bin/sh\nbox:x:${uid}:${uid}:box:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nbox:x:${uid}:\nnogroup:x:65534:\n`,
    hosts: '127.0.0.1 localhost\n::1 localhost ip6-localhost\n',
    'nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files\n',
  };
}

/** Whether `p` is a directory (a read-only path of a command line is bound as its directory). */
export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The relay script a box runs first: the CommonJS bundle the build puts beside this file (Node
 * starts it without its ES module loader, sooner), else (the sources) an ES module bundle.
 */
export async function relayScriptPath(): Promise<{ file: string; module: boolean }> {
  const cjs = fileURLToPath(new URL('./relay-inside.cjs', import.meta.url));
  if (!import.meta.url.endsWith('.ts') && existsSync(cjs)) return { file: cjs, module: false };
  return { file: fileURLToPath(await workerUrl(import.meta.url, 'relay-inside')), module: true };
}
