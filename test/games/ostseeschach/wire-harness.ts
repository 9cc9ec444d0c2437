import { readFileSync } from 'node:fs';
import { VirtualClock } from '../../../src/core/clock.js';
import { silentLogger, type Logger } from '../../../src/core/log.js';
import type { RecordStore } from '../../../src/core/records.js';
import type { Connection } from '../../../src/games/ostseeschach/connection.js';
import {
  createOstseeschachServer,
  type OstseeschachServer,
  type OstseeschachServerInput,
} from '../../../src/games/ostseeschach/server.js';
import type { Move } from '../../../src/games/ostseeschach/board.js';
import type { GameResult, ServerPacket } from '../../../src/games/ostseeschach/protocol.js';
import { parseServer } from '../../../src/games/ostseeschach/protocol-read.js';
import { legalMoves, type State } from '../../../src/games/ostseeschach/rules.js';
import { fromSetup } from '../../../src/games/ostseeschach/setup.js';
import { parsePackets } from '../../../src/games/ostseeschach/xml/parser.js';

/** The recordings of the official server (copied unchanged from the spec). */
export const wire = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ostseeschach/wire/${name}`, import.meta.url), 'utf8');

export const layout = (name: string) => {
  const r = fromSetup(name);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

export interface HarnessOptions extends Partial<Omit<OstseeschachServerInput, 'log' | 'store'>> {
  /** Room ids handed out in order; then `room-<n>`. */
  rooms?: string[];
  /** Start layouts of the rooms in order (`RMRSHSMH`); then drawn from the seed. */
  layouts?: string[];
  log?: Logger;
  store?: RecordStore | null;
}

/** A server on a virtual clock whose clients are in-memory pipes: every reply is there at once. */
export class Harness {
  readonly clock = new VirtualClock(1_000_000);
  readonly server: OstseeschachServer;
  private roomCount = 0;
  private codeCount = 0;

  constructor(options: HarnessOptions = {}) {
    const rooms = [...(options.rooms ?? [])];
    const layouts = [...(options.layouts ?? [])];
    this.server = createOstseeschachServer({
      port: 0,
      seed: 'harness',
      clock: this.clock,
      roomIds: () => rooms.shift() ?? `room-${++this.roomCount}`,
      reservationCodes: () => `code-${++this.codeCount}`,
      startPosition: () => {
        const name = layouts.shift();
        return name === undefined ? undefined : layout(name);
      },
      ...options,
      log: options.log ?? silentLogger,
      store: options.store ?? null,
    });
  }

  /** A client; `host` is its remote IP as the per-host limits see it (default: its own name). */
  connect(name = 'client', host?: string): MemoryClient {
    return new MemoryClient(this.server, name, host);
  }
}

/** One client over an in-memory transport: what it sends goes straight in, replies pile up. */
export class MemoryClient {
  received = '';
  ended = false;
  private read = 0;
  readonly connection: Connection;

  constructor(
    server: OstseeschachServer,
    readonly name: string,
    host?: string,
  ) {
    this.connection = server.attach(
      {
        write: (data) => {
          if (this.ended) throw new Error(`${name}: write after end`);
          this.received += data;
        },
        end: () => {
          this.ended = true;
        },
      },
      `${name}:1`,
      host,
    );
  }

  send(text: string): this {
    this.connection.receive(Buffer.from(text, 'utf8'));
    return this;
  }

  /** The client closes its socket (FIN). */
  close(): void {
    this.connection.remoteClosed();
  }

  /** What arrived since the last call. */
  take(): string {
    const out = this.received.slice(this.read);
    this.read = this.received.length;
    return out;
  }
}

/** Every packet of a server stream so far (the open root is fine; a closed one too). */
export function serverPackets(stream: string): ServerPacket[] {
  const text = stream.startsWith('<protocol') ? stream : '<protocol>' + stream;
  return parsePackets(text).packets.map((e) => {
    const r = parseServer(e);
    if (!r.ok) throw new Error(`unreadable server packet: ${r.error.message}`);
    return r.value;
  });
}

/** The room messages of a stream, as `class` names (`memento`, `moveRequest`, …), and `left`/errorpackets. */
export const kinds = (stream: string): string[] =>
  serverPackets(stream).map((p) => (p.type === 'room' ? p.data.class : p.type));

export function lastState(stream: string): State {
  const mementos = serverPackets(stream).flatMap((p) =>
    p.type === 'room' && p.data.class === 'memento' ? [p.data.state] : [],
  );
  const last = mementos[mementos.length - 1];
  if (!last) throw new Error('no memento yet');
  return last;
}

export function resultOf(stream: string): GameResult {
  const found = serverPackets(stream).flatMap((p) =>
    p.type === 'room' && p.data.class === 'result' ? [p.data.result] : [],
  );
  if (found.length !== 1) throw new Error(`expected one result, found ${found.length}`);
  return found[0]!;
}

export const moveXml = (room: string, m: Move): string =>
  `<room roomId="${room}"><data class="move"><from x="${m.from.x}" y="${m.from.y}"/><to x="${m.to.x}" y="${m.to.y}"/></data></room>`;

/** Plays the first legal move for whoever `client` is, from the latest memento it received. */
export function playFirstLegal(client: MemoryClient, room: string): Move {
  const m = legalMoves(lastState(client.received))[0];
  if (!m) throw new Error('no legal move');
  client.send(moveXml(room, m));
  return m;
}
