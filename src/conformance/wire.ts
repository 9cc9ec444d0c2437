import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { ConformanceFailure, type Judgement, type ScriptedWire, type WireEntry } from '../core/conformance.js';
import type { Socket as DgramSocket } from 'node:dgram';
import { LineFramer, type FramedItem } from '../core/framing.js';
import type { ClientProcess } from './launch.js';
import { USUAL_READ_SIZES } from '../core/utf8-cuts.js';

/**
 * An entry of the wire log. `write` groups what went out in one write or datagram (S:) or came in
 * with one read or datagram (C:): entries with the same `write` and direction travelled together.
 * A line assembled from several writes has the id of the write of its first byte and `pieces`, the
 * number of writes it came in.
 */
export interface WireLogEntry extends WireEntry {
  write?: number;
  pieces?: number;
}

/** Bytes of a line that follow this soon after its last piece continue it; later ones start a new entry. */
export const FRAGMENT_MS = 200;

/**
 * The wire log of one scenario: times relative to its start. Text written in pieces (a packet
 * that ends without a newline, a line cut into several writes) is logged as lines: every
 * non-blank line is logged with its first byte, and bytes that follow within FRAGMENT_MS before its
 * newline continue it, so a last line without a newline is in the log as well.
 */
export class WireLog {
  readonly entries: WireLogEntry[] = [];
  private writes = 0;
  /** The unterminated last line per direction, still open for more bytes. */
  private readonly open = new Map<WireEntry['dir'], { entry: WireLogEntry | null; lastAt: number; write: number }>();
  constructor(readonly startedAt: number = Date.now()) {}
  now(): number {
    return Date.now() - this.startedAt;
  }
  add(dir: WireEntry['dir'], text: string, write?: number): void {
    this.entries.push({ atMs: this.now(), dir, text, ...(write !== undefined ? { write } : {}) });
  }
  /** A new group id: one write or datagram out, one read or datagram in. */
  nextWrite(): number {
    return ++this.writes;
  }
  /**
   * Logs the bytes of one write (or read) of a byte stream as lines: a newline ends a line, the text
   * after the last newline stays open for the next write within FRAGMENT_MS. Blank lines are not logged.
   */
  addStream(dir: WireEntry['dir'], text: string, write: number, show: (line: string) => string = (l) => l, joinMs = FRAGMENT_MS): void {
    const at = this.now();
    let open = this.open.get(dir);
    if (open !== undefined && at - open.lastAt > joinMs) open = undefined;
    const parts = text.split('\n');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (open !== undefined) {
        // The rest of a line begun in an earlier write.
        if (part !== '') {
          if (open.entry === null) {
            open.entry = { atMs: at, dir, text: '', write };
            this.entries.push(open.entry);
          } else if (open.write !== write) open.entry.pieces = (open.entry.pieces ?? 1) + 1;
          open.entry.text += show(part);
          open.write = write;
        }
      } else if (part !== '') {
        const entry: WireLogEntry = { atMs: at, dir, text: show(part), write };
        this.entries.push(entry);
        open = { entry, lastAt: at, write };
      } else open = { entry: null, lastAt: at, write };
      if (last) {
        open.lastAt = at;
        this.open.set(dir, open);
      } else open = undefined;
    });
    if (text.endsWith('\n')) this.open.delete(dir);
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

/** A multi-byte UTF-8 character that a write or datagram boundary (or a usual read size) cuts in two. */
export interface CharacterCut {
  atMs: number;
  /** The character, its code point and its length in bytes. */
  char: string;
  codePoint: number;
  bytes: number;
  /** The byte offset (in the write or datagram) that falls inside the character. */
  offset: number;
  /** Where: the TCP write's cut, or a usual read size of a datagram. */
  by: 'write' | 'read';
  /** The cuts of one write or datagram share this. */
  write: number;
  /** When the last piece of that write went out (a datagram: atMs). */
  doneAt: number;
  /** The line (or datagram) that holds it, and its length in bytes. */
  line: string;
  lineBytes: number;
}

/** The character of `data` around byte `offset` when `offset` falls inside a multi-byte character, else null. */
export function characterAcross(data: Buffer, offset: number): { char: string; codePoint: number; bytes: number } | null {
  if (offset <= 0 || offset >= data.length || (data[offset]! & 0xc0) !== 0x80) return null;
  let start = offset;
  while (start > 0 && (data[start]! & 0xc0) === 0x80 && offset - start < 4) start--;
  const lead = data[start]!;
  const bytes = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (bytes < 2 || start + bytes <= offset) return null;
  const char = data.subarray(start, start + bytes).toString('utf8');
  return { char, codePoint: char.codePointAt(0) ?? 0, bytes };
}

/** `"€" (U+20AC, 3 bytes)`. */
export function describeCharacter(c: { char: string; codePoint: number; bytes: number }): string {
  return `"${c.char}" (U+${c.codePoint.toString(16).toUpperCase().padStart(4, '0')}, ${c.bytes} bytes)`;
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
  /** When the client's side ended (wire time). */
  private endedAt: number | null = null;
  /** When the last client line (or datagram) arrived (wire time; -1: none yet). */
  private lastReceivedAt = -1;
  /** What the server wrote: each write (or datagram) with its lines, for the headlines (`afterSent`). */
  private readonly writes: { atMs: number; lines: readonly string[] }[] = [];
  /** Multi-byte characters that a write boundary, or a usual read size of a datagram, cut in two. */
  readonly cuts: CharacterCut[] = [];

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
    // What one read (one datagram) brought: the wire view groups it.
    const read = items.length > 0 ? this.log.nextWrite() : 0;
    if (items.length > 0) this.lastReceivedAt = this.log.now();
    for (const item of items) {
      if (item.kind === 'overlong') {
        this.log.add('received', `[a ${this.endpoint.kind === 'udp' ? 'datagram' : 'line'} of ${item.bytes} bytes, longer than ${this.options.maxLineBytes}]`, read);
        this.queue.push({ kind: 'overlong', bytes: item.bytes, sends: this.sends, at: this.log.now() });
      } else {
        this.log.add('received', this.shown(item.line), read);
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
    if (!this.ended_) this.endedAt = this.log.now();
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

  /** The warnings of this scenario (ScriptedWire.warn), each once, in order. */
  readonly warnings: string[] = [];

  warn(text: string): void {
    if (this.warnings.includes(text)) return;
    this.warnings.push(text);
    this.log.add('note', `WARNING: ${text}`);
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
        this.log.add('sent', this.shown(l), this.log.nextWrite());
        this.recordWrite([l]);
        // A client that receives into a buffer of a usual size cuts the datagram there.
        this.recordCuts(Buffer.from(l), USUAL_READ_SIZES, 'read', [l]);
        await this.write(l);
      }
      this.sends++;
      this.lastSendAt = this.log.now();
      return;
    }
    await this.writeStream(lines.map((l) => `${l}\n`).join(''), lines, options);
  }

  async sendRaw(text: string, options: { splitAt?: readonly number[]; gapMs?: number } = {}): Promise<void> {
    if (this.endpoint.kind === 'udp') {
      if (options.splitAt !== undefined && options.splitAt.length > 0) throw new Error('a datagram cannot be split (splitAt over UDP)');
      this.log.add('sent', this.shown(text), this.log.nextWrite());
      this.recordWrite([text]);
      this.recordCuts(Buffer.from(text), USUAL_READ_SIZES, 'read', [text]);
      await this.write(text);
      this.sends++;
      this.lastSendAt = this.log.now();
      return;
    }
    await this.writeStream(text, text.split('\n'), options);
  }

  /** TCP: `data` in one write, or cut at the byte offsets `splitAt` into several writes `gapMs` apart. */
  private async writeStream(data: string, lines: readonly string[], options: { splitAt?: readonly number[]; gapMs?: number }): Promise<void> {
    const bytes = Buffer.from(data);
    const cuts = [...(options.splitAt ?? [])].filter((n) => n > 0 && n < bytes.length).sort((a, b) => a - b);
    const shownLines = lines.filter((l) => l.trim() !== '');
    this.recordWrite(shownLines);
    if (cuts.length === 0) {
      this.log.addStream('sent', data, this.log.nextWrite(), visible);
      await this.write(bytes);
    } else {
      // Noted now (the client reads the first piece at once), logged after the pieces.
      const notes = this.recordCuts(bytes, cuts, 'write', lines);
      // A cut may fall inside a UTF-8 character: the decoder keeps its first bytes for the next piece.
      const decoder = new StringDecoder('utf8');
      let start = 0;
      for (const cut of [...cuts, bytes.length]) {
        // The pieces of these lines continue them however late they come (gapMs).
        this.log.addStream('sent', decoder.write(bytes.subarray(start, cut)), this.log.nextWrite(), visible, start === 0 ? FRAGMENT_MS : Infinity);
        if (cut === bytes.length) {
          this.log.add('note', `(the ${shownLines.length} line(s) above in ${cuts.length + 1} writes, cut at bytes ${cuts.join(', ')})`);
          for (const note of notes) this.log.add('note', note);
          for (const c of this.cuts) if (c.write === this.writes.length) c.doneAt = this.log.now();
        }
        await this.write(bytes.subarray(start, cut));
        start = cut;
        if (cut < bytes.length) await this.delay(options.gapMs ?? 15);
      }
    }
    this.sends++;
    this.lastSendAt = this.log.now();
  }

  private recordWrite(lines: readonly string[]): void {
    this.writes.push({ atMs: this.log.now(), lines });
  }

  /** Notes every multi-byte character that one of `offsets` of `data` (one write or datagram) falls inside. */
  private recordCuts(data: Buffer, offsets: readonly number[], by: CharacterCut['by'], lines: readonly string[]): string[] {
    const notes: string[] = [];
    for (const offset of offsets) {
      const c = characterAcross(data, offset);
      if (c === null) continue;
      // The line that holds the character (a datagram is one line).
      let start = 0;
      let line = lines[0] ?? '';
      for (const l of lines) {
        const end = start + Buffer.byteLength(l) + (this.endpoint.kind === 'udp' ? 0 : 1);
        line = l;
        if (offset < end) break;
        start = end;
      }
      const now = this.log.now();
      const cut: CharacterCut = { atMs: now, doneAt: now, ...c, offset, by, write: this.writes.length, line, lineBytes: Buffer.byteLength(line) };
      this.cuts.push(cut);
      notes.push(
        by === 'write'
          ? `(a write of the server ends inside ${describeCharacter(c)} at byte ${offset}: the character comes in two writes)`
          : `(${describeCharacter(c)} lies across byte ${offset} of this ${data.length}-byte datagram: a receive buffer of ${offset} bytes cuts it)`,
      );
    }
    // A datagram's notes follow it at once; a write's after its pieces (writeStream).
    if (by === 'read') for (const note of notes) this.log.add('note', note);
    return notes;
  }

  /**
   * The characters cut in the latest write (or datagram) with cuts before `atMs`, when the client
   * has sent nothing since (but lines that crossed it, up to FRAGMENT_MS after its last piece): the
   * likely cause of what it did then. Null when there is none.
   */
  cutBefore(atMs: number): CharacterCut[] | null {
    const last = [...this.cuts].reverse().find((c) => c.atMs <= atMs);
    // A line sent once the whole write was there (and had time to be read) shows the client read on.
    if (last === undefined || this.lastReceivedAt > last.doneAt + FRAGMENT_MS) return null;
    return this.cuts.filter((c) => c.write === last.write);
  }

  /**
   * How cuts read in a headline: `the server's 3101-byte line "{…", whose "ä" (U+00E4, 2 bytes)
   * came in two writes, cut at byte 1000 of the write, and "€" (U+20AC, 3 bytes) at byte 1024`.
   */
  describeCut(cuts: readonly CharacterCut[]): string {
    const first = cuts[0]!;
    const list = (at: (c: CharacterCut) => string): string => {
      const parts = cuts.map((c) => `${describeCharacter(c)} ${at(c)}`);
      return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
    };
    if (first.by === 'write')
      return `the server's ${first.lineBytes}-byte line "${preview(first.line)}", whose ${list((c) => (c === first ? `came in two writes, cut at byte ${c.offset} of the write` : `at byte ${c.offset}`))}`;
    return `the server's ${first.lineBytes}-byte datagram "${preview(first.line)}", in which ${list((c) => `${c === first ? 'lies ' : ''}across byte ${c.offset}`)} (a receive buffer of that many bytes cuts it)`;
  }

  /**
   * What the server sent last before `atMs`, for a headline that starts with what the client did:
   * `3 ms after the server's 1024-byte line "+ xxx…"` — the longest line of the last write when it
   * is over 255 bytes (the smallest line buffers), else its last line; with the character a cut
   * split when the client has sent nothing since.
   */
  afterSent(atMs: number): string {
    const cut = this.cutBefore(atMs);
    if (cut !== null) return `${atMs - cut[0]!.atMs} ms after ${this.describeCut(cut)}`;
    const last = [...this.writes].reverse().find((w) => w.atMs <= atMs);
    if (last === undefined) return 'before the server had sent anything';
    const long = last.lines.find((l) => Buffer.byteLength(l) > LONG_LINE_BYTES);
    const line = long ?? last.lines[last.lines.length - 1] ?? '';
    const what = this.endpoint.kind === 'udp' ? 'datagram' : 'line';
    return `${atMs - last.atMs} ms after the server's ${long !== undefined ? `${Buffer.byteLength(long)}-byte ${what}` : what} "${preview(line)}"`;
  }

  /**
   * When the last line `next`, `expect` and the like returned was read (ms since the session
   * began): a kit slowed by a busy machine may take a line at its deadline that came well after
   * it, and a timed cut (the server ends the game "while the client thinks") must know that.
   */
  get lastTakenAt(): number {
    return this.lastTaken;
  }

  private lastTaken = -1;

  private async take(withinMs: number): Promise<Item | 'timeout' | 'ended'> {
    const deadline = Date.now() + this.scaled(withinMs);
    for (;;) {
      const item = this.queue.shift();
      if (item) {
        this.lastTaken = item.at;
        return item;
      }
      if (this.ended_) return 'ended';
      const left = deadline - Date.now();
      if (left <= 0 || !(await this.waitChange(left))) {
        const late = this.queue.shift();
        if (late) this.lastTaken = late.at;
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
    if (item === 'timeout') this.fail(`sent nothing where the server expected ${what} (waited ${this.scaled(withinMs)} ms)`, judgement);
    if (item === 'ended') this.fail(`${this.endedText()}; the server expected ${what}`, judgement);
    if (item.kind === 'overlong') this.fail(`sent a line of ${item.bytes} bytes (the server reads at most ${this.options.maxLineBytes}) where the server expected ${what}`, judgement);
    if (!pattern.test(item.line)) this.fail(`sent "${visible(item.raw)}" where the server expected ${what}`, judgement);
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
    if (options.code !== undefined && exit.code !== options.code) this.fail(`exited with code ${String(exit.code)} ${what}; it must exit with code ${options.code}`, judgement);
    const rest = this.queue.find((i): i is Extract<Item, { kind: 'line' }> => i.kind === 'line');
    if (rest) this.fail(`sent "${visible(rest.raw)}" ${what}`, judgement);
  }

  ended(): boolean {
    return this.ended_;
  }

  exited(): { code: number | null; signal: string | null } | null {
    return this.client.exit();
  }

  /** `closed the connection 3 ms after the server's 1024-byte line "+ …" (its process exited with code 1)`. */
  private endedText(): string {
    const at = this.endedAt ?? this.log.now();
    return `${this.endpoint.kind === 'udp' ? 'stopped' : 'closed the connection'} ${this.afterSent(at)}${this.exitText()}`;
  }

  private exitText(): string {
    const e = this.client.exit();
    if (e === null) return '';
    return e.signal !== null ? ` (its process was killed by ${e.signal})` : ` (its process exited with code ${String(e.code)})`;
  }
}

/** A line longer than this is named with its length in a headline: the smallest line buffers students use hold 256 bytes. */
export const LONG_LINE_BYTES = 255;

/** The start of a line for a headline. */
function preview(line: string): string {
  const shown = visible(line.replace(/^\s+/, ''));
  return shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
}

/** How much of an unterminated last line the log shows (characters). */
const TAIL_SHOWN = 400;

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
      // Line protocols: the bytes after the client's last newline, logged if the connection ends
      // before the newline comes (the server never reads them as a line, but they arrived).
      const lines = framer instanceof LineFramer ? framer : null;
      let tail: Buffer[] = [];
      let tailBytes = 0;
      const logTail = (): void => {
        if (lines === null || tailBytes === 0 || lines.overflowing) return;
        const text = Buffer.concat(tail).toString('utf8');
        tail = [];
        tailBytes = 0;
        if (text.replace(/\r$/, '').trim() === '') return;
        log.add('received', visible(text.slice(0, TAIL_SHOWN)) + (text.length > TAIL_SHOWN ? '…' : ''), log.nextWrite());
        log.add('note', '(the line above ended without a newline when the connection ended: the server never reads it)');
      };
      socket.on('data', (chunk: Buffer) => {
        if (lines !== null) {
          const nl = chunk.lastIndexOf(0x0a);
          if (nl >= 0) {
            tail = [];
            tailBytes = 0;
          }
          const rest = nl >= 0 ? chunk.subarray(nl + 1) : chunk;
          if (rest.length > 0 && tailBytes < TAIL_SHOWN * 4) {
            tail.push(rest);
            tailBytes += rest.length;
          }
        }
        conn.receive(framer.push(chunk));
      });
      socket.on('end', () => {
        logTail();
        conn.markEnded('the client closed its side of the connection (FIN)');
      });
      socket.on('close', () => {
        logTail();
        conn.markEnded();
      });
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
