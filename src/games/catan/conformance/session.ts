import { ThinkingCut, type Judgement, type ScriptedWire } from '../../../core/conformance.js';
import { systemClock } from '../../../core/clock.js';
import { silentLogger } from '../../../core/log.js';
import { Rng } from '../../../core/rng.js';
import type { CatanBot } from '../bots/bot.js';
import { randomBot } from '../bots/strategies.js';
import { weightedBot } from '../bots/weighted.js';
import { censorEvent } from '../events.js';
import type { BotSeat } from '../house-bot.js';
import { Hall } from '../lobby.js';
import type { Match, Peer } from '../match.js';
import { TEXT } from '../messages.js';
import { MELDUNG_SERVER, Outgoing, formatServer, parseClient, type ClientMessage, type ServerMessage } from '../protocol.js';
import { USUAL_READ_SIZES, textAcross } from '../../../core/utf8-cuts.js';
import { apply, type ActionType, type State, type Status } from '../rules/index.js';
import type { Session } from '../session.js';

/**
 * One scripted Catan game over protocol 0.3, played by our own server code: the hall of lobby.ts
 * (handshake, lobby, start), a `Match` under the real rules core, our house bots in the other
 * seats, and every line spelled by protocol.ts exactly as our server writes it. The client under
 * test sits in the seat of a TCP connection; the script stands between it and the hall, and where
 * the scenario says so it fixes the dice, writes the lines cut, joined or slowly, refuses one of
 * the client's messages with a `Fehler`, or ends the game (or the connection) at a chosen point.
 */

/** D10: our server's per-decision timeout in games of AI clients and bots. */
export const DECISION_MS = 10_000;
/** How long a client may take to close and exit after the end of the game or of the connection. */
export const EXIT_MS = 3000;
/** A client that repeats a refused message unchanged this often is in a loop. */
const MAX_SAME_REFUSALS = 3;
/** Real `Fehler` (not scripted ones) a client may collect in one scenario. */
const MAX_REFUSALS = 5;
const POLL_MS = 5;
/** The `thinking` cut: long enough that a client which reads and answers at once is done, even on a busy machine. */
const THINKING_CUT_MS = 150;
/** A thinking cut this much later than its delay came too late to be one (the kit was busy). */
const KIT_LATE_MS = 200;
/** Nothing from the client and nothing to say for this long: the client has stopped (it waits for a line it missed, say). */
const IDLE_MS = DECISION_MS + 5000;
/** The same in the handshake and the lobby, where our server has no decision time (it would wait). */
const LOBBY_IDLE_MS = 5000;
/** Coalesced writes: the lines of several steps gathered this long before one write. */
const COALESCE_MS = 40;

/** Between the pieces of the write that `utf8Chats` cuts. */
export const UTF8_GAP_MS = 100;

/** Every time window and tolerance of the Catan scenarios (docs/check-client/catan.md "Timers and tolerances"). */
export const CATAN_TIMERS = { DECISION_MS, EXIT_MS, MAX_SAME_REFUSALS, MAX_REFUSALS, POLL_MS, THINKING_CUT_MS, IDLE_MS, LOBBY_IDLE_MS, COALESCE_MS, UTF8_GAP_MS } as const;

/** A JSON-escaped control character: 1 character of a chat, 6 bytes on the wire. */
const ESCAPED = { text: '\u0001', bytes: 6 };

/**
 * The two chats of `utf8Chats` from `sender`: the first (about 2.4 KB on the wire) with ä across
 * byte 1000 and € across byte 1024 of the write it begins, the second with 🂡 across byte 4096;
 * each under the 500 characters our server relays (D13).
 */
export function utf8ChatTexts(sender: number): [string, string] {
  const lineOf = (text: string): string => formatServer({ type: 'chat', sender, text });
  const start = Buffer.from(lineOf('\u0000MARK')).indexOf('\\u0000MARK');
  const [a, b, c] = USUAL_READ_SIZES;
  const first = textAcross(start, start + 2400, { offsets: [a, b], fillers: [ESCAPED] });
  const second = Buffer.byteLength(lineOf(first)) + 1 + start;
  return [first, textAcross(second, c + 200, { offsets: [c], fillers: [ESCAPED] })];
}

/** What the client owes, by its own status (spec §2.4). */
const ACTING: ReadonlySet<Status> = new Set<Status>(['Dorf bauen', 'Strasse bauen', 'Wuerfeln', 'Karten wegen Raeuber abgeben', 'Raeuber versetzen', 'Handeln oder Bauen']);

/**
 * Where the game ends or the connection closes:
 * - `hallo`: in answer to the client's Hallo (`Fehler` "Spiel ist voll", then the close, as a full server does);
 * - `lobby`: after the OK to the client's Spiel starten (the lobby closes: `Spiel beendet` without `Sieger`);
 * - `request`: in the same write as the nth Statusupdate that asks the client to act;
 * - `thinking`: 150 ms after that Statusupdate, while the client decides;
 * - `ok`: in the same write as the OK to the client's nth action in the game.
 */
export type CutPoint = 'hallo' | 'lobby' | 'request' | 'thinking' | 'ok';

/** `lost`: another player's connection is lost (D9); `stop`: the server stops; `close`: the connection closes without a line. */
export type CutEnd = 'lost' | 'stop' | 'close';

/** The kind of client message a scenario refuses. */
export type Refusable = 'player' | 'startGame' | 'setupSettlement' | 'setupRoad' | ActionType;

export interface CatanSession {
  /** 3 or 4 players; the client and house bots. */
  players?: 3 | 4;
  /** The client's place in the turn order (0: it begins). */
  seat?: number;
  /** The house bots' strategy: baseline R (default) or the rule-based bot that trades and buys cards. */
  opponents?: 'random' | 'weighted';
  /** The bots play every development card they may and buy one whenever they can. */
  eagerCards?: boolean;
  /** The bots' names (the first ones; else the hall's). */
  names?: readonly string[];
  /** Dice: `fair` (the rules' RNG), `seven-for-client` (7 once the client holds 8 or more), `seven-against-client` (an opponent's first roll is a 7 and its robber goes onto the client's field), `seven-by-client` (the client's first roll is a 7). */
  dice?: 'fair' | 'seven-for-client' | 'seven-against-client' | 'seven-by-client';
  /** How lines are written: per step (as our server), cut into three pieces, several steps in one write, or line by line. */
  writes?: 'steps' | 'split' | 'coalesced' | 'slow';
  slowLineMs?: number;
  /** D10 timeout of the game. */
  decisionMs?: number;
  /** The game ends (another player's connection is lost) once the client owes nothing after this many of its actions in the game; default: play to the end. */
  clientActions?: number;
  /** After the game started, an opponent sends this chat. */
  chat?: string;
  /**
   * After the game started, an opponent sends two chats whose multi-byte characters (ä, €, 🂡) lie
   * across bytes 1000, 1024 and 4096 of the write that begins with them, and that write is cut
   * there: a client that decodes each read on its own gets each of them in two halves.
   */
  utf8Chats?: boolean;
  /** In this many of their turns (the first ones), opponents offer a trade (`Handel anbieten`); each waits up to 1 s for the others' answers. */
  offers?: number;
  cut?: { at: CutPoint; nth?: number; then: CutEnd };
  /** The nth (from 0) message of this kind gets `Fehler` with `meldung`; `sticky`: the same message again gets it again. */
  refuse?: { kind: Refusable; nth?: number; meldung: string; sticky?: boolean };
  /** The hall's seed (board, deck, ids); default `check-client`. */
  seed?: string;
  /** Any Fehler of our server to an action in the game fails the scenario (else a few are tolerated: races with others' trades). */
  strict?: boolean;
  /** The game must contain this, or the scenario could not show what it is about (an error of the kit, not of the client). */
  needs?: 'discard' | 'robbed' | 'refusal' | 'ownRobber';
}

export const CATAN_JUDGEMENTS = {
  hello: {
    rule: 'Answer the server’s Hallo with Hallo, then send Spieler (name and colour), then Spiel starten after its OK',
    section: 'spec §2.5 (handshake, lobby), §5',
    hint: 'Read the server’s Hallo first; send Spieler only after Willkommen, Spiel starten only after the OK to Spieler.',
  },
  message: {
    rule: 'Send one JSON object per line with exactly one key, a message type of the spec, and all its fields',
    section: 'spec §2.1, §2.5; D13',
    hint: 'Spell types and keys exactly as the spec does (ASCII: Wuerfeln, Raeuber versetzen, Handel abschliessen) and end each object with \\n.',
  },
  act: {
    rule: 'Act when a Statusupdate gives you an acting status, with an action that status allows, within the decision time (10 s)',
    section: 'spec §2.4, §2.5; D10',
    hint: 'Follow your own Statusupdates, not OKs: Dorf bauen, Strasse bauen, Wuerfeln, Karten wegen Raeuber abgeben, Raeuber versetzen and Handeln oder Bauen each ask for an action.',
  },
  legal: {
    rule: 'Send only actions the rules allow now: the server refuses others with Fehler',
    section: 'spec §2.5, §3',
    hint: 'Keep your view of the board from Bauvorgang, Raeuber versetzt and the Statusupdates, and check each action against it.',
  },
  discard: {
    rule: 'After a 7, a player with more than 7 cards discards exactly half of them, rounded down (Karten abgeben)',
    section: 'spec §2.4, §2.5, §2.7 (Wuerfeln, 7), §3',
    hint: 'Count your own cards from your own Statusupdate (all five keys) and give back floor(n/2); the server waits for nobody else.',
  },
  fehler: {
    rule: 'Fehler refuses one message and changes nothing: keep going, and do not send the refused message again unchanged',
    section: 'spec §2.5 (Fehler), §3 (errors)',
    hint: 'After a Fehler your status is still the same: choose another action (another place, another colour, end the turn) or the same only if the state changed.',
  },
  end: {
    rule: 'After Spiel beendet send nothing more, close the connection and exit with code 0',
    section: 'spec §2.5 (Spiel beendet), D8, D9',
    hint: 'Spiel beendet may come at any point, also while you owe an action or think: check every message you read for it.',
  },
  closed: {
    rule: 'When the server closes the connection, exit (any exit code, no hang)',
    section: 'spec §2.1; D8, D9',
    hint: 'A read of 0 bytes (end of file) means the server is gone: stop and exit.',
  },
  running: {
    rule: 'Stay connected until the game is over (Spiel beendet)',
    section: 'spec §2.1, §2.5; D9',
    hint: 'A client that leaves a running game ends it for everyone (D9): look at what made yours stop.',
  },
} satisfies Record<string, Judgement>;
const J = CATAN_JUDGEMENTS;

/** The client's seat: a peer of the hall like a TCP connection; lines queue here until the script writes them. */
class ClientPeer implements Peer {
  readonly conn = 'check-client';
  matchId: string | null = null;
  readonly queue: { line: string; message: ServerMessage }[] = [];
  ended = false;

  deliver(out: Outgoing): void {
    if (!this.ended) this.queue.push({ line: out.line, message: out.message });
  }

  end(): void {
    this.ended = true;
  }
}

const PLAYS: ReadonlySet<ActionType> = new Set<ActionType>(['playMonopoly', 'playYearOfPlenty', 'playRoadBuilding', 'playKnight']);

/**
 * An opponent: a house bot's strategy, which in the robber scenario robs the client whenever it
 * can, and with `eager` plays every development card it may and buys one whenever it can (so that
 * the client sees each card's message).
 */
function opponent(kind: 'random' | 'weighted', robClient: () => number | null, eager: boolean): (seed: string) => CatanBot {
  return (seed) => {
    const inner = kind === 'weighted' ? weightedBot(seed, { trades: true }) : randomBot(seed);
    return {
      strategy: inner.strategy,
      decide: (ctx) => {
        const victim = robClient();
        if (victim !== null) {
          const rob = ctx.legal.actions.find((a) => (a.type === 'moveRobber' || a.type === 'playKnight') && a.victim === victim);
          if (rob) return rob;
        }
        if (eager) {
          const card = ctx.legal.actions.find((a) => PLAYS.has(a.type)) ?? ctx.legal.actions.find((a) => a.type === 'buyDevCard');
          if (card) return card;
        }
        return inner.decide(ctx);
      },
    };
  };
}

const cards = (r: Readonly<Partial<Record<string, number>>>): number => Object.values(r).reduce<number>((a, b) => a + (b ?? 0), 0);

function kindOf(m: ClientMessage, status: Status | null): Refusable | null {
  if (m.type === 'player' || m.type === 'startGame') return m.type;
  if (m.type !== 'action') return null;
  if (m.action.type === 'build' && status === 'Dorf bauen') return 'setupSettlement';
  if (m.action.type === 'build' && status === 'Strasse bauen') return 'setupRoad';
  return m.action.type;
}

export function runCatanSession(o: CatanSession): (wire: ScriptedWire) => Promise<void> {
  return async (wire) => {
    const players = o.players ?? 3;
    const seat = o.seat ?? 0;
    const writes = o.writes ?? 'steps';
    const peer = new ClientPeer();
    const rng = Rng.seeded('check-client/dice');
    /** What the script knows of the game, written from callbacks (the hall's, the scan of the client's lines). */
    const live: { state: State | null; me: number | null; status: Status | null; inGame: boolean; gameOverSent: boolean } = {
      state: null,
      me: null,
      status: null,
      inGame: false,
      gameOverSent: false,
    };
    let sevens = 0;
    const seen = { discard: false, robbed: false, refusal: false, ownRobber: false };
    const robbing = (): number | null => (o.dice === 'seven-against-client' && !seen.robbed ? live.me : null);
    const decisionMs = o.decisionMs ?? DECISION_MS;
    const hall = new Hall({
      seed: o.seed ?? 'check-client',
      clock: systemClock,
      log: silentLogger,
      store: null,
      turnTimeoutMs: decisionMs,
      aiTurnTimeoutMs: decisionMs,
      botFillMs: null,
      maxGames: 4,
      maxLobbiesPerHost: 0,
      idleLobbyTimeoutMs: null,
      houseBot: { thinkMs: 0, exactLegal: true, strategy: opponent(o.opponents ?? 'random', robbing, o.eagerCards === true), clock: systemClock, log: silentLogger, store: null },
      censor: censorEvent,
      sameForOthers: true,
      publish: () => undefined,
      // The client joined first: it takes the place `seat` in the turn order.
      order: (ids) => [...ids.slice(1, seat + 1), ids[0]!, ...ids.slice(seat + 1)],
      dice: () => roll(),
      onStep: (_id, step) => {
        live.state = step.state;
        for (const e of step.events) {
          if (e.type === 'robberMoved' && e.victim === live.me && e.player !== live.me) seen.robbed = true;
          if (e.type === 'robberMoved' && e.player === live.me) seen.ownRobber = true;
        }
      },
    });

    /** The dice the scenario needs (a fair roll otherwise, never from the client's view). */
    const roll = (): readonly [number, number] | undefined => {
      const s = live.state;
      if (s === null || o.dice === undefined || o.dice === 'fair') return undefined;
      const roller = s.players[s.turn]!;
      const mine = s.players.find((p) => p.id === live.me);
      const seven = (): readonly [number, number] => {
        sevens++;
        return [3, 4];
      };
      if (o.dice === 'seven-against-client' && roller.id !== live.me && sevens === 0) return seven();
      if (o.dice === 'seven-by-client' && roller.id === live.me && sevens === 0) return seven();
      if (o.dice === 'seven-for-client' && mine !== undefined && !seen.discard) {
        if (cards(mine.resources) >= 8) return seven();
        // The roll that pays the client most (never a 7), so that it soon holds 8 cards.
        let best: readonly [number, number] = [1, 1];
        let most = -1;
        for (let a = 1; a <= 6; a++)
          for (const b of [1, 2, 3, 4, 5, 6]) {
            if (a + b === 7) continue;
            const next = apply(s, roller.id, { type: 'roll', dice: [a, b] });
            const got = next.ok ? cards(next.value.state.players.find((p) => p.id === live.me)!.resources) : -1;
            if (got > most || (got === most && rng.int(0, 1) === 0)) [best, most] = [[a, b], got];
          }
        return best;
      }
      // Otherwise the rules' own fair dice.
      return undefined;
    };

    const session: Session = hall.connect(peer, 'check-client', 'human', null, null);
    let requests = 0;
    // The request at which the scenario ends the game (moved on when the kit looked late at a thinking cut).
    let cutNth = o.cut?.nth ?? 0;
    const thinkingCut = new ThinkingCut(wire, {
      windowMs: THINKING_CUT_MS,
      slackMs: KIT_LATE_MS,
      after: 'the request',
      window: `${THINKING_CUT_MS} ms`,
      then: 'the game ends at the next request instead',
    });
    let oks = 0;
    let refusals = 0;
    let lobbyRefusals = 0;
    let lastRefused: string | null = null;
    let sameRefused = 0;
    let refusedCount = 0;
    const counts = new Map<Refusable, number>();
    let pendingCut: { then: CutEnd; delayMs: number } | null = null;
    let chatted = false;
    /** The first utf8 chat line: its write begins a write of its own, cut at the usual read sizes. */
    let utf8Line: string | null = null;
    let offeredIn = -1;
    let offersMade = 0;
    let lastActivity = Date.now();
    let closedBare = false;

    const matchOf = (): Match | null => session.match;
    const opponentId = (): number | null => matchOf()?.players.find((p) => p.id !== live.me)?.id ?? null;

    const end = (then: CutEnd): void => {
      if (then === 'close') {
        closedBare = true;
        peer.end();
        return;
      }
      const match = matchOf();
      if (match === null) {
        // In the lobby or the handshake: what the hall does to a lobby that closes.
        peer.deliver(new Outgoing({ type: 'gameOver', message: TEXT.idleLobby }));
        peer.end();
        hall.disconnected(session);
      } else if (then === 'stop') match.stop();
      else {
        const other = opponentId();
        if (other !== null) match.disconnect(other);
      }
    };

    /** Looks at what the client is about to read: its own status, requests to act, the cut points. */
    let scanned = 0;
    const scan = (): void => {
      for (let i = scanned; i < peer.queue.length; i++) {
        const m = peer.queue[i]!.message;
        if (m.type === 'welcome') live.me = m.id;
        if (m.type === 'gameStarted') live.inGame = true;
        if (m.type === 'gameOver') live.gameOverSent = true;
        if (m.type === 'status' && m.player.id === live.me) {
          const was = live.status;
          live.status = m.player.status;
          if (live.status === 'Karten wegen Raeuber abgeben') seen.discard = true;
          if (ACTING.has(live.status) && (was !== live.status || !live.inGame)) {
            const n = requests++;
            if (o.cut && (o.cut.at === 'request' || o.cut.at === 'thinking') && cutNth === n && pendingCut === null)
              pendingCut = { then: o.cut.then, delayMs: o.cut.at === 'thinking' ? THINKING_CUT_MS : 0 };
          }
        }
      }
      scanned = peer.queue.length;
    };

    const write = async (lines: string[]): Promise<void> => {
      const at = utf8Line === null ? -1 : lines.indexOf(utf8Line);
      if (at >= 0) {
        utf8Line = null;
        if (at > 0) await write(lines.slice(0, at));
        // 100 ms apart, so that even a busy client reads each piece on its own.
        return wire.send(lines.slice(at), { splitAt: USUAL_READ_SIZES, gapMs: UTF8_GAP_MS });
      }
      if (writes === 'slow') {
        for (const line of lines) {
          await wire.delay(o.slowLineMs ?? 20);
          await wire.send([line]);
        }
      } else if (writes === 'split') {
        const bytes = Buffer.byteLength(lines.map((l) => `${l}\n`).join(''));
        // At the first byte, in the middle (often inside a line), and right before the last `\n`.
        await wire.send(lines, { splitAt: [1, Math.floor(bytes / 2), bytes - 1] });
      } else await wire.send(lines);
    };

    /** Writes what the client has to read; true once the game or the connection is over. */
    const flush = async (): Promise<boolean> => {
      if (writes === 'coalesced' && peer.queue.length > 0 && !peer.ended) await wire.delay(COALESCE_MS);
      while (peer.queue.length > 0 || (pendingCut !== null && !peer.ended)) {
        scan();
        if (pendingCut !== null && pendingCut.delayMs === 0) {
          const cut = pendingCut;
          pendingCut = null;
          wire.note(`the scenario ends the game here (${cut.then})`);
          end(cut.then);
          scan();
        }
        const lines = peer.queue.splice(0).map((q) => q.line);
        scanned = 0;
        const writing = wire.now();
        if (lines.length > 0) await write(lines);
        if (pendingCut !== null && pendingCut.delayMs > 0) {
          const cut = pendingCut;
          pendingCut = null;
          await wire.delay(cut.delayMs);
          // A kit slowed by a busy machine ends the game late, maybe after the client has acted:
          // never judged on that (a client that reads nothing while it thinks would pass).
          if (thinkingCut.late(wire.now() - writing)) cutNth = requests;
          else {
            wire.note(`the scenario ends the game ${cut.delayMs} ms after the request (${cut.then})`);
            end(cut.then);
            scan();
          }
        }
      }
      return peer.ended;
    };

    const finish = async (): Promise<void> => {
      await wire.halfClose();
      wire.takeCrossed();
      if (closedBare || !live.gameOverSent) {
        // Without Spiel beendet the client may have answered what came before the end of the
        // stream: such lines are not judged, only that it notices the end.
        for (let i = 0; i < MAX_SAME_REFUSALS * 3; i++) {
          if ((await wire.next(EXIT_MS)) === null) break;
          wire.note('(sent before the client read the end of the stream: not judged)');
        }
        await wire.expectClose(1, 'after the server closed the connection', J.closed);
        await wire.expectExit(EXIT_MS, 'after the server closed the connection', { judgement: J.closed });
      } else {
        await wire.expectClose(EXIT_MS, 'after Spiel beendet (the server closes the connection)', J.end);
        await wire.expectExit(EXIT_MS, 'after Spiel beendet', { code: 0, judgement: J.end });
      }
    };

    /** House bots, chat and trade offers: what the others do, through the hall and the match as their own messages would. */
    const others = (): void => {
      if (session.id !== null && session.lobby !== null && session.lobby.members.length + session.lobby.reserved < players) {
        const seats: BotSeat[] = (o.names ?? []).map((name) => ({ name }));
        hall.addBots(session.lobby, players, seats);
      }
      const match = matchOf();
      const s = live.state;
      if (match === null || s === null || match.over) return;
      if (o.chat !== undefined && !chatted) {
        chatted = true;
        const other = opponentId();
        if (other !== null) match.receive(other, { type: 'chat', text: o.chat });
      }
      if (o.utf8Chats === true && !chatted) {
        chatted = true;
        const other = opponentId();
        if (other !== null) {
          const texts = utf8ChatTexts(other);
          utf8Line = formatServer({ type: 'chat', sender: other, text: texts[0] });
          for (const text of texts) match.receive(other, { type: 'chat', text });
        }
      }
      const active = s.players[s.turn]!;
      if (offersMade < (o.offers ?? 0) && active.id !== live.me && active.status === 'Handeln oder Bauen' && offeredIn !== s.turnNumber) {
        offeredIn = s.turnNumber;
        const give = (['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz'] as const).find((r) => active.resources[r] > 0);
        const want = (['Erz', 'Getreide', 'Wolle', 'Lehm', 'Holz'] as const).find((r) => r !== give);
        if (give !== undefined && want !== undefined) offersMade++;
        if (give !== undefined && want !== undefined)
          match.receive(active.id, { type: 'action', action: { type: 'offerTrade', offer: { [give]: 1 }, request: { [want]: 1 } } });
      }
    };

    /** After the answers to the client's last action: whether it owes nothing (its turn or its setup placement is over). */
    const idle = (): boolean => {
      scan();
      return live.status !== null && !ACTING.has(live.status);
    };

    const refuse = (line: string, m: ClientMessage): boolean => {
      const r = o.refuse;
      if (!r) return false;
      const kind = kindOf(m, live.status);
      if (r.sticky === true && lastRefused === line) {
        sameRefused++;
        if (sameRefused >= MAX_SAME_REFUSALS) wire.fail(`sent "${line}" ${sameRefused + 1} times although the server refused it each time`, J.fehler);
      } else {
        if (kind !== r.kind) return false;
        const n = counts.get(kind) ?? 0;
        counts.set(kind, n + 1);
        if (n !== (r.nth ?? 0)) return false;
        lastRefused = r.sticky === true ? line : null;
        sameRefused = 0;
      }
      seen.refusal = true;
      refusedCount++;
      wire.note(`the scenario refuses this ${kind ?? 'message'} with Fehler "${r.meldung}"`);
      peer.deliver(new Outgoing({ type: 'error', message: r.meldung }));
      return true;
    };

    try {
      for (;;) {
        others();
        if (await flush()) return await finish();
        if (o.needs !== undefined && !seen[o.needs] && oks >= 4 * (o.clientActions ?? Infinity) + 20) {
          throw new Error(`the scripted game did not reach what the scenario needs (${o.needs}); try again`);
        }
        const match = matchOf();
        const mine = match?.tally().find((t) => t.id === live.me);
        if (mine !== undefined && mine.timeouts > 0)
          wire.fail(`did not act within ${decisionMs} ms in status "${live.status ?? '?'}": the server acted for it (D10)`, J.act);
        const line = await wire.next(POLL_MS);
        if (line !== null || peer.queue.length > 0) lastActivity = Date.now();
        else if (Date.now() - lastActivity > wire.scaled(live.inGame ? IDLE_MS : LOBBY_IDLE_MS))
          wire.fail(
            `sent nothing for ${wire.scaled(live.inGame ? IDLE_MS : LOBBY_IDLE_MS)} ms while the server waited for it (${live.inGame ? `its status: "${live.status ?? '?'}"` : 'in the handshake or lobby'})`,
            live.inGame ? J.act : J.hello,
          );
        if (line === null) {
          // The client closed the connection: expect() says so, with its exit.
          if (wire.ended() && peer.queue.length === 0)
            await wire.expect(/[\s\S]*/, 0, live.inGame ? `an action or nothing (status "${live.status ?? '?'}")` : 'the handshake', J.running);
          continue;
        }
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          return wire.fail(`sent "${line}", which is not a JSON object: the server answers Fehler "${MELDUNG_SERVER.invalidMessage}"`, J.message);
        }
        const parsed = parseClient(value);
        if (!parsed.ok) return wire.fail(`sent "${line}": the server answers Fehler "${MELDUNG_SERVER.invalidMessage}" (${parsed.error.detail})`, J.message);
        const m = parsed.value;
        if (refuse(line, m)) continue;
        const s = live.state;
        if (m.type === 'action' && m.action.type === 'discard' && s !== null) {
          const i = s.players.findIndex((p) => p.id === live.me);
          const owed = i >= 0 ? (s.discards[i] ?? 0) : 0;
          const given = cards(m.action.cards);
          if (owed > 0 && given !== owed)
            wire.fail(`discarded ${given} cards, but holds ${cards(s.players[i]!.resources)} and owes ${owed}`, J.discard);
        }
        if (o.cut?.at === 'hallo' && m.type === 'hello') {
          wire.note('the server is full');
          peer.deliver(new Outgoing({ type: 'error', message: MELDUNG_SERVER.gameFull }));
          if (o.cut.then === 'close') closedBare = true;
          peer.end();
          continue;
        }
        // An answer to an offer that was withdrawn (or completed) a moment earlier crossed it: not the client's fault.
        const answered = m.type === 'action' && (m.action.type === 'acceptTrade' || m.action.type === 'cancelTrade') ? m.action.tradeId : null;
        const lapsed = answered !== null && live.state !== null && !live.state.trades.some((t) => t.id === answered);
        const from = peer.queue.length;
        hall.receive(session, m);
        const answers = peer.queue.slice(from).map((q) => q.message);
        const refused = answers.find((a) => a.type === 'error');
        if (refused?.type === 'error') {
          wire.note(`our server refuses it: Fehler "${refused.message}"`);
          // In the lobby a colour may be taken by a bot a moment earlier: the client cannot know.
          if (m.type === 'action' && !lapsed) refusals++;
          else if (++lobbyRefusals > 2 * MAX_SAME_REFUSALS * 4)
            wire.fail(`the server refused ${lobbyRefusals} of its handshake and lobby messages (the last: "${line}", ${refused.message})`, J.fehler);
          if (o.strict === true && m.type === 'action' && !lapsed) wire.fail(`sent "${line}", which our server refuses here: Fehler "${refused.message}"`, J.legal);
          if (refusals > MAX_REFUSALS) wire.fail(`the server refused ${refusals} of its messages (the last: "${line}", ${refused.message})`, J.legal);
        }
        const ok = answers.some((a) => a.type === 'answer' && a.text === 'OK');
        if (ok && m.type === 'startGame' && o.cut?.at === 'lobby') pendingCut = { then: o.cut.then, delayMs: 0 };
        if (ok && m.type === 'action') {
          const n = oks++;
          if (o.cut?.at === 'ok' && (o.cut.nth ?? 0) === n) pendingCut = { then: o.cut.then, delayMs: 0 };
          else if (o.clientActions !== undefined && oks >= o.clientActions && (o.needs === undefined || seen[o.needs]) && idle()) {
            wire.note(`${oks} actions of the client: the game ends (another player's connection is lost)`);
            pendingCut = { then: 'lost', delayMs: 0 };
          }
        }
      }
    } finally {
      hall.stop();
      if (refusedCount > 0) wire.note(`${refusedCount} message(s) refused by the scenario`);
    }
  };
}
