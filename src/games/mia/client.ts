import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { systemClock, type Clock, type Timer } from '../../core/clock.js';
import { isLoopbackHost } from '../../core/hosts.js';
import { connectionLogger, logWire, silentLogger, type Logger } from '../../core/log.js';
import { ALL_DICE, formatDice, type Dice } from './dice.js';
import { formatClient, isValidName, MAX_NAME_LENGTH, parseServer, type IncomingServer, type OutgoingClient } from './protocol.js';
import type { MiaBot, ObservedEvent, RoundContext } from './bots/types.js';

/**
 * Connects a bot (or a spectator) to any Mia server over UDP. Every answer is computed
 * synchronously in the socket handler, well inside the server's 250 ms. The client trusts nothing:
 * unknown or malformed datagrams are ignored, duplicates are answered once, and no error escapes
 * the socket handler.
 */

export interface MiaClientOptions {
  host: string;
  port: number;
  name: string;
  /** Absent: register as a spectator. */
  bot?: MiaBot;
  log?: Logger;
  clock?: Clock;
  /** Silence (no HEARTBEAT nor anything else) after which the client registers again; default 5000. */
  heartbeatTimeoutMs?: number;
  /** Every datagram received, as text, before it is handled. */
  onMessage?: (line: string) => void;
  /** Asked at each invitation (ROUND STARTING) whether to JOIN; default: always (the house line-up sits some out). */
  joins?: () => boolean;
  /**
   * Told UNREGISTERED unasked (expired, or a server that lost us), register again at once, as a
   * long-running bot should; only a REJECTED or no answer ends it (a tournament table after its
   * last round rejects). Default false: every unasked UNREGISTERED is final.
   */
  registerAgain?: boolean;
  /** The server unregistered us on its own for good (a tournament table after its last round, or too many missed rounds). */
  onUnregistered?: () => void;
}

export interface MiaClientStats {
  /** Finished rounds this client took part in (for a spectator: finished rounds seen). */
  rounds: number;
  /** Our points in the last SCORE that listed us. */
  points: number | null;
  /** Rounds this client lost. */
  lost: number;
}

export const REGISTER_RETRY_MS = 1000;
export const REGISTER_TIMEOUT_MS = 3000;
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 5000;
/** The client's receive queue: a SCORE of a big table is up to 64 KiB, and must not crowd out an invitation. */
const RECEIVE_BUFFER_BYTES = 1024 * 1024;
/** Answered questions remembered: far more than a round can ask, few enough to cost nothing. */
const ANSWERS_KEPT = 256;

interface RoundTrack {
  number: number;
  players: readonly string[];
  announcements: { name: string; dice: Dice }[];
  seer: string | null;
  revealed: boolean;
  over: boolean;
}

const freshRound = (number = 0, players: readonly string[] = []): RoundTrack => ({
  number,
  players,
  announcements: [],
  seer: null,
  revealed: false,
  over: false,
});

export class MiaClient {
  readonly stats: MiaClientStats = { rounds: 0, points: null, lost: 0 };
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly heartbeatTimeoutMs: number;
  private socket: Socket | null = null;
  /** The server's IPv4 address, resolved once at start so that no answer waits for DNS. */
  private target: string;
  private pending: { resolve: () => void; reject: (e: Error) => void; timers: Timer[] } | null = null;
  private registered = false;
  private stopping = false;
  private watchdog: Timer | null = null;
  private round: RoundTrack = freshRound();
  /**
   * The questions answered lately (command;token). Tokens are fresh per message (spec "Tokens"), so
   * a token seen again is the same datagram once more — right away or late, after the round moved
   * on — and is answered once.
   */
  private readonly answered = new Set<string>();

  constructor(private readonly options: MiaClientOptions) {
    this.log = connectionLogger(options.log ?? silentLogger, { game: 'mia', conn: options.name });
    this.clock = options.clock ?? systemClock;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
    this.target = options.host;
  }

  get name(): string {
    return this.options.name;
  }

  get isRegistered(): boolean {
    return this.registered;
  }

  /** The local UDP port, once started. */
  get localPort(): number | null {
    try {
      return this.socket?.address().port ?? null;
    } catch {
      return null;
    }
  }

  /** Binds, registers, and resolves on REGISTERED; rejects on REJECTED or after 3 s of silence. */
  async start(): Promise<void> {
    if (this.socket) throw new Error('MiaClient already started');
    this.stopping = false;
    const { host, port, name } = this.options;
    // `a;b` would register as `a` and then answer nothing addressed to it.
    if (!isValidName(name)) throw new RangeError(`${JSON.stringify(this.options.name)} is no Mia name: 1 to ${MAX_NAME_LENGTH} characters, none of , ; : spaces or control characters`);
    if (isIP(host) === 0) {
      try {
        this.target = (await lookup(host, { family: 4 })).address;
      } catch (error) {
        throw new Error(`cannot resolve the Mia server host ${host}: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else this.target = host;
    const socket = createSocket({ type: 'udp4', recvBufferSize: RECEIVE_BUFFER_BYTES });
    this.socket = socket;
    socket.on('message', (msg) => this.receive(msg));
    socket.on('error', (error) => this.log.warn({ err: error }, 'mia client socket error'));
    const bindAddress = isLoopbackHost(this.target) ? '127.0.0.1' : '0.0.0.0';
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(0, bindAddress, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.close();
      throw error;
    }

    await new Promise<void>((resolve, reject) => {
      const deadline = this.clock.setTimeout(() => {
        this.fail(new Error(`no answer from the Mia server at ${host}:${port} to REGISTER;${name} within ${REGISTER_TIMEOUT_MS / 1000} s`));
      }, REGISTER_TIMEOUT_MS);
      const retry = this.clock.setInterval(() => this.register(), REGISTER_RETRY_MS);
      this.pending = { resolve, reject, timers: [deadline, retry] };
      this.register();
    });
  }

  /** Sends UNREGISTER and closes the socket. */
  async stop(): Promise<void> {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    this.stopping = true;
    this.registered = false;
    const pending = this.settle();
    this.watchdog?.cancel();
    this.watchdog = null;
    const line = formatClient({ type: 'UNREGISTER' });
    logWire(this.log, 'out', line);
    await new Promise<void>((resolve) => {
      try {
        socket.send(line, this.options.port, this.target, () => resolve());
      } catch {
        resolve();
      }
    });
    try {
      socket.close();
    } catch {
      // already closed
    }
    pending?.reject(new Error('MiaClient stopped before it was registered'));
  }

  private close(): void {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    try {
      socket.close();
    } catch {
      // already closed
    }
  }

  /** Unregistered unasked: REGISTER again (retried) until REGISTERED; a REJECTED or silence is final. */
  private registerAgain(): void {
    this.log.warn('the server unregistered us unasked: registering again');
    const deadline = this.clock.setTimeout(() => this.fail(new Error('no answer to REGISTER')), REGISTER_TIMEOUT_MS);
    const retry = this.clock.setInterval(() => this.register(), REGISTER_RETRY_MS);
    this.pending = {
      resolve: () => this.log.info('registered again'),
      reject: (error) => {
        this.log.warn({ err: error }, 'could not register again: done');
        this.unregistered();
      },
      timers: [deadline, retry],
    };
    this.register();
  }

  private unregistered(): void {
    try {
      this.options.onUnregistered?.();
    } catch (error) {
      this.log.warn({ err: error }, 'onUnregistered handler failed');
    }
  }

  private register(): void {
    const name = this.options.name;
    this.send(this.options.bot ? { type: 'REGISTER', name } : { type: 'REGISTER_SPECTATOR', name });
  }

  private settle(): NonNullable<MiaClient['pending']> | null {
    const pending = this.pending;
    this.pending = null;
    for (const t of pending?.timers ?? []) t.cancel();
    return pending;
  }

  private fail(error: Error): void {
    const pending = this.settle();
    if (!pending) return;
    this.close();
    pending.reject(error);
  }

  private send(message: OutgoingClient): void {
    const socket = this.socket;
    if (!socket) return;
    const line = formatClient(message);
    logWire(this.log, 'out', line);
    try {
      socket.send(line, this.options.port, this.target, (error) => {
        if (error) this.log.warn({ err: error, line }, 'mia client could not send');
      });
    } catch (error) {
      this.log.warn({ err: error, line }, 'mia client could not send');
    }
  }

  private armWatchdog(): void {
    this.watchdog?.cancel();
    if (!this.registered || this.stopping) return;
    this.watchdog = this.clock.setTimeout(() => {
      this.log.warn({ silentMs: this.heartbeatTimeoutMs }, 'no message from the Mia server: registering again');
      this.register();
      this.armWatchdog();
    }, this.heartbeatTimeoutMs);
  }

  private receive(datagram: Buffer): void {
    try {
      const line = datagram.toString('utf8');
      logWire(this.log, 'in', line);
      this.armWatchdog();
      try {
        this.options.onMessage?.(line);
      } catch (error) {
        this.log.warn({ err: error }, 'onMessage handler failed');
      }
      const message = parseServer(datagram);
      if (message === null) {
        this.log.debug({ line: line.slice(0, 80) }, 'ignoring unknown message');
        return;
      }
      this.handle(message);
    } catch (error) {
      this.log.error({ err: error }, 'mia client failed to handle a datagram');
    }
  }

  /** True the first time a (command, token) pair is seen among the last ANSWERS_KEPT. */
  private firstTime(command: string, token: string): boolean {
    const key = `${command};${token}`;
    if (this.answered.has(key)) return false;
    this.answered.add(key);
    if (this.answered.size > ANSWERS_KEPT) this.answered.delete(this.answered.values().next().value as string);
    return true;
  }

  private context(): RoundContext {
    return { me: this.options.name, round: this.round.number, players: this.round.players, announcements: this.round.announcements.slice() };
  }

  private tell(event: ObservedEvent): void {
    const bot = this.options.bot;
    if (!bot?.observe) return;
    try {
      bot.observe(event);
    } catch (error) {
      this.log.warn({ err: error, event: event.type }, 'bot failed to observe an event');
    }
  }

  private handle(m: IncomingServer): void {
    const bot = this.options.bot;
    const me = this.options.name;
    switch (m.type) {
      case 'REGISTERED': {
        if (this.stopping) return;
        this.registered = true;
        const pending = this.settle();
        if (pending) pending.resolve();
        else this.log.info('registered again');
        this.armWatchdog();
        return;
      }
      case 'REJECTED': {
        if (this.pending) {
          this.fail(new Error(`the Mia server rejected the registration of "${me}": ${m.reason || 'no reason given'}`));
        } else this.log.error({ reason: m.reason }, 'registration rejected');
        return;
      }
      case 'UNREGISTERED':
        if (this.stopping || !this.registered) return;
        this.registered = false;
        this.watchdog?.cancel();
        this.watchdog = null;
        if (this.options.registerAgain === true) this.registerAgain();
        else this.unregistered();
        return;
      case 'HEARTBEAT':
      case 'ECHOING':
        return;
      case 'ROUND STARTING':
        if (bot && !this.stopping && this.firstTime(m.type, m.token) && (this.options.joins?.() ?? true)) this.send({ type: 'JOIN', token: m.token });
        return;
      case 'ROUND CANCELED':
        this.round = freshRound();
        return;
      case 'ROUND STARTED': {
        if (this.round.number === m.round && !this.round.over && m.round !== 0) return; // duplicate
        this.round = freshRound(Number.isFinite(m.round) ? m.round : 0, m.players);
        this.tell({ type: 'roundStarted', round: this.round.number, players: m.players });
        return;
      }
      case 'YOUR TURN': {
        if (!bot || this.stopping || !this.firstTime(m.type, m.token)) return;
        let action: unknown = 'roll';
        try {
          action = bot.onTurn(this.context());
        } catch (error) {
          this.log.error({ err: error }, 'bot failed on YOUR TURN; rolling');
        }
        this.send({ type: action === 'see' ? 'SEE' : 'ROLL', token: m.token });
        return;
      }
      case 'ROLLED': {
        if (!bot || this.stopping || !this.firstTime(m.type, m.token)) return;
        let rolled = m.dice;
        if (rolled === null) {
          // a broken server: claim as if the lowest roll came up rather than not answering at all
          this.log.warn('ROLLED without readable dice; announcing as if 3,1 was rolled');
          rolled = ALL_DICE[0]?.dice ?? { high: 3, low: 1 };
        }
        let claim: Dice = rolled;
        try {
          claim = bot.onRolled(this.context(), rolled);
        } catch (error) {
          this.log.error({ err: error }, 'bot failed on ROLLED; announcing the roll');
        }
        this.send({ type: 'ANNOUNCE', dice: claim, token: m.token });
        return;
      }
      case 'PLAYER ROLLS':
        return;
      case 'ANNOUNCED': {
        if (m.dice === null) {
          this.log.debug({ name: m.name }, 'ignoring ANNOUNCED with unreadable dice');
          return;
        }
        const last = this.round.announcements[this.round.announcements.length - 1];
        if (this.round.over || (last?.name === m.name && formatDice(last.dice) === formatDice(m.dice))) return;
        this.round.announcements.push({ name: m.name, dice: m.dice });
        this.tell({ type: 'announced', name: m.name, dice: m.dice });
        return;
      }
      case 'PLAYER WANTS TO SEE':
        if (this.round.over || this.round.seer !== null) return;
        this.round.seer = m.name;
        this.tell({ type: 'wantsToSee', name: m.name });
        return;
      case 'ACTUAL DICE':
        if (m.dice === null || this.round.over || this.round.revealed) return;
        this.round.revealed = true;
        this.tell({ type: 'actualDice', dice: m.dice });
        return;
      case 'PLAYER LOST': {
        if (this.round.over) return;
        this.round.over = true;
        const tookPart = !bot || this.round.players.includes(me) || this.round.announcements.some((a) => a.name === me);
        if (tookPart) this.stats.rounds++;
        if (bot && m.names.includes(me)) this.stats.lost++;
        this.tell({ type: 'lost', names: m.names, reason: m.reason });
        return;
      }
      case 'SCORE': {
        const mine = m.scores.find(([name]) => name === me);
        if (mine && Number.isFinite(mine[1])) this.stats.points = mine[1];
        return;
      }
    }
  }
}
