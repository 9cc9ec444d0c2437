import { connect, type Socket } from 'node:net';
import { connectionLogger, logWire, silentLogger, type Logger } from '../../core/log.js';
import { GAME_TYPE } from './messages.js';
import {
  formatClient,
  STREAM_OPEN,
  type ClientPacket,
  type ServerPacket,
  type SlotDescriptor,
} from './protocol.js';
import { parseServer } from './protocol-read.js';
import { XmlStreamParser } from './xml/parser.js';

/**
 * An administrator's connection to any Software-Challenge 2022 server (spec §3.10), as the
 * official TestClient and the contest GUI use it: authenticate, prepare rooms with reservation
 * codes, observe, pause, step and cancel. `prepare` and `observe` wait for their answer; an
 * errorpacket for the request rejects it with the server's message.
 */

export interface OstseeschachAdminOptions {
  host: string;
  port: number;
  password: string;
  log?: Logger | undefined;
  /** Every packet received (observed rooms' mementos, results, `left`, errors). */
  onPacket?: ((packet: ServerPacket) => void) | undefined;
}

export interface Prepared {
  roomId: string;
  /** One code per reserved slot, in slot order. */
  reservations: string[];
}

const REQUEST_TIMEOUT_MS = 15_000;

interface Waiting {
  readonly request: 'prepare' | 'observe';
  readonly resolve: (packet: ServerPacket) => void;
  readonly reject: (error: Error) => void;
}

export class OstseeschachAdmin {
  private socket: Socket | null = null;
  private readonly parser = new XmlStreamParser();
  private readonly log: Logger;
  private readonly waiting: Waiting[] = [];
  private readonly listeners = new Set<(packet: ServerPacket) => void>();
  private closed = false;
  private closedPromise: Promise<void> = Promise.resolve();
  /** Errorpackets that answered no waiting request (a wrong password, a bad pause or step). */
  readonly errors: string[] = [];

  constructor(private readonly o: OstseeschachAdminOptions) {
    this.log = connectionLogger(o.log ?? silentLogger, { game: 'ostseeschach', conn: `admin@${o.host}:${o.port}` });
    if (o.onPacket) this.listeners.add(o.onPacket);
  }

  /** Connects and authenticates (the server answers only a wrong password). */
  async start(): Promise<void> {
    if (this.socket) throw new Error('OstseeschachAdmin already started');
    const socket = connect({ host: this.o.host, port: this.o.port, noDelay: true });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve();
      });
      socket.once('error', reject);
    });
    this.closedPromise = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.log.debug({ err: error }, 'admin connection failed'));
    socket.on('close', () => this.end(new Error('the server closed the admin connection')));
    socket.write(STREAM_OPEN);
    this.send({ type: 'authenticate', password: this.o.password });
  }

  /** Subscribes to every packet; returns the function that unsubscribes. */
  onPacket(listener: (packet: ServerPacket) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first packet (from now on) that `test` accepts; rejects after `timeoutMs`. */
  waitFor<T extends ServerPacket>(test: (packet: ServerPacket) => packet is T, timeoutMs: number): Promise<T>;
  waitFor(test: (packet: ServerPacket) => boolean, timeoutMs: number): Promise<ServerPacket>;
  waitFor(test: (packet: ServerPacket) => boolean, timeoutMs: number): Promise<ServerPacket> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no such packet within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onPacket((packet) => {
        if (!test(packet)) return;
        clearTimeout(timer);
        off();
        resolve(packet);
      });
    });
  }

  async prepare(slots: readonly SlotDescriptor[], pause = false): Promise<Prepared> {
    const answer = await this.request('prepare', { type: 'prepare', gameType: GAME_TYPE, pause, slots });
    if (answer.type !== 'prepared') throw new Error(`unexpected answer <${answer.type}>`);
    return { roomId: answer.roomId, reservations: [...answer.reservations] };
  }

  async observe(roomId: string): Promise<void> {
    await this.request('observe', { type: 'observe', roomId });
  }

  pause(roomId: string, pause: boolean): void {
    this.send({ type: 'pause', roomId, pause });
  }

  step(roomId: string, forced = false): void {
    this.send({ type: 'step', roomId, forced });
  }

  cancel(roomId: string): void {
    this.send({ type: 'cancel', roomId });
  }

  /** Says goodbye as the official clients do and waits (at most 2 s) for the server to close. */
  async close(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    this.send({ type: 'closeConnection' });
    const timer = setTimeout(() => socket.destroy(), 2000);
    timer.unref();
    await this.closedPromise;
    clearTimeout(timer);
  }

  /** Sends a request and waits for its answer, at most REQUEST_TIMEOUT_MS: a server may never answer. */
  private request(kind: Waiting['request'], packet: ClientPacket): Promise<ServerPacket> {
    if (this.closed) return Promise.reject(new Error('the admin connection is closed'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(waiting);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new Error(`no answer to <${kind}> within ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      timer.unref();
      const waiting: Waiting = {
        request: kind,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.waiting.push(waiting);
      this.send(packet);
    });
  }

  private send(packet: ClientPacket): void {
    const socket = this.socket;
    if (!socket || socket.destroyed || !socket.writable) return;
    const text = formatClient(packet);
    logWire(this.log, 'out', text);
    socket.write(text);
  }

  private receive(chunk: Buffer): void {
    for (const event of this.parser.write(chunk)) {
      if (event.type === 'close') this.socket?.end();
      if (event.type === 'error') this.log.warn({ code: event.code, error: event.message }, 'unreadable server stream');
      if (event.type !== 'packet') continue;
      logWire(this.log, 'in', event.raw);
      const parsed = parseServer(event.element);
      if (!parsed.ok) {
        this.log.warn({ error: parsed.error.message }, 'unreadable packet skipped');
        continue;
      }
      this.handle(parsed.value);
    }
  }

  private handle(packet: ServerPacket): void {
    const head = this.waiting[0];
    if (packet.type === 'errorpacket') {
      // The server answers requests in order, so an error about our oldest open request is its answer.
      if (head && packet.original?.type === head.request) {
        this.waiting.shift();
        head.reject(new Error(packet.message));
      } else {
        this.errors.push(packet.message);
        this.log.warn({ message: packet.message }, 'the server refused an admin request');
      }
    } else if (head && ((head.request === 'prepare' && packet.type === 'prepared') || (head.request === 'observe' && packet.type === 'observed'))) {
      this.waiting.shift();
      head.resolve(packet);
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(packet);
      } catch (error) {
        this.log.error({ err: error }, 'an admin listener failed');
      }
    }
  }

  private end(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(error);
  }
}
