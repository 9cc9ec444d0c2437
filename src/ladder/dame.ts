import { Rng } from '../core/rng.js';
import { spellUmlauts } from '../core/umlauts.js';
import type { SpectatorEvent } from '../core/game-server.js';
import { createDameBot, type DameBotName } from '../games/dame/bots/index.js';
import type { DameMoveSource } from '../games/dame/engine-pool.js';
import type { DameLadderDoor, DameLadderPeer, DameLadderTicket } from '../games/dame/ladder-door.js';
import type { Seat } from '../games/dame/protocol.js';
import type { DameServer } from '../games/dame/server.js';
import { seatName, type Ladder, type LadderTable, type TableOutcome, type TableSeat } from './ladder.js';
import type { LossReason } from './types.js';

/**
 * Dame on the ladder: a student's client sends its 13-character ladder code as the Game-ID
 * (`ID <code>`) and `PLAYER` or `PLAYER <n>`, unchanged. The answer to `PLAYER` waits until the
 * ladder has made the game (at most the ladder's house wait), then the game runs as any game of
 * the server: a Match with the two names in its seats, recorded, spectated, its seats bound to the
 * two connections (nobody else can take them).
 */

export interface DameLadderOptions {
  /** `+ MOVE` of ladder games; default the server's own. */
  moveTimeMs?: number;
}

/** The house levels' players: the engine (the server's, with a think time) or a bot in-process. */
const HOUSE_PLAYERS: Record<string, { bot: Exclude<DameBotName, 'engine'> } | { engineShare: number } | { engineMs: number }> = {
  random: { bot: 'random' },
  greedy: { bot: 'greedy' },
  depth2: { bot: 'depth2' },
  depth4: { bot: 'depth4' },
  'engine-fast': { engineMs: 100 },
  engine: { engineShare: 1 },
};

/**
 * A roster name as the MNM wire carries it: ASCII. The protocol's names were always plain
 * (`White Player`), and course clients read lines as ASCII (the Python fixture client stops with
 * a UnicodeDecodeError at `Ben Müller`): umlauts and ß are spelled out, other letters lose their
 * accents, anything else becomes `?`. The ladder's own pages keep the name as written.
 */
export function wireName(name: string): string {
  return spellUmlauts(name)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '?');
}

/** A bot of ours as the engine seat's move source (cheap bots: no worker needed). */
function botSource(name: Exclude<DameBotName, 'engine'>, seed: string): DameMoveSource {
  const bot = createDameBot(name);
  const rng = Rng.seeded(seed);
  return {
    choose: (state, timeMs) => Promise.resolve(bot(state, timeMs, rng)),
    close: () => Promise.resolve(),
  };
}

/** Why a seat lost, from the Dame result's reason (snapshot.ts DameResultRow). */
export function dameLossReason(reason: string): LossReason {
  if (reason === 'timeout') return { kind: 'timeout', detail: 'no move within the move time (+ MOVE) and its grace' };
  if (reason === 'disconnect') return { kind: 'disconnect', detail: 'the connection closed during the game' };
  if (reason.startsWith('invalid-move: ')) return { kind: 'invalid-move', detail: reason.slice('invalid-move: '.length), rule: 'docs/dame.md: the rules (seed §3)' };
  if (reason.startsWith('protocol-error: '))
    return {
      kind: 'protocol',
      detail: `the client sent ${reason.slice('protocol-error: '.length)} where the protocol expects another line`,
      command: 'spielhalle check-client dame -- <the command that starts your client, with {host} {port} {gameId} {player}>',
    };
  return { kind: 'played' };
}

export class DameLadderTable implements LadderTable<DameLadderPeer>, DameLadderDoor {
  readonly game = 'dame' as const;

  constructor(
    private readonly ladder: Ladder,
    private readonly server: DameServer,
    private readonly o: DameLadderOptions = {},
  ) {}

  admit(gameId: string, host: string): { ok: true; gameName: string; ticket: DameLadderTicket } | { ok: false; text: string } | null {
    const admission = this.ladder.admit('dame', gameId);
    if (admission === null) return null;
    if (!admission.ok) return admission;
    const entry = admission.entry;
    let leave: (() => void) | null = null;
    let left = false;
    const ticket: DameLadderTicket = {
      wait: (request, peer) => {
        leave = this.ladder.join('dame', entry, { seat: request, host }, peer, (text) => peer.refuse(text));
        if (left) leave();
      },
      leave: () => {
        left = true;
        leave?.();
      },
    };
    return { ok: true, gameName: `Liga: ${wireName(entry.name)}`, ticket };
  }

  refuse(handle: DameLadderPeer, text: string): void {
    handle.refuse(text);
  }

  play(seats: [TableSeat<DameLadderPeer>, TableSeat<DameLadderPeer>], context: { gameId: string; season: string }): Promise<TableOutcome> {
    const house = seats.findIndex((s) => s.kind === 'house');
    const houseSeat = house === 0 || house === 1 ? house : null;
    const moveTimeMs = this.o.moveTimeMs;
    let engine: DameMoveSource | undefined;
    let engineTimeMs: number | undefined;
    if (houseSeat !== null) {
      const level = seats[houseSeat];
      if (level.kind !== 'house') throw new Error('unreachable');
      const player = HOUSE_PLAYERS[level.level.id];
      if (player === undefined) throw new Error(`no Dame house player for level ${level.level.id}`);
      if ('bot' in player) engine = botSource(player.bot, context.gameId);
      else if ('engineMs' in player) engineTimeMs = player.engineMs;
    }
    const owners = seats.map((s) => (s.kind === 'entry' ? s.handle.address : null));
    const match = this.server.createMatch({
      name: `Liga: ${seats.map((s) => wireName(seatName(s))).join(' v ')}`,
      seatNames: [wireName(seatName(seats[0])), wireName(seatName(seats[1]))],
      meta: { ladder: { game: 'dame', gameId: context.gameId, season: context.season, entries: seats.map((s) => (s.kind === 'entry' ? s.entry.id : null)) } },
      // The seats are the two connections': nobody else may take them.
      seatOwner: (seat, address) => owners[seat] === address,
      ...(moveTimeMs !== undefined ? { moveTimeMs } : {}),
      ...(houseSeat !== null ? { engineSeat: houseSeat } : {}),
      ...(engine !== undefined ? { engine } : {}),
      ...(engineTimeMs !== undefined ? { engineTimeMs } : {}),
    });
    const over = new Promise<TableOutcome>((resolve) => {
      const unsubscribe = this.server.subscribe((event: SpectatorEvent) => {
        const data = event.data as { gameId?: string; winner?: Seat | null; reason?: string } | null;
        if (event.type !== 'gameOver' || data?.gameId !== match.id) return;
        unsubscribe();
        const reason = data.reason ?? 'unknown';
        const recordId = match.matchId;
        if (reason === 'server stopped' || reason === 'internal error') return resolve({ scores: null, reasons: [null, null], recordId, note: reason });
        const winner = data.winner ?? null;
        if (winner === null) return resolve({ scores: [0.5, 0.5], reasons: [null, null], recordId });
        const loss = dameLossReason(reason);
        resolve({ scores: winner === 0 ? [1, 0] : [0, 1], reasons: winner === 0 ? [null, loss] : [loss, null], recordId });
      });
    });
    const joining = seats.flatMap((s, i) => (s.kind === 'entry' ? [{ peer: s.handle, seat: i as Seat }] : []));
    const entered = joining.every(({ peer, seat }) => peer.enter(match, seat));
    // A connection that closed between the pairing and its seat leaves a game that cannot start.
    if (!entered || !match.joinTogether(joining) || match.status === 'waiting') {
      this.server.closeGame(match.id, 'a ladder seat left before the start');
      return Promise.resolve({ scores: null, reasons: [null, null], recordId: null, note: 'a seat left before the start' });
    }
    return over;
  }
}

