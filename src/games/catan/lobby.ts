import type { Clock } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { RateLimitedWarn } from '../../core/hosts.js';
import { houseLogger, type Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Rng } from '../../core/rng.js';
import type { GameEvent, SeenEvent, Viewer } from './events.js';
import type { CatanLadderDoor } from './ladder-door.js';
import { HouseBot, type BotSeat, type HouseBotOptions } from './house-bot.js';
import { Match, type HistoryStep, type Participant, type Peer } from './match.js';
import { TEXT, lobbyPlayer } from './messages.js';
import { MAX_CHAT_LENGTH, MAX_NAME_LENGTH, MELDUNG_SERVER, OK, Outgoing, PROTOCOL, type ClientMessage, type ServerMessage } from './protocol.js';
import { COLOURS, type Board } from './rules/index.js';
import type { Lobby, Reservation, Session } from './session.js';
import { SERVER_VERSION } from './version.js';
import type { CatanLobbyRow, CatanMatchRow, CatanResultRow, SeatKind } from './snapshot.js';

/**
 * The hall: handshakes, lobbies and the games they become (catan.md D8). Each port has one open
 * lobby; newcomers join the oldest lobby with a free seat, which in practice is that one. A lobby
 * with 4 players takes no one else; a game starts as soon as 3 or 4 players are in a lobby and all
 * of them have sent `Spiel starten`, and then leaves the hall to its own `Match`. Our house bots
 * come in as sessions like any client and speak the same messages, only without a socket.
 *
 * Fair share: the lobbies and running games one remote IP's sessions sit in are capped
 * (`maxLobbiesPerHost`; a Hallo that would need one more gets `Spiel ist voll`), and a lobby nobody
 * has joined for `idleLobbyTimeoutMs` is closed, so no client can hold a lobby forever.
 */

export interface HallOptions {
  readonly seed: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: Records | null;
  /** D10 per-decision timeout in games with a human; null: none. */
  readonly turnTimeoutMs: number | null;
  /** D10 per-decision timeout in games of AI clients and bots only. */
  readonly aiTurnTimeoutMs: number | null;
  /** Fill the open lobby with house bots this long after a player there sent `Spiel starten`; null: never. */
  readonly botFillMs: number | null;
  /** Games (running, plus lobbies) at once; a Hallo beyond gets `Spiel ist voll`. */
  readonly maxGames: number;
  /** Lobbies and running games one host's sessions may sit in (0: no cap); a Hallo beyond gets `Spiel ist voll`. */
  readonly maxLobbiesPerHost: number;
  /** Close a lobby nobody has joined for this long; null: never. */
  readonly idleLobbyTimeoutMs: number | null;
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
  /** The counted sessions of each host. */
  private readonly byHost = new Map<string, Set<Session>>();
  private readonly warn: RateLimitedWarn;
  private readonly ids = new Set<number>();
  private readonly rng: Rng;
  private lobbyCount = 0;
  private gameCount = 0;
  private botCount = 0;
  private readonly recent: CatanResultRow[] = [];
  private finished = 0;
  private aborted = 0;
  private stopped = false;
  private ladder: CatanLadderDoor | null = null;

  constructor(private readonly o: HallOptions) {
    this.rng = Rng.seeded(`${o.seed}/ids`);
    this.warn = new RateLimitedWarn(o.log);
  }

  // ---- sessions --------------------------------------------------------------------------------

  /** A new connection (or house bot): the server's Hallo goes out at once. */
  connect(
    peer: Peer,
    address: string,
    kind: SeatKind = 'human',
    target: Lobby | null = null,
    host: string | null = null,
    holdsSeat = target !== null,
  ): Session {
    const session: Session = {
      peer,
      address,
      host,
      id: null,
      name: null,
      colour: null,
      refusedName: null,
      status: 'Spiel starten',
      kind,
      lobby: null,
      match: null,
      target,
      holdsSeat,
    };
    this.sessions.add(session);
    if (host !== null) {
      let mine = this.byHost.get(host);
      if (!mine) this.byHost.set(host, (mine = new Set()));
      mine.add(session);
    }
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
    this.forgetHost(session);
    session.ladder?.ticket?.leave();
    if (session.id !== null) this.ids.delete(session.id);
    const target = session.target;
    if (session.holdsSeat && target) {
      // A house bot that went before its Hallo gives its seat back.
      session.holdsSeat = false;
      target.reserved = Math.max(0, target.reserved - 1);
      if (this.lobbies.includes(target)) {
        if (target.members.length === 0 && target.reserved === 0 && !target.reservation) this.dropLobby(target);
        else this.startIfReady(target);
      }
    }
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
    // A prepared game stays for its players until it is called off.
    if (lobby.members.length === 0 && lobby.reserved === 0 && !lobby.reservation) this.dropLobby(lobby);
    else this.startIfReady(lobby);
  }

  private hello(session: Session, version: string): void {
    if (session.id !== null) {
      this.fail(session, MELDUNG_SERVER.wrongStatus);
      return;
    }
    const target = session.target;
    if (target && session.holdsSeat) target.reserved = Math.max(0, target.reserved - 1);
    session.holdsSeat = false;
    // A house bot's lobby may have started or gone meanwhile.
    const seats = target?.reservation?.names.length ?? 4;
    const lobby = session.ladder
      ? this.ladderRoom()
      : target
        ? this.lobbies.includes(target) && target.members.length < seats
          ? target
          : null
        : this.lobbyFor(session);
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
    this.armIdle(lobby);
    this.statusToLobby(lobby, session);
    // House bots joining is routine; who else joins is news.
    const joined = { player: id, lobby: lobby.id, kind: session.kind, address: session.address };
    if (session.kind === 'bot') this.o.log.debug(joined, 'joined a lobby');
    else this.o.log.info(joined, 'joined a lobby');
  }

  private player(session: Session, lobby: Lobby, name: string, colour: string): void {
    if (session.status !== 'Spiel starten') {
      this.fail(session, MELDUNG_SERVER.wrongStatus);
      return;
    }
    session.refusedName = null;
    if (lobby.ladderRoom === true) {
      this.ladderPlayer(session, lobby, name, colour);
      return;
    }
    const names = lobby.reservation?.names;
    if (
      name.trim() === '' ||
      codePoints(name) > MAX_NAME_LENGTH ||
      // A prepared game takes its players' names only, each once, each from its own entrant.
      (names && (!names.includes(name) || lobby.members.some((m) => m !== session && m.name === name))) ||
      this.notOwner(lobby, name, session)
    ) {
      this.fail(session, MELDUNG_SERVER.invalidName);
      return;
    }
    const chosen = COLOURS.find((c) => c === colour);
    if (chosen === undefined) {
      this.fail(session, MELDUNG_SERVER.invalidColour);
      return;
    }
    if (lobby.members.some((m) => m !== session && m.colour === chosen)) {
      // Our reading of seed §8 refuses the taken colour here already; a client that reads it
      // literally sends `Spiel starten` next and must hear about the colour there, not the name.
      // A player who has a colour keeps name and colour unchanged.
      if (session.colour === null) session.refusedName = name;
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
    if (session.refusedName !== null) {
      // Seed §8: Spiel starten is accepted only with a colour nobody else has.
      this.fail(session, MELDUNG_SERVER.colourTaken);
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
    if (lobby.ladderRoom === true) {
      // The ladder makes the game (other students, or house bots after its wait): ladderGame.
      this.send(session, OK);
      session.ladder?.ticket?.wait(session);
      return;
    }
    lobby.reservation?.onReady?.(session.name);
    if (!this.startIfReady(lobby)) this.planBotFill(lobby);
    this.send(session, OK);
  }

  // ---- the ladder (issue 34, ladder-door.ts) ----------------------------------------------------

  /** Opens (or with null closes) the rated ladder's door on the ladder port's connections. */
  setLadder(door: CatanLadderDoor | null): void {
    this.ladder = door;
  }

  /** A ladder connection's own lobby: it waits there alone until the ladder has made its game. */
  private ladderRoom(): Lobby | null {
    if (this.stopped || this.matches.size + this.lobbies.length >= this.o.maxGames) return null;
    const lobby = this.newLobby(true);
    lobby.ladderRoom = true;
    return lobby;
  }

  /**
   * `Spieler` on the ladder port: the name must be a ladder code of the roster (anything else is
   * `Ungueltiger Name`, a refused code its words, and the connection is closed); the session then
   * goes by its roster name. The same code again may change the colour.
   */
  private ladderPlayer(session: Session, lobby: Lobby, name: string, colour: string): void {
    const seat = session.ladder;
    const chosen = COLOURS.find((c) => c === colour);
    if (seat === undefined) return;
    if (seat.ticket !== null) {
      if (name !== seat.code) this.fail(session, MELDUNG_SERVER.invalidName);
      else if (chosen === undefined) this.fail(session, MELDUNG_SERVER.invalidColour);
      else {
        session.colour = chosen;
        this.statusToLobby(lobby, session);
        this.send(session, OK);
      }
      return;
    }
    const door = this.ladder;
    const admission = door === null ? { ok: false as const, text: 'Liga: the ladder is not open right now' } : door.admit(name, session.host ?? '');
    if (admission === null || !admission.ok) {
      this.fail(session, admission === null ? MELDUNG_SERVER.invalidName : admission.text);
      this.o.log.info({ conn: session.address, refused: admission === null ? 'no ladder code' : admission.text }, 'ladder: name refused');
      session.peer.end();
      return;
    }
    if (chosen === undefined) {
      admission.ticket.leave();
      this.fail(session, MELDUNG_SERVER.invalidColour);
      return;
    }
    seat.ticket = admission.ticket;
    seat.code = name;
    session.name = admission.name;
    session.colour = chosen;
    this.statusToLobby(lobby, session);
    this.send(session, OK);
  }

  /**
   * A ladder game: the students waiting in their ladder rooms (`Spiel starten` sent) move into one
   * prepared lobby (a colour taken by another is swapped for a free one, told in a Statusupdate),
   * house bots (`bots`) join it, and the game starts in the turn order of `reservation.names`.
   * Null, and nothing moved, when one of the students no longer waits; else the game's lobby
   * (its `waiters` learn whether the game started).
   */
  ladderGame(students: readonly Session[], bots: readonly BotSeat[], reservation: Reservation): Lobby | null {
    if (this.stopped) return null;
    if (students.some((s) => !this.sessions.has(s) || s.lobby?.ladderRoom !== true || s.status !== 'Wartet auf Spielbeginn')) return null;
    const lobby = this.newLobby(true, reservation);
    for (const s of students) {
      const room = s.lobby!;
      room.members.splice(0);
      this.dropLobby(room);
      const taken = new Set(lobby.members.map((m) => m.colour));
      if (s.colour === null || taken.has(s.colour)) s.colour = COLOURS.find((c) => !taken.has(c)) ?? null;
      for (const m of lobby.members) this.send(s, { type: 'status', player: seen(m, false) });
      lobby.members.push(s);
      s.lobby = lobby;
      this.statusToLobby(lobby, s);
    }
    this.o.log.info({ lobby: lobby.id, players: reservation.names.length, bots: bots.length }, 'ladder game seated');
    if (bots.length > 0) this.addBots(lobby, reservation.names.length, bots);
    else this.startIfReady(lobby);
    return lobby;
  }

  // ---- lobbies -----------------------------------------------------------------------------------

  /** A prepared game's name claimed by a connection that is not its entrant's (Reservation.nameOwner). */
  private notOwner(lobby: Lobby, name: string, session: Session): boolean {
    const owner = lobby.reservation?.nameOwner;
    if (owner === undefined || !lobby.reservation!.names.includes(name) || owner(name, session.address)) return false;
    this.o.log.warn({ name, conn: session.address }, 'name refused: not this entrant\'s own connection');
    return true;
  }

  private newLobby(dedicated: boolean, reservation?: Reservation): Lobby {
    const lobby: Lobby = {
      id: `lobby-${++this.lobbyCount}`,
      members: [],
      dedicated,
      createdAt: this.o.clock.now(),
      fillTimer: null,
      fillAt: null,
      idleTimer: null,
      reserved: 0,
      waiters: [],
      reservation,
    };
    this.lobbies.push(lobby);
    this.armIdle(lobby);
    return lobby;
  }

  /**
   * The lobby a newcomer joins, or null when the server is full. `may` limits the choice among
   * the lobbies with a free seat; `create` allows a new lobby when none of them fits.
   */
  private openLobby(may?: (lobby: Lobby) => boolean, create = true): Lobby | null {
    const open = this.lobbies.find((l) => !l.dedicated && l.members.length + l.reserved < 4 && (!may || may(l)));
    if (open) return open;
    if (!create || this.stopped || this.matches.size + this.lobbies.length >= this.o.maxGames) return null;
    return this.newLobby(false);
  }

  /**
   * The open lobby for a newcomer from a host that may sit in one more lobby or game; a host at
   * `maxLobbiesPerHost` only gets a free seat in a lobby it is in already, or null.
   */
  private lobbyFor(session: Session): Lobby | null {
    const host = session.host;
    const limit = this.o.maxLobbiesPerHost;
    if (host === null || limit <= 0) return this.openLobby();
    const held = new Set<Lobby | Match>();
    for (const s of this.byHost.get(host) ?? []) {
      if (s.lobby) held.add(s.lobby);
      else if (s.match && !s.match.over) held.add(s.match);
    }
    if (held.size < limit) return this.openLobby();
    const lobby = this.openLobby((l) => held.has(l), false);
    if (!lobby) this.warn.warn(`lobbies:${host}`, { host, limit }, 'Hallo refused: this host sits in too many lobbies and games');
    return lobby;
  }

  private forgetHost(session: Session): void {
    if (session.host === null) return;
    const mine = this.byHost.get(session.host);
    mine?.delete(session);
    if (mine?.size === 0) this.byHost.delete(session.host);
  }

  /**
   * (Re)starts the lobby's idle clock: it runs from the last join. A house game's lobby has one
   * too, in case one of its bots broke before the game could start.
   */
  private armIdle(lobby: Lobby): void {
    const ms = this.o.idleLobbyTimeoutMs;
    if (ms === null) return;
    lobby.idleTimer?.cancel();
    lobby.idleTimer = this.o.clock.setTimeout(
      guard(this.o.log, 'idle lobby', () => this.closeIdle(lobby)),
      ms,
    );
  }

  /**
   * Nobody has joined for `idleLobbyTimeoutMs`: the members who have not sent `Spiel starten` are
   * told (`Spiel beendet`, no `Sieger`) and closed, like a lost connection for the others (D9); if
   * fewer than 3 ready players (or only house bots) would remain, the whole lobby goes. Three or
   * four ready ones play.
   */
  private closeIdle(lobby: Lobby): void {
    lobby.idleTimer = null;
    if (!this.lobbies.includes(lobby)) return;
    // House bots on their way take their seats first.
    if (lobby.reserved > 0) {
      this.armIdle(lobby);
      return;
    }
    const ready = lobby.members.filter((m) => m.status === 'Wartet auf Spielbeginn');
    // House bots alone do not get a game out of it.
    const play = ready.length >= 3 && ready.some((m) => m.kind !== 'bot');
    const leaving = play ? lobby.members.filter((m) => !ready.includes(m)) : [...lobby.members];
    this.o.log.info({ lobby: lobby.id, closed: leaving.map((m) => m.id), stay: lobby.members.length - leaving.length }, 'idle lobby');
    if (!play) {
      // All go at once: nobody is told of the others, and nothing starts on the way.
      this.dropLobby(lobby);
      lobby.members.length = 0;
      for (const m of leaving) m.lobby = null;
    }
    for (const m of leaving) {
      this.send(m, { type: 'gameOver', message: TEXT.idleLobby });
      // D9 for the ready players who stay (their game may start now).
      this.disconnected(m);
      m.peer.end();
    }
  }

  private dropLobby(lobby: Lobby): void {
    for (const w of lobby.waiters.splice(0)) w(null);
    lobby.idleTimer?.cancel();
    lobby.idleTimer = null;
    lobby.fillTimer?.cancel();
    const i = this.lobbies.indexOf(lobby);
    if (i >= 0) this.lobbies.splice(i, 1);
  }

  private startIfReady(lobby: Lobby): boolean {
    const n = lobby.members.length;
    const r = lobby.reservation;
    // Bots on their way get their seats: the game waits for them. A prepared game waits for all its players.
    if (n < 3 || n > 4 || lobby.reserved > 0 || !lobby.members.every((m) => m.status === 'Wartet auf Spielbeginn')) return false;
    if (r && n !== r.names.length) return false;
    const waiters = lobby.waiters.splice(0);
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
    const order = r
      ? r.names.map((name) => participants.find((p) => p.name === name)!.id)
      : this.o.order?.(participants.map((p) => p.id));
    if (order) participants = order.map((id) => participants.find((p) => p.id === id)!);
    const allMachines = participants.every((p) => p.kind !== 'human');
    // A game of house bots only is routine: logged at debug (docs/operations.md, "Logs").
    const log = participants.every((p) => p.kind === 'bot') ? houseLogger(this.o.log) : this.o.log;
    const board = r ? undefined : this.o.board?.(number);
    const start = (): ReturnType<typeof Match.start> => Match.start({
      number,
      seed: r ? r.seed : `${this.o.seed}/${number}`,
      participants,
      board,
      fixedOrder: order !== undefined,
      dice: r ? r.dice : this.o.dice,
      timeoutMs: r ? r.timeoutMs : allMachines ? this.o.aiTurnTimeoutMs : this.o.turnTimeoutMs,
      turnLimit: r?.turnLimit ?? null,
      meta: r?.meta,
      timeoutStreak: r?.timeoutStreak ?? null,
      clock: this.o.clock,
      log,
      store: this.o.store,
      censor: this.o.censor,
      sameForOthers: this.o.sameForOthers,
      publish: this.o.publish,
      onStep: this.o.onStep,
      onEnd: (m, result) => {
        this.ended(m, result);
        r?.onEnd?.(m, result);
      },
    });
    let started: ReturnType<typeof Match.start>;
    try {
      started = start();
    } catch (e) {
      started = { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    if (!started.ok) {
      this.o.log.error({ lobby: lobby.id, error: started.error }, 'could not start a game');
      for (const m of lobby.members) {
        this.send(m, { type: 'gameOver', message: TEXT.internalError });
        m.peer.end();
      }
      for (const w of waiters) w(null);
      return true;
    }
    const match = started.value;
    for (const m of lobby.members) {
      m.lobby = null;
      m.match = match;
    }
    if (!match.over) this.matches.set(match.id, match);
    log.info({ match: match.id, players: participants.map((p) => p.id) }, 'game started');
    for (const w of waiters) w(match.id);
    r?.onStart?.(match);
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
    lobby.fillTimer = this.o.clock.setTimeout(
      guard(this.o.log, 'bot fill', () => {
        lobby.fillTimer = null;
        lobby.fillAt = null;
        if (this.lobbies.includes(lobby)) this.addBots(lobby, 4);
      }),
      ms,
    );
  }

  /**
   * Seats house bots in `lobby` until it has `size` players (they choose free colours and start);
   * the i-th bot added takes `seats[i]` (name, colour asked for first, strategy) where given.
   */
  addBots(lobby: Lobby, size: number, seats: readonly BotSeat[] = []): number {
    let added = 0;
    while (lobby.members.length + lobby.reserved < Math.min(4, size)) {
      const n = ++this.botCount;
      const seat = seats[added];
      const name = seat?.name ?? `${BOT_NAMES[(n - 1) % BOT_NAMES.length]!}${n > BOT_NAMES.length ? ` ${Math.ceil(n / BOT_NAMES.length)}` : ''}`;
      lobby.reserved++;
      new HouseBot({
        ...this.o.houseBot,
        ...(seat?.strategy ? { strategy: seat.strategy } : {}),
        ...(seat?.thinkMs !== undefined ? { thinkMs: seat.thinkMs } : {}),
        colour: seat?.colour,
        hall: this,
        lobby,
        name,
        seed: `${this.o.seed}/bot/${n}`,
      });
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

  /** A game of house bots only (seated as `seats` says, see addBots); resolves with its record id once it has started. */
  startBotGame(players: 3 | 4 = 4, seats: readonly BotSeat[] = []): Promise<string> {
    if (this.stopped || this.matches.size + this.lobbies.length >= this.o.maxGames) return Promise.reject(new Error(MELDUNG_SERVER.gameFull));
    const lobby = this.newLobby(true);
    const started = new Promise<string>((resolve, reject) =>
      lobby.waiters.push((id) => (id === null ? reject(new Error('the game of house bots did not start')) : resolve(id))),
    );
    // A caller that let go of it (a request that timed out) must not leave an unhandled rejection
    // when stop() settles the lobby; whoever awaits it still gets the rejection.
    started.catch(() => undefined);
    try {
      this.addBots(lobby, players, seats);
    } catch (err) {
      // A bot failed while joining: call the game off (its waiter rejects `started`, which the
      // caller handles) rather than leave a lobby that never starts and rejects at stop(). A lobby
      // already gone has settled its waiters (dropLobby, startIfReady).
      this.o.log.warn({ lobby: lobby.id, err: (err as Error).message }, 'house bot game could not be seated');
      this.cancel(lobby, TEXT.internalError);
    }
    return started;
  }

  /**
   * A lobby for a game of exactly `reservation.names` (see `Reservation`); its players come in as
   * sessions with this lobby as their target (`CatanServer.reserve`). Null when the server is full.
   */
  reserve(reservation: Reservation): Lobby | null {
    if (this.stopped || this.matches.size + this.lobbies.length >= this.o.maxGames) return null;
    return this.newLobby(true, reservation);
  }

  /**
   * Calls off a prepared game that has not started: its members get `Spiel beendet` with
   * `message` and are disconnected. False when the lobby is gone (its game started, or it closed).
   */
  cancel(lobby: Lobby, message: string): boolean {
    if (!this.lobbies.includes(lobby)) return false;
    this.dropLobby(lobby);
    const leaving = lobby.members.splice(0);
    for (const m of leaving) {
      m.lobby = null;
      this.send(m, { type: 'gameOver', message });
      m.peer.end();
    }
    this.o.log.info({ lobby: lobby.id, closed: leaving.map((m) => m.id) }, 'prepared game called off');
    return true;
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
