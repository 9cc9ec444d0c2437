import type { VirtualClock } from '../../../src/core/clock.js';
import { Rng } from '../../../src/core/rng.js';
import {
  addressKey,
  Peer,
  type Address,
  type C4GameRecord,
  type PeerEvent,
  type PeerOptions,
} from '../../../src/games/connect4/peer.js';
import { apply, initialState, status, type C4State, type Player } from '../../../src/games/connect4/rules.js';

/**
 * An in-memory UDP network on a VirtualClock: broadcasts reach every node on the target port (the
 * sender included, so the echo filter is exercised), and links can lose, duplicate, delay and
 * reorder datagrams from a seeded RNG.
 */

export const BROADCAST: Address = { address: '255.255.255.255', port: 32442 };

export interface Sent {
  at: number;
  from: string;
  to: string;
  line: string;
}

export interface NetOptions {
  /** Delay of one datagram in ms (default 0). */
  latency?: (from: Address, to: Address) => number;
  /** Extra random delay up to this many ms (reorders datagrams). */
  jitterMs?: number;
  loss?: number;
  duplicate?: number;
  seed?: string;
  /** Return false to drop this datagram (scripted losses). */
  filter?: (d: Sent) => boolean;
}

type Receiver = (data: string, from: Address) => void;

export class MemoryNet {
  readonly sent: Sent[] = [];
  private readonly nodes = new Map<string, { addr: Address; receive: Receiver }>();
  private readonly rng: Rng;

  constructor(
    readonly clock: VirtualClock,
    private readonly o: NetOptions = {},
  ) {
    this.rng = Rng.seeded(o.seed ?? 'net');
  }

  attach(addr: Address, receive: Receiver): void {
    this.nodes.set(addressKey(addr), { addr, receive });
  }

  detach(addr: Address): void {
    this.nodes.delete(addressKey(addr));
  }

  send(from: Address, to: Address, line: string): void {
    const d: Sent = { at: this.clock.now(), from: addressKey(from), to: addressKey(to), line };
    this.sent.push(d);
    const targets =
      to.address === BROADCAST.address
        ? [...this.nodes.values()].filter((n) => n.addr.port === to.port)
        : [this.nodes.get(addressKey(to))];
    for (const target of targets) {
      if (!target) continue;
      if (this.o.filter && !this.o.filter(d)) continue;
      if (this.o.loss !== undefined && this.rng.chance(this.o.loss)) continue;
      const copies = this.o.duplicate !== undefined && this.rng.chance(this.o.duplicate) ? 2 : 1;
      for (let i = 0; i < copies; i++) {
        const delay =
          (this.o.latency?.(from, target.addr) ?? 0) +
          (this.o.jitterMs ? this.rng.int(0, this.o.jitterMs) : 0);
        this.clock.setTimeout(() => {
          if (this.nodes.get(addressKey(target.addr)) === target) target.receive(line, from);
        }, delay);
      }
    }
  }

  /** What `from` sent to `to` (by key; `*` = anyone), as [seconds, line]. */
  between(from: string, to: string): [number, string][] {
    return this.sent
      .filter((d) => (from === '*' || d.from === from) && (to === '*' || d.to === to))
      .map((d) => [d.at / 1000, d.line]);
  }
}

export interface TestPeer {
  peer: Peer;
  addr: Address;
  key: string;
  events: { at: number; event: PeerEvent }[];
  records: C4GameRecord[];
  /** Events of one type, with their times in seconds. */
  of<T extends PeerEvent['type']>(type: T): { at: number; event: Extract<PeerEvent, { type: T }> }[];
}

export function addPeer(
  net: MemoryNet,
  addr: Address,
  name: string,
  options: Partial<PeerOptions> = {},
): TestPeer {
  const records: C4GameRecord[] = [];
  const peer = new Peer({
    name,
    clock: net.clock,
    send: (to, line) => net.send(addr, to, line),
    announceTo: [BROADCAST],
    localPort: addr.port,
    localAddresses: [addr.address],
    onGameFinished: (r) => records.push(r),
    ...options,
  });
  net.attach(addr, (data, from) => peer.receive(data, from));
  const events: { at: number; event: PeerEvent }[] = [];
  peer.on((event) => events.push({ at: net.clock.now() / 1000, event }));
  return {
    peer,
    addr,
    key: addressKey(addr),
    events,
    records,
    of: <T extends PeerEvent['type']>(type: T) =>
      events.filter(
        (e): e is { at: number; event: Extract<PeerEvent, { type: T }> } => e.event.type === type,
      ),
  };
}

/** A scripted node: records what reaches it and sends whatever the test says. */
export class FakeNode {
  readonly received: { at: number; from: string; line: string }[] = [];
  readonly key: string;
  onReceive: ((line: string, from: Address) => void) | null = null;

  constructor(
    private readonly net: MemoryNet,
    readonly addr: Address,
  ) {
    this.key = addressKey(addr);
    net.attach(addr, (line, from) => {
      this.received.push({ at: net.clock.now() / 1000, from: addressKey(from), line });
      this.onReceive?.(line, from);
    });
  }

  send(to: Address, line: string | object): void {
    this.net.send(this.addr, to, typeof line === 'string' ? line : JSON.stringify(line));
  }

  /** Received lines whose stage matches, as seconds. */
  stages(stage: number): number[] {
    return this.received
      .filter((r) => (JSON.parse(r.line) as { stage: number }).stage === stage)
      .map((r) => r.at);
  }
}

/** Sends `line` now and every `everyMs` until the returned function is called. */
export function every(clock: VirtualClock, everyMs: number, fn: () => void): () => void {
  fn();
  const t = clock.setInterval(fn, everyMs);
  return () => t.cancel();
}

/**
 * A peer that behaves like implementation A of specs §3.9 (the C++ client): every value a quoted
 * string, pretty-printed with 4 spaces and `\/`, names escaped byte by byte, its acceptance sent
 * once, stage 3 until the first stage 4 arrives, `turn` counting its own moves, a `turn` −1
 * keepalive before its first move, stage 5 from about 7 s after the end on every frame, and 99
 * five times when it leaves the result screen.
 */
export class DialectA {
  readonly node: FakeNode;
  state: C4State = initialState();
  phase: 'lobby' | 'inviting' | 'board' | 'over' = 'lobby';
  me: Player = 0;
  opponent: Address | null = null;
  private ownMoves = 0;
  private lastMove: { turn: number; column: number } | null = null;
  private theirLastTurn = Number.NEGATIVE_INFINITY;
  private sawMove = false;
  private inviteUntil = 0;
  private overAt = 0;
  private gameOverSent = 0;
  private abortsSent = 0;

  constructor(
    private readonly net: MemoryNet,
    addr: Address,
    private readonly choose: (s: C4State) => number,
    private readonly options: { dropAcceptance?: boolean } = {},
  ) {
    this.node = new FakeNode(net, addr);
    this.node.onReceive = (line, from) => this.receive(line, from);
  }

  /** "Jörg", as A's JSON writer spells it. */
  static readonly NAME_JSON = 'J\\u00C3\\u00B6rg\\/A';

  start(): void {
    every(this.net.clock, 2000, () => this.frame());
  }

  invite(to: Address): void {
    this.opponent = to;
    this.phase = 'inviting';
    this.inviteUntil = this.net.clock.now() + 10_000;
    this.frame();
  }

  private out(to: Address, fields: Record<string, string | number>): void {
    const body = Object.entries(fields)
      .map(([k, v]) => `    "${k}": "${k === 'clientname' ? String(v) : String(v).replace(/\//g, '\\/')}"`)
      .join(',\n');
    this.node.send(to, `{\n${body}\n}\n`);
  }

  private head(stage: number): Record<string, string | number> {
    return { version: 2, clienttype: 0, stage };
  }

  private frame(): void {
    const now = this.net.clock.now();
    const opp = this.opponent;
    if (this.phase === 'lobby' || this.phase === 'inviting')
      this.out(BROADCAST, { ...this.head(1), clientname: DialectA.NAME_JSON });
    if (this.phase === 'inviting' && opp) {
      if (now < this.inviteUntil) this.out(opp, { ...this.head(2), clientname: DialectA.NAME_JSON });
      else this.phase = 'lobby';
    }
    if (this.phase === 'board' && opp) {
      if (!this.sawMove) this.out(opp, this.head(3));
      this.out(opp, { ...this.head(4), ...(this.lastMove ?? { turn: -1, column: 1 }) });
    }
    if (this.phase === 'over' && opp) {
      if (now >= this.overAt + 7000 && this.gameOverSent < 4) {
        this.gameOverSent++;
        this.out(opp, this.head(5));
      }
      if (now >= this.overAt + 16_000 && this.abortsSent < 5) {
        this.abortsSent++;
        this.out(opp, this.head(99));
      }
    }
  }

  private receive(line: string, from: Address): void {
    const v = JSON.parse(line) as Record<string, unknown>;
    const stage = Number(v.stage);
    const fromOpponent = this.opponent !== null && addressKey(from) === addressKey(this.opponent);
    if (this.phase === 'lobby' && stage === 2 && typeof v.clientname === 'string') {
      this.opponent = from;
      this.me = 1;
      this.phase = 'board';
      if (!this.options.dropAcceptance) this.out(from, this.head(2));
      this.out(from, this.head(3));
      return;
    }
    if (this.phase === 'inviting' && fromOpponent && (stage === 2 || stage === 3)) {
      this.me = 0;
      this.phase = 'board';
      this.out(from, this.head(3));
      this.play();
      return;
    }
    if (this.phase === 'board' && fromOpponent && stage === 4) {
      this.sawMove = true;
      const turn = Number(v.turn);
      if (turn <= this.theirLastTurn || turn < 0) return;
      this.theirLastTurn = turn;
      const next = apply(this.state, Number(v.column));
      if (!next.ok) return;
      this.state = next.value;
      if (!this.checkOver()) this.play();
    }
  }

  private play(): void {
    if (status(this.state).kind !== 'running' || (this.state.moves.length & 1) !== this.me) return;
    const column = this.choose(this.state);
    const next = apply(this.state, column);
    if (!next.ok) throw new Error(`dialect A chose an illegal column ${column}`);
    this.state = next.value;
    this.lastMove = { turn: this.ownMoves++, column };
    if (this.opponent) this.out(this.opponent, { ...this.head(4), ...this.lastMove });
    this.checkOver();
  }

  private checkOver(): boolean {
    if (status(this.state).kind === 'running') return false;
    this.phase = 'over';
    this.overAt = this.net.clock.now();
    return true;
  }
}
