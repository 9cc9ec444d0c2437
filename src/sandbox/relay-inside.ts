/**
 * The inside half of a box's network (docs/tournaments.md "Sandbox"): the first program a box
 * runs, inside its own network namespace, where nothing but loopback exists. It listens on
 * 127.0.0.1 at the ports of its match's game endpoint — the very ports the entrant's command line
 * names, so the program connects as it would outside — and carries every connection and datagram
 * over the one Unix socket bound into the box to the runner (relay.ts), which alone reaches the
 * game. Then it starts the entrant's program and ends with it.
 *
 * It imports Node's built-ins and frames.ts only, and is bundled into one file (the build's
 * relay-inside.cjs): the one file of ours that the box can read.
 *
 * usage: node relay-inside.js <socket> <spec-json> -- <program> [args…]
 *   spec: { tcp: number[], udp: number[], copyFrom?: string, cwd: string }
 *   tcp: ports the program connects to; udp: ports of the services it sends datagrams to. A
 *   datagram the runner sends in from an address of its own (a referee that calls the program's
 *   port) comes from a socket bound here at that address's port, so the program's answer goes
 *   back the same way.
 */
import { spawn } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { cpSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { frame, FrameReader } from './frames.js';

interface Spec {
  tcp: number[];
  udp: number[];
  copyFrom?: string;
  cwd: string;
}

const [socketPath, specText, dashes, ...program] = process.argv.slice(2);
if (socketPath === undefined || specText === undefined || dashes !== '--' || program.length === 0) {
  process.stderr.write('relay-inside: usage: relay-inside <socket> <spec-json> -- <program> [args…]\n');
  process.exit(125);
}
const spec = JSON.parse(specText) as Spec;

function listenTcp(port: number): Promise<void> {
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (inside: Socket) => {
    const outside = connect({ path: socketPath!, allowHalfOpen: true });
    outside.write(`${JSON.stringify({ tcp: port })}\n`);
    inside.pipe(outside);
    outside.pipe(inside);
    const close = (): void => {
      inside.destroy();
      outside.destroy();
    };
    inside.on('error', close);
    outside.on('error', close);
    inside.on('close', () => outside.end());
    outside.on('close', () => inside.end());
  });
  return new Promise((resolve) => {
    // A port the box may not bind (below 1024) only leaves the program without that endpoint.
    server.once('error', (error) => {
      process.stderr.write(`relay-inside: cannot offer 127.0.0.1:${port}: ${error.message}\n`);
      resolve();
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

/** One channel for every datagram: inside sources and mirror ports multiplexed by their port numbers. */
async function udpChannel(ports: readonly number[]): Promise<void> {
  const channel = connect({ path: socketPath! });
  channel.on('error', () => undefined);
  channel.write(`${JSON.stringify({ udp: true })}\n`);
  const mirrors = new Map<number, UdpSocket>();
  const mirror = (port: number): Promise<UdpSocket> => {
    const known = mirrors.get(port);
    if (known) return Promise.resolve(known);
    const socket = createSocket('udp4');
    mirrors.set(port, socket);
    // A datagram of the program to this port goes out as (port, its source port).
    socket.on('message', (msg, from) => channel.write(frame(port, from.port, msg)));
    socket.on('error', () => undefined);
    return new Promise((resolve) => socket.bind(port, '127.0.0.1', () => resolve(socket)));
  };
  await Promise.all(ports.map(mirror));
  const reader = new FrameReader();
  channel.on('data', (chunk: Buffer) => {
    // From outside port a to the program's port b: sent from a socket bound here at a.
    for (const { a: from, b: to, payload } of reader.push(chunk)) void mirror(from).then((socket) => socket.send(payload, to, '127.0.0.1'));
  });
}

async function main(): Promise<void> {
  if (spec.copyFrom !== undefined) cpSync(spec.copyFrom, spec.cwd, { recursive: true, preserveTimestamps: true });
  await Promise.all(spec.tcp.map(listenTcp));
  if (spec.udp.length > 0) await udpChannel(spec.udp);
  const child = spawn(program[0]!, program.slice(1), { cwd: spec.cwd, stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      // Die the same way, so the runner sees the program's signal.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(`relay-inside: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(125);
});
