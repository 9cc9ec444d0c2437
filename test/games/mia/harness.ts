import { VirtualClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import type { RecordStore } from '../../../src/core/records.js';
import { parseDice, type Dice } from '../../../src/games/mia/dice.js';
import { parseClient } from '../../../src/games/mia/protocol.js';
import { addressKey, MiaTable, type Address, type TableOptions } from '../../../src/games/mia/table.js';

/** A Mia table on a virtual clock with numbered tokens, recording what each address receives. */
export class Harness {
  readonly clock = new VirtualClock(0);
  readonly table: MiaTable;
  private readonly inboxes = new Map<string, string[]>();
  private tokenCount = 0;
  readonly orders: string[][] = [];
  readonly dice: Dice[] = [];

  constructor(options: Partial<TableOptions> & { store?: RecordStore | null } = {}) {
    this.table = new MiaTable({
      answerTimeoutMs: 250,
      heartbeatMs: 2000,
      minPlayers: 2,
      waitRecheckMs: 500,
      startEarly: false,
      maxClients: 100,
      seed: 'harness',
      port: 9000,
      clock: this.clock,
      log: silentLogger,
      store: null,
      send: (to, line) => {
        for (const a of to) this.inbox(a).push(line);
      },
      tokens: () => `tok-${++this.tokenCount}`,
      deal: {
        order: () => this.orders.shift(),
        dice: () => this.dice.shift(),
      },
      ...options,
    });
  }

  static addr(port: number, address = '127.0.0.1'): Address {
    return { address, port };
  }

  inbox(a: Address): string[] {
    const key = addressKey(a);
    let box = this.inboxes.get(key);
    if (!box) this.inboxes.set(key, (box = []));
    return box;
  }

  /** Everything `a` received since the last call, without heartbeats. */
  take(a: Address): string[] {
    const box = this.inbox(a);
    const out = box.filter((l) => l !== 'HEARTBEAT');
    box.length = 0;
    return out;
  }

  say(from: Address, datagram: string): string | null {
    const parsed = parseClient(datagram);
    if (!parsed.ok) return parsed.error.code;
    return this.table.receive(parsed.message, from, datagram);
  }

  /** The token of the last line `a` received that carries one (ROUND STARTING, YOUR TURN, ROLLED). */
  lastToken(a: Address): string {
    const box = this.inbox(a);
    for (let i = box.length - 1; i >= 0; i--) {
      const m = /;(tok-\d+)$/.exec(box[i] ?? '');
      if (m) return m[1] as string;
    }
    throw new Error(`${addressKey(a)} has no token`);
  }

  fixDice(...dice: string[]): void {
    for (const d of dice) this.dice.push(parseDice(d) as Dice);
  }
}

/** One line of a recorded transcript: a client's datagram (`send`) or what the server sent it (`recv`). */
export interface TranscriptLine {
  at: number | null;
  who: string;
  dir: 'send' | 'recv';
  line: string;
}

/** Reads both recorded formats of ../shared/specs/mia-wire (the scenario script and the timed session). */
export function parseTranscript(text: string): TranscriptLine[] {
  const out: TranscriptLine[] = [];
  for (const raw of text.split('\n')) {
    let m = /^\s+(\S+)\s+(->|<-)\s(.*)$/.exec(raw);
    if (m) {
      out.push({ at: null, who: m[1] as string, dir: m[2] === '->' ? 'send' : 'recv', line: m[3] as string });
      continue;
    }
    m = /^\s*(\d+)ms (C->S|S->C) (\S+)\s+"(.*)"$/.exec(raw);
    if (m) out.push({ at: Number(m[1]), who: m[3] as string, dir: m[2] === 'C->S' ? 'send' : 'recv', line: m[4] as string });
  }
  return out;
}
