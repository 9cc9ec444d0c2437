import { randomBytes, randomInt } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { ATTACKER, sleep, type Game, type Ports } from './serve.js';

/**
 * Malicious clients for every game, all from 127.0.0.2. Each attack runs until `stop()`: a burst
 * attack repeats its misbehaviour in a loop; a holding attack builds up a state on the server
 * (connections, registrations, games, rooms) and keeps it, reopening what the server closes.
 * `fast` is the size for `npm test`, `soak` the size for `npm run soak`.
 */

export type Scale = 'fast' | 'soak';

export interface AttackStats {
  connects: number;
  failedConnects: number;
  /** Connections the server closed (or reset) before we did. */
  closedByServer: number;
  bytesSent: number;
  datagrams: number;
  /** Datagrams received (UDP attacks). */
  replies: number;
  /** Protocol-level things the attack saw happen (errors received, games started, rooms prepared, …). */
  events: Record<string, number>;
}

export interface Attack {
  readonly stats: AttackStats;
  /** Connections (or registered sockets) the attack holds open right now. */
  held(): number;
  stop(): Promise<void>;
}

export interface Scenario {
  /** `attack/target`, e.g. `slowloris/dame`. */
  readonly id: string;
  readonly attack: string;
  readonly targets: readonly Game[];
  /** Builds up a state and keeps it (started once, held for the window). */
  readonly hold: boolean;
  start(ports: Ports, scale: Scale): Attack;
}

const TCP_GAMES = ['dame', 'ostseeschach', 'catan'] as const;
type TcpGame = (typeof TCP_GAMES)[number];

/** Keeps the last `max` characters of what a connection received. */
const MAX_KEPT = 256 * 1024;

/** One attacker TCP connection from 127.0.0.2. */
export class Conn {
  text = '';
  closed = false;
  byUs = false;
  readonly openedAt = Date.now();
  private waiters: (() => void)[] = [];
  private onClose!: () => void;
  private readonly closedP = new Promise<void>((resolve) => (this.onClose = resolve));

  constructor(
    readonly socket: Socket,
    private readonly run: Runner,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.text += d.toString('latin1');
      if (this.text.length > MAX_KEPT) this.text = this.text.slice(-MAX_KEPT / 2);
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      if (!this.byUs) run.stats.closedByServer++;
      run.conns.delete(this);
      this.onClose();
      this.wake();
    });
    socket.on('drain', () => this.wake());
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Neither closed nor the attack stopped. */
  usable(): boolean {
    return !this.closed && !this.run.stopped;
  }

  /** Writes (nothing once closed); false when the data waits in the socket's buffer. */
  send(data: string | Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    const buf = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    this.run.stats.bytesSent += buf.length;
    return this.socket.write(buf);
  }

  /** Writes and waits until the socket took it (or closed, or we stop), at most at the attack's bandwidth. */
  async sendAll(data: string | Buffer, chunk = 64 * 1024): Promise<void> {
    const buf = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    for (let i = 0; i < buf.length && !this.closed && !this.run.stopped; i += chunk) {
      await this.run.throttle();
      if (!this.send(buf.subarray(i, i + chunk))) {
        const deadline = Date.now() + 5000;
        while (this.socket.writableNeedDrain && this.usable() && Date.now() < deadline) await this.nap(200);
        if (this.socket.writableNeedDrain) return;
      }
    }
  }

  /** The first match of `re` in what arrived from `from` on (null at the timeout or the close). */
  async waitFor(re: RegExp, ms: number, from = 0): Promise<RegExpExecArray | null> {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = re.exec(this.text.slice(from));
      if (m) return m;
      const left = deadline - Date.now();
      if (left <= 0 || this.closed || this.run.stopped) return null;
      await this.nap(Math.min(left, 250));
    }
  }

  /** True when the connection is closed (by either side) within `ms`. */
  async waitClose(ms = Infinity): Promise<boolean> {
    if (this.closed) return true;
    let t: NodeJS.Timeout | undefined;
    await Promise.race([
      this.closedP,
      this.run.stoppedP,
      ...(ms === Infinity ? [] : [new Promise<void>((resolve) => (t = setTimeout(resolve, ms)))]),
    ]);
    clearTimeout(t);
    return this.closed;
  }

  destroy(): void {
    if (!this.closed) this.byUs = true;
    this.socket.destroy();
  }
}

/** The machinery every attack shares: its loops, sockets and counters. */
export class Runner implements Attack {
  readonly stats: AttackStats = {
    connects: 0,
    failedConnects: 0,
    closedByServer: 0,
    bytesSent: 0,
    datagrams: 0,
    replies: 0,
    events: {},
  };
  stopped = false;
  private onStop!: () => void;
  readonly stoppedP = new Promise<void>((resolve) => (this.onStop = resolve));
  readonly conns = new Set<Conn>();
  readonly udps = new Set<UdpSocket>();
  private readonly bound = new WeakSet<UdpSocket>();
  private readonly tasks: Promise<void>[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  private readonly startedAt = Date.now();

  /**
   * @param bytesPerSecond what the attacker's link carries (sendAll waits beyond it): a fast LAN
   *   client, not what loopback on this machine could push, so that the figures measure the
   *   server's cost per byte and not a CPU contest between attacker and server on two cores.
   */
  constructor(private readonly bytesPerSecond = 25 * 1024 * 1024) {}

  /** Waits while the attack has sent more than its bandwidth allows so far. */
  async throttle(): Promise<void> {
    const ahead = this.stats.bytesSent / this.bytesPerSecond - (Date.now() - this.startedAt) / 1000;
    if (ahead > 0) await this.sleep(ahead * 1000);
  }

  count(event: string, n = 1): void {
    this.stats.events[event] = (this.stats.events[event] ?? 0) + n;
  }

  held(): number {
    return this.conns.size + this.udps.size;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** Runs `fn` in the background; its failure is swallowed (an attacker does not care). */
  spawn(fn: () => Promise<void>): void {
    this.tasks.push(fn().catch(() => undefined));
  }

  /** `concurrency` loops of `fn` until stopped. */
  loop(concurrency: number, fn: (worker: number) => Promise<void>, pauseMs = 10): void {
    for (let w = 0; w < concurrency; w++) {
      this.spawn(async () => {
        while (!this.stopped) {
          try {
            await fn(w);
          } catch {
            await this.sleep(100);
          }
          await this.sleep(pauseMs);
        }
      });
    }
  }

  /** Sleeps, but wakes at once when the attack stops. */
  async sleep(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.stopped && Date.now() < deadline) await sleep(Math.min(250, deadline - Date.now()));
  }

  every(ms: number, fn: () => void): void {
    const t = setInterval(() => {
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  /** A TCP connection from 127.0.0.2 (null when refused or not connected within 5 s). */
  tcp(port: number): Promise<Conn | null> {
    if (this.stopped) return Promise.resolve(null);
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
      const t = setTimeout(() => fail(), 5000);
      const fail = (): void => {
        clearTimeout(t);
        this.stats.failedConnects++;
        socket.destroy();
        resolve(null);
      };
      socket.once('error', fail);
      socket.once('connect', () => {
        clearTimeout(t);
        socket.off('error', fail);
        this.stats.connects++;
        const c = new Conn(socket, this);
        this.conns.add(c);
        if (this.stopped) c.destroy();
        resolve(c);
      });
    });
  }

  /**
   * Keeps `n` connections open to `port`, each set up by `setup` (which may keep talking), and
   * reopens what the server closes; a connection closed within a second waits 2 s before it is
   * reopened, so a server that refuses at once does not get a connect storm. At most
   * `concurrency` connects are under way at once.
   */
  keepOpen(
    n: number,
    port: number,
    setup: (c: Conn, i: number) => Promise<void> = () => Promise.resolve(),
    concurrency = 50,
  ): void {
    let permits = concurrency;
    const queue: (() => void)[] = [];
    const acquire = (): Promise<void> => {
      if (permits > 0) {
        permits--;
        return Promise.resolve();
      }
      return new Promise((resolve) => queue.push(resolve));
    };
    const release = (): void => {
      const next = queue.shift();
      if (next) next();
      else permits++;
    };
    for (let i = 0; i < n; i++) {
      this.spawn(async () => {
        while (!this.stopped) {
          await acquire();
          let c: Conn | null;
          try {
            c = await this.tcp(port);
          } finally {
            release();
          }
          if (c === null) {
            await this.sleep(2000);
            continue;
          }
          try {
            await setup(c, i);
          } catch {
            // keep it anyway
          }
          await c.waitClose();
          if (this.isStopped()) return;
          if (Date.now() - c.openedAt < 1000) await this.sleep(2000);
        }
      });
    }
  }

  /** A UDP socket bound to 127.0.0.2 that counts what it receives. */
  udp(onMessage?: (line: string, socket: UdpSocket) => void): Promise<UdpSocket> {
    return new Promise((resolve) => {
      const s = createSocket('udp4');
      s.on('error', () => undefined);
      s.on('message', (m) => {
        this.stats.replies++;
        onMessage?.(m.toString('utf8'), s);
      });
      this.udps.add(s);
      // A socket that cannot bind (EMFILE) is handed back all the same: its sends fail quietly.
      s.once('error', () => resolve(s));
      s.bind(0, ATTACKER, () => {
        this.bound.add(s);
        resolve(s);
      });
    });
  }

  sendUdp(s: UdpSocket, port: number, data: string | Buffer): void {
    // An unbound socket would bind itself to 0.0.0.0 and send from 127.0.0.1: never.
    if (this.stopped || !this.bound.has(s)) return;
    const buf = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    this.stats.datagrams++;
    this.stats.bytesSent += buf.length;
    s.send(buf, port, '127.0.0.1', () => undefined);
  }

  /** Calls `send` `perSecond` times a second, in 10 ms ticks. */
  pace(perSecond: number, send: () => void): void {
    let owed = 0;
    let last = Date.now();
    this.every(10, () => {
      const now = Date.now();
      owed = Math.min(owed + ((now - last) * perSecond) / 1000, perSecond / 10);
      last = now;
      for (; owed >= 1; owed--) send();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.onStop();
    for (const t of this.timers) clearInterval(t);
    for (const c of [...this.conns]) c.destroy();
    for (const s of this.udps) {
      try {
        s.close();
      } catch {
        // already closed
      }
    }
    this.udps.clear();
    await Promise.race([Promise.all(this.tasks), sleep(10_000)]);
  }
}

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;
const fresh = (n = 13): string =>
  Array.from({ length: n }, () => pick('abcdefghijklmnopqrstuvwxyz0123456789'.split(''))).join('');
/** Bytes that are not UTF-8: a lone continuation byte, an overlong `/`, a surrogate, 0xFE/0xFF, a cut-off sequence. */
const BAD_UTF8 = [
  Buffer.from([0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
];
const badUtf8 = (): Buffer => Buffer.concat(Array.from({ length: 1 + randomInt(6) }, () => pick(BAD_UTF8)));
const cat = (...parts: (string | Buffer)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));

// ---------------------------------------------------------------------------------------------
// Protocol steps the scripted attackers take.

const OST_JOIN = '<protocol><join gameType="swc_2022_ostseeschach"/>\n';
const ostMove = (room: string, fx: number, fy: number, tx: number, ty: number): string =>
  `<room roomId="${room}"><data class="move"><from x="${fx}" y="${fy}"/><to x="${tx}" y="${ty}"/></data></room>\n`;

/** Dame: VERSION, ID, PLAYER; true when the player list came. */
async function dameSeat(c: Conn, id: string, player: 0 | 1): Promise<boolean> {
  c.send('VERSION 3.1\n');
  if (!(await c.waitFor(/\+ Client version accepted/, 5000))) return false;
  c.send(`ID ${id}\n`);
  if (!(await c.waitFor(/\+ PLAYING Checkers\n\+ [^\n]*\n/, 5000))) return false;
  c.send(`PLAYER ${player}\n`);
  return (await c.waitFor(/\+ ENDPLAYERS/, 5000)) !== null;
}

/** Catan: Hallo, Spieler (the first free colour), Spiel starten; true when the start was accepted. */
async function catanJoin(c: Conn, name: string): Promise<boolean> {
  if (!(await c.waitFor(/\{"Hallo"/, 5000))) return false;
  c.send('{"Hallo":{"Version":"Angreifer 0.3 (KI)"}}\n');
  if (!(await c.waitFor(/\{"Willkommen"/, 5000))) return false;
  for (const colour of ['Rot', 'Orange', 'Blau', 'Weiss']) {
    const from = c.text.length;
    c.send(`{"Spieler":{"Name":"${name}","Farbe":"${colour}"}}\n`);
    const answer = await c.waitFor(/\{"Serverantwort":"OK"\}|\{"Fehler"/, 5000, from);
    if (!answer) return false;
    if (answer[0].includes('OK')) {
      const from2 = c.text.length;
      c.send('{"Spiel starten":{}}\n');
      return (await c.waitFor(/\{"Serverantwort":"OK"\}|Spiel gestartet/, 5000, from2)) !== null;
    }
  }
  return false;
}

/** Three attackers in a Catan game (or null when it did not start within the time). */
async function catanGame(run: Runner, port: number): Promise<Conn[] | null> {
  const conns: Conn[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await run.tcp(port);
    if (!c) break;
    conns.push(c);
    if (!(await catanJoin(c, `Angreifer ${fresh(4)}`))) break;
  }
  const started = conns.length === 3 && (await conns[0]!.waitFor(/Spiel gestartet/, 5000)) !== null;
  if (!started) {
    for (const c of conns) c.destroy();
    return null;
  }
  run.count('games started');
  return conns;
}

/** Two attackers in an Ostseeschach room: [ONE, TWO, roomId], or null. */
async function ostGame(run: Runner, port: number): Promise<[Conn, Conn, string] | null> {
  const a = await run.tcp(port);
  const b = a && (await run.tcp(port));
  const fail = (): null => {
    a?.destroy();
    b?.destroy();
    return null;
  };
  if (!a || !b) return fail();
  a.send(OST_JOIN);
  if (!(await a.waitFor(/<joined roomId="/, 5000))) return fail();
  b.send(OST_JOIN);
  const colourA = await a.waitFor(/<data class="welcomeMessage" color="(ONE|TWO)"/, 5000);
  const colourB = await b.waitFor(/<data class="welcomeMessage" color="(ONE|TWO)"/, 5000);
  const roomA = /<joined roomId="([^"]+)"/.exec(a.text)?.[1];
  const roomB = /<joined roomId="([^"]+)"/.exec(b.text)?.[1];
  // Another attacker loop may have paired with one of them: play only a pair in one room.
  if (!colourA || !colourB || roomA === undefined || roomA !== roomB) return fail();
  run.count('games started');
  return colourA[1] === 'ONE' ? [a, b, roomA] : [b, a, roomA];
}

/** Two attackers in a Dame game: [White, Black], both seated; White is about to get its MOVE. */
async function dameGame(run: Runner, port: number): Promise<[Conn, Conn] | null> {
  const id = fresh();
  const white = await run.tcp(port);
  const black = white && (await run.tcp(port));
  if (!white || !black || !(await dameSeat(white, id, 0)) || !(await dameSeat(black, id, 1))) {
    white?.destroy();
    black?.destroy();
    return null;
  }
  run.count('games started');
  return [white, black];
}

// ---------------------------------------------------------------------------------------------
// The attacks.

/** Random bytes: connections that send random data, or random datagrams. */
function randomBytesAttack(game: Game, ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  if (game === 'mia') {
    void run
      .udp()
      .then((s) =>
        run.pace(scale === 'fast' ? 2000 : 5000, () =>
          run.sendUdp(s, ports.mia, randomBytes(1 + randomInt(1024))),
        ),
      );
    return run;
  }
  const port = ports[game as TcpGame];
  run.loop(scale === 'fast' ? 6 : 12, async () => {
    const c = await run.tcp(port);
    if (!c) return run.sleep(200);
    await c.sendAll(randomBytes(scale === 'fast' ? 128 * 1024 : 512 * 1024), 16 * 1024);
    await c.waitClose(1000);
    c.destroy();
  });
  return run;
}

/** Invalid UTF-8 in otherwise well-formed protocol messages. */
function invalidUtf8Attack(game: Game, ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  if (game === 'mia') {
    const messages = (): Buffer =>
      pick([
        cat('REGISTER;', badUtf8()),
        cat('REGISTER_SPECTATOR;', badUtf8()),
        cat('JOIN;', badUtf8()),
        cat(badUtf8(), ';', badUtf8()),
        cat('ECHO;', badUtf8()),
      ]);
    void Promise.all(Array.from({ length: 20 }, () => run.udp())).then((sockets) => {
      run.pace(scale === 'fast' ? 1000 : 2000, () => run.sendUdp(pick(sockets), ports.mia, messages()));
    });
    return run;
  }
  const port = ports[game as TcpGame];
  const script: Record<TcpGame, () => Buffer[]> = {
    dame: () =>
      pick([
        [cat(badUtf8(), '\n')],
        [cat('VERSION 3.1\n'), cat('ID ', badUtf8(), '\n')],
        [cat('VERSION ', badUtf8(), '\n')],
        [cat('VERSION 3.1\n'), cat(`ID ${fresh()}\n`), cat('PLAYER ', badUtf8(), '\n')],
      ]),
    ostseeschach: () =>
      pick([
        [cat('<protocol><join gameType="', badUtf8(), '"/>\n')],
        [cat('<protocol>', badUtf8(), '<join/>')],
        [cat('<protocol><', badUtf8(), '/>')],
        [cat('<protocol><authenticate password="', badUtf8(), '"/>')],
      ]),
    catan: () =>
      pick([
        [cat('{"Hallo":{"Version":"', badUtf8(), '"}}\n')],
        [
          cat('{"Hallo":{"Version":"x (KI)"}}\n'),
          cat('{"Spieler":{"Name":"', badUtf8(), '","Farbe":"Rot"}}\n'),
        ],
        [cat('{"', badUtf8(), '":{}}\n')],
        [cat(badUtf8(), '\n')],
      ]),
  };
  run.loop(scale === 'fast' ? 4 : 8, async () => {
    const c = await run.tcp(port);
    if (!c) return run.sleep(200);
    for (const part of script[game as TcpGame]()) {
      c.send(part);
      await c.waitFor(/\n/, 300, c.text.length);
    }
    await c.waitClose(500);
    c.destroy();
  });
  return run;
}

/** Several MB without a newline (UDP: the biggest datagrams there are). */
function overlongAttack(game: Game, ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  if (game === 'mia') {
    const big = cat('REGISTER;', 'x'.repeat(65_000));
    void run.udp().then((s) => run.pace(scale === 'fast' ? 200 : 500, () => run.sendUdp(s, ports.mia, big)));
    return run;
  }
  const prefix: Record<TcpGame, string> = {
    dame: 'VERSION 3.1\nID ',
    ostseeschach: '<protocol><join gameType="',
    catan: '{"Hallo":{"Version":"',
  };
  const port = ports[game as TcpGame];
  const mb = scale === 'fast' ? 3 : 8;
  const filler = Buffer.alloc(1024 * 1024, 'x');
  run.loop(scale === 'fast' ? 2 : 4, async () => {
    const c = await run.tcp(port);
    if (!c) return run.sleep(200);
    c.send(prefix[game as TcpGame]);
    for (let i = 0; i < mb && !c.closed && !run.stopped; i++) await c.sendAll(filler);
    if (!c.closed) run.count('sent in full');
    await c.waitClose(1000);
    c.destroy();
  });
  return run;
}

/** Connections that send a byte every few seconds (and come back when closed). */
function slowlorisAttack(game: TcpGame, ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  const text: Record<TcpGame, string> = {
    dame: `VERSION 3.1\nID ${fresh()}\nPLAYER\n`,
    ostseeschach: OST_JOIN,
    catan: '{"Hallo":{"Version":"langsam (KI)"}}\n{"Spieler":{"Name":"Schnecke","Farbe":"Blau"}}\n',
  };
  const everyMs = scale === 'fast' ? 1000 : 3000;
  run.keepOpen(scale === 'fast' ? 60 : 150, ports[game], async (c) => {
    for (let i = 0; !c.closed && !run.stopped; i++) {
      await run.sleep(everyMs + randomInt(200));
      c.send(text[game][i % text[game].length]!);
    }
  });
  return run;
}

/** 1000+ idle connections, spread across the TCP games. */
function idleAttack(ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  const per = scale === 'fast' ? 350 : 400;
  for (const g of TCP_GAMES) run.keepOpen(per, ports[g]);
  return run;
}

/** Start a game, then vanish (socket destroyed mid-game, no goodbye). */
function vanishAttack(game: Game, ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  const concurrency = scale === 'fast' ? 1 : 2;
  switch (game) {
    case 'dame':
      run.loop(concurrency * 2, async () => {
        const pair = await dameGame(run, ports.dame);
        if (!pair) return run.sleep(300);
        await pair[0].waitFor(/\+ ENDBOARD/, 5000);
        for (const c of pair) c.destroy();
        run.count('vanished');
      });
      break;
    case 'ostseeschach':
      run.loop(concurrency, async () => {
        const game = await ostGame(run, ports.ostseeschach);
        if (!game) return run.sleep(300);
        await game[0].waitFor(/moveRequest/, 5000);
        game[0].destroy();
        game[1].destroy();
        run.count('vanished');
      });
      break;
    case 'catan':
      run.loop(1, async () => {
        const conns = await catanGame(run, ports.catan);
        if (!conns) return run.sleep(300);
        await run.sleep(200 + randomInt(500));
        for (const c of conns) c.destroy();
        run.count('vanished');
      });
      break;
    case 'mia':
      // Players that register, join rounds, and vanish when it is their turn; new ones replace them.
      run.loop(scale === 'fast' ? 3 : 6, async () => {
        const me = { gone: false };
        const s = await run.udp((line, sock) => {
          if (line.startsWith('ROUND STARTING;')) run.sendUdp(sock, ports.mia, `JOIN;${line.slice(15)}`);
          if (line.startsWith('YOUR TURN;') && !me.gone) {
            me.gone = true;
            run.count('vanished');
            run.udps.delete(sock);
            sock.close();
          }
        });
        run.sendUdp(s, ports.mia, `REGISTER;weg${fresh(8)}`);
        for (let i = 0; i < 40 && !me.gone && !run.isStopped(); i++) await run.sleep(250);
        if (!me.gone) {
          run.udps.delete(s);
          s.close();
        }
      });
      break;
    default:
      throw new Error(`no vanish attack for ${game}`);
  }
  return run;
}

/** Moves out of turn and illegal moves. */
function wrongTurnAttack(game: Game, ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  switch (game) {
    case 'dame':
      run.loop(scale === 'fast' ? 2 : 4, async (w) => {
        const pair = await dameGame(run, ports.dame);
        if (!pair) return run.sleep(300);
        const [white, black] = pair;
        await white.waitFor(/\+ ENDBOARD/, 5000);
        if (w % 2 === 0) {
          black.send('PLAY C3:D4\n'); // not Black's turn
          if (await black.waitFor(/- Did not expect response from client/, 3000))
            run.count('out of turn refused');
        } else {
          white.send('THINKING\n');
          await white.waitFor(/\+ OKTHINK/, 3000);
          white.send('PLAY A1:H8\n'); // no such move
          if (await white.waitFor(/- Invalid Move/, 3000)) run.count('illegal move refused');
        }
        await white.waitClose(2000);
        white.destroy();
        black.destroy();
      });
      break;
    case 'ostseeschach':
      run.loop(scale === 'fast' ? 1 : 2, async (w) => {
        const g = await ostGame(run, ports.ostseeschach);
        if (!g) return run.sleep(300);
        const [one, two, room] = g;
        if (w % 2 === 0 || randomInt(2) === 0) {
          two.send(ostMove(room, 0, 7, 1, 6)); // TWO moves before ONE
          if (await two.waitFor(/not your turn|RULE_VIOLATION/, 3000)) run.count('out of turn refused');
        } else {
          await one.waitFor(/moveRequest/, 5000);
          one.send(ostMove(room, 0, 0, 7, 7)); // no piece moves like that
          if (await one.waitFor(/class="error"|RULE_VIOLATION/, 3000)) run.count('illegal move refused');
        }
        await one.waitFor(/<left /, 3000);
        one.send('<sc.protocol.CloseConnection/>');
        two.send('<sc.protocol.CloseConnection/>');
        await one.waitClose(1000);
        one.destroy();
        two.destroy();
      });
      break;
    case 'catan':
      run.loop(1, async () => {
        const conns = await catanGame(run, ports.catan);
        if (!conns) return run.sleep(300);
        for (let round = 0; round < 5; round++) {
          for (const c of conns) {
            const from = c.text.length;
            c.send(
              '{"Wuerfeln":{}}\n{"Bauen":{"Typ":"Strasse","Ort":"zz"}}\n{"Zug beenden":{}}\n{"Bauen":{"Typ":"Stadt","Ort":"A"}}\n',
            );
            if (await c.waitFor(/\{"Fehler"/, 2000, from)) run.count('refused');
          }
        }
        for (const c of conns) c.destroy();
      });
      break;
    case 'mia':
      // Registered players that join rounds and then answer wrongly: bad tokens, out of turn, dice 9,9, SEE first.
      void Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          run.udp((line, sock) => {
            const parts = line.split(';');
            const token = parts[parts.length - 1] ?? '';
            if (line.startsWith('ROUND STARTING;')) {
              run.sendUdp(sock, ports.mia, `JOIN;${token}`);
              run.sendUdp(sock, ports.mia, `JOIN;falsch`);
              run.sendUdp(sock, ports.mia, `ROLL;${token}`);
              run.sendUdp(sock, ports.mia, `ANNOUNCE;7,1;${token}`);
            } else if (line.startsWith('YOUR TURN;')) {
              run.count('turns');
              run.sendUdp(
                sock,
                ports.mia,
                pick([`SEE;${token}`, `ANNOUNCE;9,9;${token}`, `ROLL;falsch`, `ANNOUNCE;;${token}`]),
              );
              if (i % 2 === 0) run.sendUdp(sock, ports.mia, `ROLL;${token}`);
            } else if (line.startsWith('ROLLED;')) {
              run.sendUdp(sock, ports.mia, `ANNOUNCE;0,0;${token}`);
              run.sendUdp(sock, ports.mia, `SEE;${token}`);
            }
          }),
        ),
      ).then((sockets) =>
        sockets.forEach((s, i) => run.sendUdp(s, ports.mia, `REGISTER;falsch${i}${fresh(4)}`)),
      );
      break;
    default:
      throw new Error(`no wrong-turn attack for ${game}`);
  }
  return run;
}

/** Catan: deep nesting, huge arrays, huge numbers and keys. */
function jsonBombAttack(ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  const bombs: (() => string)[] = [
    () => '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000) + '\n',
    () => '['.repeat(1_000_000),
    () => `{"Hallo":{"Version":"x","a":${'['.repeat(30)}${'0,'.repeat(20_000)}0${']'.repeat(30)}}}\n`,
    () => `{"Chatnachricht senden":{"Nachricht":[${'1,'.repeat(30_000)}1]}}\n`.repeat(20),
    () => `{"Hallo":{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')}}}\n`,
    () => `{"Bauen":{"Typ":"Strasse","Ort":1e999999999}}\n{"Wuerfeln":{"x":${'9'.repeat(60_000)}}}\n`,
    () => '{"Hallo":{"Version":"' + '\\u0000'.repeat(10_000) + '"}}\n',
    () => `{"Hallo":${'{"a":[{"b":'.repeat(5000)}`,
  ];
  run.loop(scale === 'fast' ? 4 : 8, async (w) => {
    const c = await run.tcp(ports.catan);
    if (!c) return run.sleep(200);
    if (w % 2 === 1) c.send('{"Hallo":{"Version":"Bombe (KI)"}}\n');
    await c.sendAll(pick(bombs)());
    if (await c.waitFor(/\{"Fehler"/, 500)) run.count('refused');
    await c.waitClose(500);
    c.destroy();
  });
  return run;
}

/** Ostseeschach: entity expansion, external entities, deep nesting, attribute floods, unread errors. */
function xmlBombAttack(ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  const laughs = (): string => {
    let dtd = '<!ENTITY a0 "lollollollollollollollollollol">';
    for (let i = 1; i <= 9; i++) dtd += `<!ENTITY a${i} "${`&a${i - 1};`.repeat(10)}">`;
    return `<?xml version="1.0"?><!DOCTYPE protocol [${dtd}]><protocol><join gameType="&a9;"/>`;
  };
  const bombs: (() => string)[] = [
    laughs,
    () => `<!DOCTYPE protocol [<!ENTITY x SYSTEM "file:///dev/zero">]><protocol><join gameType="&x;"/>`,
    () => '<protocol>' + '<a>'.repeat(200_000),
    () => '<protocol><room roomId="x">' + '<data class="move">'.repeat(50_000),
    () => `<protocol><join ${Array.from({ length: 10_000 }, (_, i) => `a${i}="${i}"`).join(' ')}/>`,
    () => '<protocol><join gameType="&undefined;"/>',
    () => '<protocol><!--' + 'x'.repeat(2_000_000),
    () => '<protocol><![CDATA[' + 'x'.repeat(2_000_000),
    () => '<protocol>' + '<observe roomId="nope"/>'.repeat(20_000),
    () => `<protocol><join gameType="${'&amp;'.repeat(200_000)}"/>`,
  ];
  run.loop(scale === 'fast' ? 4 : 8, async () => {
    const c = await run.tcp(ports.ostseeschach);
    if (!c) return run.sleep(200);
    // Read nothing back on purpose: answers that pile up must not pile up in the server.
    c.socket.pause();
    await c.sendAll(pick(bombs)());
    await c.waitClose(1000);
    c.destroy();
  });
  return run;
}

/** Mia: as many datagrams as one port (or 1000 ports) can send. */
function miaFloodAttack(ports: Ports, scale: Scale, sockets: number): Attack {
  const run = new Runner();
  const rate = scale === 'fast' ? 10_000 : 20_000;
  const payload = (port: number): string =>
    pick([
      'ECHO;' + 'x'.repeat(100),
      `JOIN;${randomInt(1e9)}`,
      `REGISTER;flut${port}`,
      'ROLL;1',
      'UNREGISTER',
    ]);
  void Promise.all(Array.from({ length: sockets }, () => run.udp())).then((all) => {
    const socks = all.filter((s) => {
      try {
        return s.address().port > 0;
      } catch {
        return false; // not bound
      }
    });
    if (socks.length === 0) return;
    let i = 0;
    run.pace(rate, () => {
      const s = socks[i++ % socks.length]!;
      run.sendUdp(s, ports.mia, payload(s.address().port));
    });
  });
  return run;
}

/** Mia: many names registered from many ports that never answer again. */
function miaDeadAttack(ports: Ports): Attack {
  const run = new Runner();
  run.spawn(async () => {
    for (let i = 0; i < 1000 && !run.stopped; i++) {
      const s = await run.udp();
      run.sendUdp(s, ports.mia, `REGISTER;tot${i}x${fresh(6)}`);
      if (i % 50 === 49) await sleep(20);
    }
  });
  return run;
}

/** Dame: VERSION 3.1 / ID <fresh> / PLAYER 0 many times, held; and games created by an ID alone. */
function dameTableAttack(ports: Ports): Attack {
  const run = new Runner();
  run.keepOpen(1000, ports.dame, async (c) => {
    if (await dameSeat(c, fresh(), 0)) run.count('seats held');
  });
  run.loop(2, async () => {
    const c = await run.tcp(ports.dame);
    if (!c) return run.sleep(200);
    c.send('VERSION 3.1\n');
    await c.waitFor(/\+ Client version accepted/, 3000);
    c.send(`ID ${fresh()}\n`);
    if (await c.waitFor(/\+ PLAYING Checkers/, 3000)) run.count('games created');
    c.destroy();
  });
  return run;
}

/** Ostseeschach: connections that never join (half send `<protocol>`, half nothing), held. */
function ostNeverJoinAttack(ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  run.keepOpen(scale === 'fast' ? 600 : 1000, ports.ostseeschach, (c, i) => {
    if (i % 2 === 0) c.send('<protocol>');
    return Promise.resolve();
  });
  return run;
}

/** Ostseeschach: an administrator (default password) who prepares rooms nobody ever joins. */
function ostEmptyRoomsAttack(ports: Ports, scale: Scale): Attack {
  const run = new Runner();
  const prepare =
    '<prepare gameType="swc_2022_ostseeschach" pause="false"><slot displayName="Leer A" canTimeout="true" reserved="true"/><slot displayName="Leer B" canTimeout="true" reserved="true"/></prepare>\n';
  const admin = async (rooms: number, leave: boolean): Promise<void> => {
    const c = await run.tcp(ports.ostseeschach);
    if (!c) return;
    c.send('<protocol><authenticate password="examplepassword"/>\n');
    for (let i = 0; i < rooms && !c.closed && !run.stopped; i++) {
      const from = c.text.length;
      c.send(prepare);
      const answer = await c.waitFor(/<prepared |<errorpacket /, 3000, from);
      run.count(answer?.[0] === '<prepared ' ? 'rooms prepared' : 'prepares refused');
    }
    if (leave) c.destroy();
    else await c.waitClose();
  };
  const n = scale === 'fast' ? 300 : 600;
  run.spawn(() => admin(n, false));
  run.spawn(() => admin(50, true));
  return run;
}

// ---------------------------------------------------------------------------------------------

function scenario(
  attack: string,
  targets: readonly Game[],
  hold: boolean,
  start: (ports: Ports, scale: Scale) => Attack,
): Scenario {
  return { id: `${attack}/${targets.length === 1 ? targets[0]! : 'tcp'}`, attack, targets, hold, start };
}

const perGame = (
  attack: string,
  games: readonly Game[],
  hold: boolean,
  start: (game: Game, ports: Ports, scale: Scale) => Attack,
): Scenario[] => games.map((g) => scenario(attack, [g], hold, (ports, scale) => start(g, ports, scale)));

const ALL_FOUR: readonly Game[] = ['mia', 'dame', 'ostseeschach', 'catan'];

/**
 * Every scenario, in the order the suite runs them: first those that play games (an attacker host
 * may hold only a few games, and the garbage attacks use some of them up), then garbage and
 * floods, then what builds up a state and holds it.
 */
export const SCENARIOS: readonly Scenario[] = [
  ...perGame('connect and vanish mid-game', ALL_FOUR, false, vanishAttack),
  ...perGame('wrong-turn and illegal moves', ALL_FOUR, false, wrongTurnAttack),
  ...perGame('random bytes', ALL_FOUR, false, randomBytesAttack),
  ...perGame('invalid UTF-8', ALL_FOUR, false, invalidUtf8Attack),
  ...perGame('overlong lines', ALL_FOUR, false, overlongAttack),
  scenario('JSON bombs', ['catan'], false, jsonBombAttack),
  scenario('XML bombs', ['ostseeschach'], false, xmlBombAttack),
  scenario('Mia flood from one port', ['mia'], false, (p, s) => miaFloodAttack(p, s, 1)),
  scenario('Mia flood from 1000 ports', ['mia'], false, (p, s) => miaFloodAttack(p, s, 1000)),
  ...perGame('slowloris', TCP_GAMES, true, (g, p, s) => slowlorisAttack(g as TcpGame, p, s)),
  scenario('Mia dead registrations', ['mia'], true, (p) => miaDeadAttack(p)),
  scenario('Dame game-table filling', ['dame'], true, (p) => dameTableAttack(p)),
  scenario('Ostseeschach empty prepared rooms', ['ostseeschach'], true, ostEmptyRoomsAttack),
  scenario('Ostseeschach never-joining connections', ['ostseeschach'], true, ostNeverJoinAttack),
  scenario('1000+ idle connections', TCP_GAMES, true, idleAttack),
];

/** Did the attack reach the server at all (so that a pass is not vacuous)? */
export function attackReached(a: Attack): boolean {
  return a.stats.connects > 0 || a.stats.datagrams > 0;
}

export function describeStats(a: Attack): string {
  const s = a.stats;
  const parts = [
    s.connects || s.failedConnects
      ? `${s.connects} connects (${s.failedConnects} failed, ${s.closedByServer} closed by server)`
      : '',
    s.datagrams ? `${s.datagrams} datagrams (${s.replies} replies)` : '',
    `${(s.bytesSent / 1048576).toFixed(1)} MiB sent`,
    `${a.held()} held`,
    ...Object.entries(s.events).map(([k, v]) => `${v} ${k}`),
  ];
  return parts.filter(Boolean).join(', ');
}
