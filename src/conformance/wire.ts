import type { Socket } from 'node:net';
import { ConformanceFailure, type Judgement, type ScriptedWire, type WireEntry } from '../core/conformance.js';
import type { Socket as DgramSocket } from 'node:dgram';
import type { FramedItem } from '../core/framing.js';
import type { ClientProcess } from './launch.js';

/** The wire log of one scenario: times relative to its start. */
export class WireLog {
  readonly entries: WireEntry[] = [];
  constructor(readonly startedAt: number = Date.now()) {}
  now(): number {
    return Date.now() - this.startedAt;
  }
  add(dir: WireEntry['dir'], text: string): void {
    this.entries.push({ atMs: this.now(), dir, text });
  }
}

type Item =
  | { kind: 'line'; raw: string; line: string; sends: number; at: number }
  | { kind: 'overlong'; bytes: number; sends: number; at: number };

/** Shows control characters of a raw line, so that `\r` or NULs are visible in the report. */
export function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * How the scripted side reaches the client: one TCP connection, or a UDP socket (a datagram per
 * message, to the address the client's last datagram came from).
 */
export interface Endpoint {
  readonly kind: 'tcp' | 'udp';
  /** One write (TCP) or one datagram (UDP); resolves when it has been handed to the system. */
  write(data: Buffer): Promise<void>;
  halfClose(): Promise<void>;
  close(): void;
}

/**
 * The scripted server's end of the client's connection: messages in (framed, normalized, queued
 * with how many sends were complete when they arrived), writes out, and the judgements of
 * core/conformance.ts's ScriptedWire.
 */
export class ScriptedConnection implements ScriptedWire {
  private readonly queue: Item[] = [];
  private waiter: (() => void) | null = null;
  private sends = 0;
  /** When the last send was complete (wire time). */
  private lastSendAt = 0;
  private ended_ = false;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly log: WireLog,
    private readonly client: ClientProcess,
    private readonly options: {
      scale: number;
      maxLineBytes: number;
      normalize?: ((line: string) => string | null) | undefined;
      addresses: { host: string; port: number; clientPort: number };
    },
  ) {}

  addresses(): { host: string; port: number; clientPort: number } {
    return { ...this.options.addresses };
  }

  /** What arrived from the client (framed by the endpoint). */
  receive(items: readonly FramedItem[]): void {
    for (const item of items) {
      if (item.kind === 'overlong') {
        this.log.add('received', `[a ${this.endpoint.kind === 'udp' ? 'datagram' : 'line'} of ${item.bytes} bytes, longer than ${this.options.maxLineBytes}]`);
        this.queue.push({ kind: 'overlong', bytes: item.bytes, sends: this.sends, at: this.log.now() });
      } else {
        this.log.add('received', this.shown(item.line));
        const line = this.options.normalize ? this.options.normalize(item.line) : item.line;
        if (line !== null) this.queue.push({ kind: 'line', raw: item.line, line, sends: this.sends, at: this.log.now() });
      }
    }
    this.wake();
  }

  /** A line as the log shows it (in a datagram a newline is a character like any other). */
  private shown(text: string): string {
    return this.endpoint.kind === 'udp' ? visible(text).replace(/\n/g, '\\x0a') : visible(text);
  }

  /** The client is gone (TCP: its side closed; UDP: its process exited). */
  markEnded(note?: string): void {
    if (note !== undefined && !this.ended_) this.log.add('note', note);
    this.ended_ = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Waits until something changes (a line, the end) or `ms` pass; false on timeout. */
  private waitChange(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(false);
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  scaled(ms: number): number {
    return Math.round(ms * this.options.scale);
  }

  now(): number {
    return this.log.now();
  }

  note(text: string): void {
    this.log.add('note', text);
  }

  fail(message: string, judgement: Partial<Judgement> = {}): never {
    throw new ConformanceFailure(message, judgement);
  }

  private write(data: string | Buffer): Promise<void> {
    return this.endpoint.write(typeof data === 'string' ? Buffer.from(data) : data);
  }

  async send(lines: readonly string[], options: { splitAt?: readonly number[]; gapMs?: number } = {}): Promise<void> {
    if (this.endpoint.kind === 'udp') {
      if (options.splitAt !== undefined && options.splitAt.length > 0) throw new Error('a datagram cannot be split (splitAt over UDP)');
      for (const l of lines) {
        this.log.add('sent', this.shown(l));
        await this.write(l);
      }
      this.sends++;
      this.lastSendAt = this.log.now();
      return;
    }
    const data = lines.map((l) => `${l}\n`).join('');
    const cuts = [...(options.splitAt ?? [])].filter((n) => n > 0 && n < Buffer.byteLength(data)).sort((a, b) => a - b);
    for (const l of lines) this.log.add('sent', visible(l));
    if (cuts.length === 0) {
      await this.write(data);
    } else {
      this.log.add('note', `(the ${lines.length} line(s) above in ${cuts.length + 1} writes, cut at bytes ${cuts.join(', ')})`);
      const bytes = Buffer.from(data);
      let start = 0;
      for (const cut of [...cuts, bytes.length]) {
        await this.write(bytes.subarray(start, cut));
        start = cut;
        if (cut < bytes.length) await this.delay(options.gapMs ?? 15);
      }
    }
    this.sends++;
    this.lastSendAt = this.log.now();
  }

  async sendRaw(text: string): Promise<void> {
    if (this.endpoint.kind === 'udp') this.log.add('sent', this.shown(text));
    else for (const l of text.split('\n').slice(0, -1)) this.log.add('sent', visible(l));
    await this.write(text);
    this.sends++;
    this.lastSendAt = this.log.now();
  }

  private async take(withinMs: number): Promise<Item | 'timeout' | 'ended'> {
    const deadline = Date.now() + this.scaled(withinMs);
    for (;;) {
      const item = this.queue.shift();
      if (item) return item;
      if (this.ended_) return 'ended';
      const left = deadline - Date.now();
      if (left <= 0 || !(await this.waitChange(left))) {
        const late = this.queue.shift();
        return late ?? 'timeout';
      }
    }
  }

  async takeCrossedWithin(graceMs: number): Promise<string[]> {
    const until = this.lastSendAt + this.scaled(graceMs);
    const wait = until - this.log.now();
    if (wait > 0) await this.delay(wait);
    return this.takeCrossed(until);
  }

  takeCrossed(until = -1): string[] {
    const crossed: string[] = [];
    while (this.queue[0] !== undefined && (this.queue[0].sends < this.sends || this.queue[0].at <= until)) {
      const item = this.queue.shift()!;
      if (item.kind === 'line') crossed.push(item.line);
    }
    if (crossed.length > 0) this.log.add('note', `(${crossed.length} line(s) crossed the server's last message on the wire: not judged)`);
    return crossed;
  }

  async next(withinMs: number): Promise<string | null> {
    const item = await this.take(withinMs);
    if (item === 'timeout' || item === 'ended') return null;
    if (item.kind === 'overlong') this.fail(`sent a line of ${item.bytes} bytes; the server reads at most ${this.options.maxLineBytes}`);
    return item.line;
  }

  async expect(pattern: RegExp, withinMs: number, what: string, judgement: Partial<Judgement> = {}): Promise<string> {
    const sendsNow = this.sends;
    const item = await this.take(withinMs);
    if (item === 'timeout') this.fail(`expected ${what}, but nothing came (waited ${this.scaled(withinMs)} ms)`, judgement);
    if (item === 'ended') this.fail(`expected ${what}, but the client ${this.endpoint.kind === 'udp' ? 'stopped' : 'closed the connection'}${this.exitText()}`, judgement);
    if (item.kind === 'overlong') this.fail(`expected ${what}, but got a line of ${item.bytes} bytes (the server reads at most ${this.options.maxLineBytes})`, judgement);
    if (!pattern.test(item.line)) this.fail(`expected ${what}, got "${visible(item.raw)}"`, judgement);
    if (item.sends < sendsNow)
      this.fail(`sent "${visible(item.raw)}" before the server had finished its last message: a client line answers only what the server has sent completely`, judgement);
    return item.line;
  }

  async expectSilence(ms: number, what: string, judgement: Partial<Judgement> = {}): Promise<void> {
    const item = await this.take(ms);
    if (item === 'timeout' || item === 'ended') return;
    const text = item.kind === 'line' ? `"${visible(item.raw)}"` : `a line of ${item.bytes} bytes`;
    this.fail(`sent ${text} ${what}`, judgement);
  }

  delay(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  async halfClose(): Promise<void> {
    this.log.add('note', this.endpoint.kind === 'udp' ? 'the server stops sending' : 'the server closed the connection (FIN)');
    await this.endpoint.halfClose();
  }

  close(): void {
    this.log.add('note', this.endpoint.kind === 'udp' ? 'the server closed its socket' : 'the server closed the connection');
    this.endpoint.close();
  }

  async expectClose(withinMs: number, what: string, judgement: Partial<Judgement> = {}): Promise<void> {
    if (this.endpoint.kind === 'udp') throw new Error('expectClose has no meaning over UDP: use expectExit');
    const item = await this.take(withinMs);
    if (item === 'ended') return;
    if (item === 'timeout') this.fail(`did not close the connection within ${this.scaled(withinMs)} ms ${what}`, judgement);
    const text = item.kind === 'line' ? `"${visible(item.raw)}"` : `a line of ${item.bytes} bytes`;
    this.fail(`sent ${text} ${what}`, judgement);
  }

  async expectExit(withinMs: number, what: string, options: { code?: number; judgement?: Partial<Judgement> } = {}): Promise<void> {
    const judgement = options.judgement ?? {};
    const ms = this.scaled(withinMs);
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      this.client.exited,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms))),
    ]);
    clearTimeout(timer);
    if (exit === null) this.fail(`did not exit within ${ms} ms ${what}`, judgement);
    this.log.add('note', `the client exited (${exit.signal !== null ? `signal ${exit.signal}` : `code ${String(exit.code)}`})`);
    if (exit.signal !== null) this.fail(`was killed by ${exit.signal} ${what}`, judgement);
    if (options.code !== undefined && exit.code !== options.code) this.fail(`exited with code ${String(exit.code)} ${what}; expected ${options.code}`, judgement);
    const rest = this.queue.find((i): i is Extract<Item, { kind: 'line' }> => i.kind === 'line');
    if (rest) this.fail(`sent "${visible(rest.raw)}" ${what}`, judgement);
  }

  ended(): boolean {
    return this.ended_;
  }

  exited(): { code: number | null; signal: string | null } | null {
    return this.client.exit();
  }

  private exitText(): string {
    const e = this.client.exit();
    if (e === null) return '';
    return e.signal !== null ? ` (its process was killed by ${e.signal})` : ` (its process exited with code ${String(e.code)})`;
  }
}

/** The TCP endpoint: one accepted connection, its bytes cut into messages by `framer`. */
export function tcpEndpoint(socket: Socket, log: WireLog, framer: { push(chunk: Buffer): FramedItem[] }): { endpoint: Endpoint; attach(conn: ScriptedConnection): void } {
  socket.setNoDelay(true);
  const endpoint: Endpoint = {
    kind: 'tcp',
    write: (data) => (socket.destroyed || !socket.writable ? Promise.resolve() : new Promise((resolve) => socket.write(data, () => resolve()))),
    halfClose: () => (socket.destroyed ? Promise.resolve() : new Promise<void>((resolve) => socket.end(() => resolve()))),
    close: () => socket.destroy(),
  };
  return {
    endpoint,
    attach: (conn) => {
      socket.on('data', (chunk: Buffer) => conn.receive(framer.push(chunk)));
      socket.on('end', () => conn.markEnded('the client closed its side of the connection (FIN)'));
      socket.on('close', () => conn.markEnded());
      socket.on('error', (e) => log.add('note', `connection error: ${e.message}`));
    },
  };
}

/**
 * The UDP endpoint: the scripted side's bound socket. Datagrams go to where the client's last one
 * came from, before the first to `initialTarget` (the port the client was told to bind).
 */
export function udpEndpoint(socket: DgramSocket, log: WireLog, maxBytes: number, initialTarget: { address: string; port: number }): { endpoint: Endpoint; attach(conn: ScriptedConnection): void } {
  let target = initialTarget;
  let closed = false;
  const endpoint: Endpoint = {
    kind: 'udp',
    write: (data) =>
      closed
        ? Promise.resolve()
        : new Promise((resolve) =>
            socket.send(data, target.port, target.address, (e) => {
              if (e) log.add('note', `send error: ${e.message}`);
              resolve();
            }),
          ),
    halfClose: () => Promise.resolve(),
    close: () => {
      if (closed) return;
      closed = true;
      socket.close();
    },
  };
  return {
    endpoint,
    attach: (conn) => {
      socket.on('message', (msg: Buffer, from) => {
        if (from.port !== target.port || from.address !== target.address) {
          log.add('note', `datagrams now from ${from.address}:${from.port}`);
          target = { address: from.address, port: from.port };
        }
        conn.receive([msg.length > maxBytes ? { kind: 'overlong', bytes: msg.length } : { kind: 'line', line: msg.toString('utf8') }]);
      });
      socket.on('error', (e) => log.add('note', `socket error: ${e.message}`));
    },
  };
}
