import type { Clock, Timer } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import type { RecordStore } from '../../core/records.js';
import { Rng } from '../../core/rng.js';
import type { GameEvent, SeenEvent, Viewer } from './events.js';
import { HouseBot, type HouseBotOptions } from './house-bot.js';
import { Match, type HistoryStep, type Participant, type Peer } from './match.js';
import { lobbyPlayer } from './messages.js';
import { MAX_CHAT_LENGTH, MAX_NAME_LENGTH, MELDUNG_SERVER, OK, Outgoing, PROTOCOL, SERVER_VERSION, type ClientMessage, type ServerMessage } from './protocol.js';
import { COLOURS, type Board, type Colour, type Status } from './rules/index.js';
import type { CatanLobbyRow, CatanMatchRow, CatanResultRow, SeatKind } from './snapshot.js';

/**
 * The hall: handshakes, lobbies and the games they become (catan.md D8). Each port has one open
 * lobby; newcomers join the oldest lobby with a free seat, which in practice is that one. A lobby
 * with 4 players takes no one else; a game starts as soon as 3 or 4 players are in a lobby and all
 * of them have sent `Spiel starten`, and then leaves the hall to its own `Match`. Our house bots
 * come in as sessions like any client and speak the same messages, only without a socket.
 */

export interface Session {
  readonly peer: Peer;
  readonly address: string;
  id: number | null;
  name: string | null;
  colour: Colour | null;
  status: Status;
  kind: SeatKind;
  lobby: Lobby | null;
  match: Match | null;
  /** A house bot's lobby (else the open one is joined). */
  readonly target: Lobby | null;
}

export interface Lobby {
  readonly id: string;
  readonly members: Session[];
  /** For a game of house bots: nobody else joins. */
  readonly dedicated: boolean;
  readonly createdAt: number;
  fillTimer: Timer | null;
  fillAt: number | null;
  /** Seats held for house bots whose Hallo is on its way. */
  reserved: number;
  /** Resolved with the match id when the game starts. */
  readonly waiters: ((matchId: string) => void)[];
}

export interface HallOptions {
  readonly seed: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: RecordStore | null;
  /** D10 per-decision timeout in games with a human; null: none. */
  readonly turnTimeoutMs: number | null;
  /** D10 per-decision timeout in games of AI clients and bots only. */
  readonly aiTurnTimeoutMs: number | null;
  /** Fill the open lobby with house bots this long after a player there sent `Spiel starten`; null: never. */
  readonly botFillMs: number | null;
  /** Games (running, plus lobbies) at once; a Hallo beyond gets `Spiel ist voll`. */
  readonly maxGames: number;
  readonly houseBot: Omit<HouseBotOptions, 'hall' | 'lobby' | 'name' | 'seed'>;
  readonly censor: (event: GameEvent, viewer: Viewer) => SeenEvent;
  readonly sameForOthers: boolean;
  readonly publish: (type: string, data: unknown) => void;
  /** Test hooks. */
  readonly ids?: (() => number) | undefined;
  readonly board?: ((game: number) => { readonly board: Board; readonly robber: number } | undefined) | undefined;
  readonly order?: ((ids: readonly number[]) => readonly number[] | undefined) | undefined;
  readonly dice?: (() => readonly [number, number] | undefined) | undefined;
  readonly onStep?: ((matchId: string, step: HistoryStep) => void) | undefined;
}

const RECENT = 20;

/** The length of a name in characters (an umlaut or an emoji counts one). */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** A lobby member's Statusupdate (ids are assigned before anyone is shown). */
const seen = (s: Session, own: boolean) => lobbyPlayer({ id: s.id!, name: s.name, colour: s.colour, status: s.status }, own);
const MAX_ID = 2 ** 31 - 1;
const BOT_NAMES = ['Zufall Anton', 'Zufall Berta', 'Zufall Cäsar', 'Zufall Dora'];

export class Hall {
  private readonly lobbies: Lobby[] = [];
  private readonly matches = new Map<string, Match>();
  private readonly sessions = new Set<Session>();
  private readonly ids = new Set<number>();
  private readonly rng: Rng;
  private lobbyCount = 0;
  private gameCount = 0;
  private botCount = 0;
  private readonly recent: CatanResultRow[] = [];
  private finished = 0;
  private aborted = 0;
  private stopped = false;

  constructor(private readonly o: HallOptions) {
    this.rng = Rng.seeded(`${o.seed}/ids`);
  }

  // ---- sessions --------------------------------------------------------------------------------

  /** A new connection (or house bot): the server's Hallo goes out at once. */
  connect(peer: Peer, address: string, kind: SeatKind = 'human', target: Lobby | null = null): Session {
    const session: Session = { peer, address, id: null, name: null, colour: null, status: 'Spiel starten', kind, lobby: null, match: null, target };
    this.sessions.add(session);
    this.send(session, { type: 'hello', version: SERVER_VERSION, protocol: PROTOCOL });
    return session;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  receive(session: Session, message: ClientMessage): void {
    if (session.match) {
      session.match.receive(session.id!, message);
      return;
    }
    if (message.type === 'hello') {
      this.hello(session, message.version);
      return;
    }
    if (session.id === null || !session.lobby) {
      this.fail(session, MELDUNG_SERVER.wrongStatus);
      return;
    }
    const lobby = session.lobby;
    switch (message.type) {
      case 'chat':
        if (message.text.length > MAX_CHAT_LENGTH) this.fail(session, MELDUNG_SERVER.invalidMessage);
        else {
          this.toLobby(lobby, { type: 'chat', sender: session.id, text: message.text });
          this.send(session, OK);
        }
        return;
      case 'player':
        this.player(session, lobby, message.name, message.colour);
        return;
      case 'startGame':
        this.startGame(session, lobby);
        return;
      case 'action':
        this.fail(session, MELDUNG_SERVER.wrongStatus);
        return;
    }
  }

  /** The session's connection is gone (or closed by us). */
  disconnected(session: Session): void {
    if (!this.sessions.delete(session)) return;
    if (session.id !== null) this.ids.delete(session.id);
    if (session.match) {
      session.match.disconnect(session.id!);
      return;
    }
    const lobby = session.lobby;
    if (!lobby) return;
    lobby.members.splice(lobby.members.indexOf(session), 1);
    session.lobby = null;
    session.status = 'Verbindung verloren';
    // D9: everyone left in the lobby learns it.
    for (const m of lobby.members) this.send(m, { type: 'status', player: seen(session, false) });
    this.o.log.info({ player: session.id, lobby: lobby.id }, 'left the lobby');
    if (lobby.members.length === 0 && lobby.reserved === 0) this.dropLobby(lobby);
    else this.startIfReady(lobby);
  }

  private hello(session: Session, version: string): void {
    if (session.id !== null) {
      this.fail(session, MELDUNG_SERVER.wrongStatus);
      return;
    }
    const target = session.target;
    if (target) target.reserved = Math.max(0, target.reserved - 1);
    // A house bot's lobby may have started or gone meanwhile.
    const lobby = target ? (this.lobbies.includes(target) && target.members.length < 4 ? target : null) : this.openLobby();
    if (!lobby) {
      this.fail(session, MELDUNG_SERVER.gameFull);
      session.peer.end();
      return;
    }
    const id = this.newId();
    session.id = id;
    if (session.kind !== 'bot') session.kind = version.includes('(KI)') ? 'ai' : 'human';
    this.send(session, { type: 'welcome', id });
    for (const m of lobby.members) this.send(session, { type: 'status', player: seen(m, false) });
    lobby.members.push(session);
    session.lobby = lobby;
    this.statusToLobby(lobby, session);
    this.o.log.info({ player: id, lobby: lobby.id, kind: session.kind, address: session.address }, 'joined a lobby');
  }

  private player(session: Session, lobby: Lobby, name: string, colour: string): void {
    if (session.status !== 'Spiel starten') {
      this.fail(session, MELDUNG_SERVER.wrongStatus);
      return;
    }
    if (name.trim() === '' || codePoints(name) > MAX_NAME_LENGTH) {
      this.fail(session, MELDUNG_SERVER.invalidName);
      return;
    }
    const chosen = COLOURS.find((c) => c === colour);
    if (chosen === undefined) {
      this.fail(session, MELDUNG_SERVER.invalidColour);
      return;
    }
    if (lobby.members.some((m) => m !== session && m.colour === chosen)) {
      this.fail(session, MELDUNG_SERVER.colourTaken);
      return;
    }
    session.name = name;
    session.colour = chosen;
    this.statusToLobby(lobby, session);
    this.send(session, OK);
  }

  private startGame(session: Session, lobby: Lobby): void {
    if (session.status !== 'Spiel starten') {
      this.fail(session, MELDUNG_SERVER.wrongStatus);
      return;
    }
    if (session.name === null) {
      this.fail(session, MELDUNG_SERVER.invalidName);
      return;
    }
    if (session.colour === null) {
      this.fail(session, MELDUNG_SERVER.invalidColour);
      return;
    }
    session.status = 'Wartet auf Spielbeginn';
    this.statusToLobby(lobby, session);
    if (!this.startIfReady(lobby)) this.planBotFill(lobby);
    this.send(session, OK);
  }

  // ---- lobbies -----------------------------------------------------------------------------------

  private newLobby(dedicated: boolean): Lobby {
    const lobby: Lobby = {
      id: `lobby-${++this.lobbyCount}`,
      members: [],
      dedicated,
      createdAt: this.o.clock.now(),
      fillTimer: null,
      fillAt: null,
      reserved: 0,
      waiters: [],
    };
    this.lobbies.push(lobby);
    return lobby;
  }

  /** The lobby a newcomer joins, or null when the server is full. */
  private openLobby(): Lobby | null {
    const open = this.lobbies.find((l) => !l.dedicated && l.members.length + l.reserved < 4);
    if (open) return open;
    if (this.stopped || this.matches.size + this.lobbies.length >= this.o.maxGames) return null;
    return this.newLobby(false);
  }

  private dropLobby(lobby: Lobby): void {
    lobby.fillTimer?.cancel();
    const i = this.lobbies.indexOf(lobby);
    if (i >= 0) this.lobbies.splice(i, 1);
  }

  private startIfReady(lobby: Lobby): boolean {
    const n = lobby.members.length;
    // Bots on their way get their seats: the game waits for them.
    if (n < 3 || n > 4 || lobby.reserved > 0 || !lobby.members.every((m) => m.status === 'Wartet auf Spielbeginn')) return false;
    this.dropLobby(lobby);
    const number = ++this.gameCount;
    let participants: Participant[] = lobby.members.map((m) => ({
      id: m.id!,
      name: m.name!,
      colour: m.colour!,
      kind: m.kind,
      address: m.address,
      peer: m.peer,
    }));
    const order = this.o.order?.(participants.map((p) => p.id));
    if (order) participants = order.map((id) => participants.find((p) => p.id === id)!);
    const allMachines = participants.every((p) => p.kind !== 'human');
    const board = this.o.board?.(number);
    const started = Match.start({
      number,
      seed: `${this.o.seed}/${number}`,
      participants,
      board,
      fixedOrder: order !== undefined,
      dice: this.o.dice,
      timeoutMs: allMachines ? this.o.aiTurnTimeoutMs : this.o.turnTimeoutMs,
      clock: this.o.clock,
      log: this.o.log,
      store: this.o.store,
      censor: this.o.censor,
      sameForOthers: this.o.sameForOthers,
      publish: this.o.publish,
      onStep: this.o.onStep,
      onEnd: (m, result) => this.ended(m, result),
    });
    if (!started.ok) {
      this.o.log.error({ lobby: lobby.id, error: started.error }, 'could not start a game');
      for (const m of lobby.members) m.peer.end();
      return true;
    }
    const match = started.value;
    for (const m of lobby.members) {
      m.lobby = null;
      m.match = match;
    }
    if (!match.over) this.matches.set(match.id, match);
    this.o.log.info({ match: match.id, players: participants.map((p) => p.id) }, 'game started');
    for (const w of lobby.waiters) w(match.id);
    return true;
  }

  private ended(match: Match, result: CatanResultRow): void {
    this.matches.delete(match.id);
    if (result.status === 'finished') this.finished++;
    else this.aborted++;
    this.recent.unshift(result);
    if (this.recent.length > RECENT) this.recent.pop();
  }

  private planBotFill(lobby: Lobby): void {
    const ms = this.o.botFillMs;
    if (ms === null || lobby.dedicated || lobby.fillTimer) return;
    lobby.fillAt = this.o.clock.now() + ms;
    lobby.fillTimer = this.o.clock.setTimeout(() => {
      lobby.fillTimer = null;
      lobby.fillAt = null;
      if (this.lobbies.includes(lobby)) this.addBots(lobby, 4);
    }, ms);
  }

  /** Seats house bots in `lobby` until it has `size` players (they choose free colours and start). */
  addBots(lobby: Lobby, size: number): number {
    let added = 0;
    while (lobby.members.length + lobby.reserved < Math.min(4, size)) {
      const n = ++this.botCount;
      const name = `${BOT_NAMES[(n - 1) % BOT_NAMES.length]!}${n > BOT_NAMES.length ? ` ${Math.ceil(n / BOT_NAMES.length)}` : ''}`;
      lobby.reserved++;
      new HouseBot({ ...this.o.houseBot, hall: this, lobby, name, seed: `${this.o.seed}/bot/${n}` });
      added++;
    }
    return added;
  }

  /** Fills the open lobby (or the one with `lobbyId`) with house bots up to `size`. */
  fillLobby(lobbyId?: string, size = 4): { lobby: string; added: number } | null {
    const lobby = lobbyId === undefined ? this.openLobby() : this.lobbies.find((l) => l.id === lobbyId);
    if (!lobby) return null;
    return { lobby: lobby.id, added: this.addBots(lobby, size) };
  }

  /** A game of house bots only; resolves with its record id once it has started. */
  startBotGame(players: 3 | 4 = 4): Promise<string> {
    if (this.stopped || this.matches.size + this.lobbies.length >= this.o.maxGames) return Promise.reject(new Error(MELDUNG_SERVER.gameFull));
    const lobby = this.newLobby(true);
    const started = new Promise<string>((resolve) => lobby.waiters.push(resolve));
    this.addBots(lobby, players);
    return started;
  }

  stop(): void {
    this.stopped = true;
    for (const lobby of [...this.lobbies]) this.dropLobby(lobby);
    for (const match of [...this.matches.values()]) match.stop();
  }

  // ---- sending -----------------------------------------------------------------------------------

  private send(session: Session, message: ServerMessage): void {
    session.peer.deliver(new Outgoing(message));
  }

  private fail(session: Session, meldung: string): void {
    this.send(session, { type: 'error', message: meldung });
  }

  private toLobby(lobby: Lobby, message: ServerMessage): void {
    const out = new Outgoing(message);
    for (const m of lobby.members) m.peer.deliver(out);
  }

  /** The subject's Statusupdate to every member, censored for all but the subject. */
  private statusToLobby(lobby: Lobby, subject: Session): void {
    const others = new Outgoing({ type: 'status', player: seen(subject, false) });
    for (const m of lobby.members) {
      if (m === subject) this.send(m, { type: 'status', player: seen(subject, true) });
      else m.peer.deliver(others);
    }
  }

  private newId(): number {
    for (;;) {
      const id = this.o.ids?.() ?? this.rng.int(1, MAX_ID);
      if (!this.ids.has(id)) {
        this.ids.add(id);
        return id;
      }
    }
  }

  // ---- the dashboard -----------------------------------------------------------------------------

  lobbyRows(): CatanLobbyRow[] {
    return this.lobbies.map((l) => ({
      id: l.id,
      players: l.members.map((m) => ({ id: m.id!, name: m.name, colour: m.colour, status: m.status, kind: m.kind, address: m.address })),
      dedicated: l.dedicated,
      createdAt: l.createdAt,
      botFillAt: l.fillAt,
    }));
  }

  matchRows(): CatanMatchRow[] {
    return [...this.matches.values()].map((m) => m.row());
  }

  match(id: string): Match | undefined {
    return this.matches.get(id);
  }

  get liveMatches(): number {
    return this.matches.size;
  }

  results(): { recent: CatanResultRow[]; finished: number; aborted: number } {
    return { recent: this.recent.map((r) => ({ ...r })), finished: this.finished, aborted: this.aborted };
  }
}
