import { randomBytes } from 'node:crypto';
import type { Logger } from '../core/log.js';
import { createBot } from '../games/mia/bots/index.js';
import { MiaClient } from '../games/mia/client.js';
import type { LigaTableResult, MiaLadderDoor, MiaLadderPort, MiaLigaClient } from '../games/mia/ladder-port.js';
import { MAX_NAME_LENGTH } from '../games/mia/protocol.js';
import type { MiaServer } from '../games/mia/server.js';
import { DEFAULT_ROUNDS, wireNames } from '../games/mia/tournament.js';
import { catanPlaces } from './catan.js';
import { wireName } from './dame.js';
import type { Ladder, MultiLadderTable, TableOutcome, TableSeat } from './ladder.js';
import type { LossReason } from './types.js';

/**
 * Mäxchen (Mia) on the ladder (issue 34). A student's client registers at the Liga port
 * (`games.mia.ladderPort`, 9010) with its 13-character ladder code as its name, unchanged
 * (`REGISTER;<code>`), and stays registered all the while. The ladder groups the waiting clients
 * nearest in rating, two to six (after the house wait: with house bots up to two); each group plays
 * one rated game of `rounds` rounds (20) at a table of its own, places by the points of that game.
 * Then its students wait for the next game, still registered. Everybody plays under a public name
 * (the roster's, as a Mia name); each client sees its own as the code it registered (ladder-port.ts),
 * so codes appear nowhere but in the student's own datagrams.
 */

export interface MiaLadderOptions {
  log: Logger;
  /** Rounds of one rated game. */
  rounds?: number;
}

/** House seats play as the adaptive bot (ratings.ts HOUSE_LEVELS.mia: one level). */
const HOUSE_STRATEGY = 'adaptive';
const CODE_SHAPE = /^[a-z0-9]{13}$/;

/**
 * Public names for a game's seats: ASCII (as on the MNM wire: `Müller` is `Mueller`), valid Mia
 * names (spaces and `, ; :` become `_`, 20 characters at most), each once, and none in the shape
 * of a ladder code, so that no recipient could take another seat's name for its own.
 */
export function miaNames(names: readonly string[]): string[] {
  const ascii = names.map((n) => {
    const w = wireName(n)
      .replace(/[^\x21-\x7e]|[,;:?]/g, '_')
      .slice(0, MAX_NAME_LENGTH);
    return CODE_SHAPE.test(w) ? `${w.slice(0, MAX_NAME_LENGTH - 1)}_` : w || 'Liga';
  });
  return wireNames(ascii);
}

export class MiaLadderTable implements MultiLadderTable<MiaLigaClient>, MiaLadderDoor {
  readonly game = 'mia' as const;
  readonly players = { min: 2, max: 6 };
  private port: MiaLadderPort | null = null;

  constructor(
    private readonly ladder: Ladder,
    private readonly server: MiaServer,
    private readonly o: MiaLadderOptions,
  ) {}

  /** Opens the Liga port beside the Mia table; resolves with where it listens. */
  async open(port: number): Promise<number> {
    this.port = await this.server.openLadderPort(this, port);
    return this.port.port;
  }

  admit(code: string, host: string): ReturnType<MiaLadderDoor['admit']> {
    const admission = this.ladder.admit('mia', code);
    if (admission === null || !admission.ok) return admission;
    const entry = admission.entry;
    return { ok: true, enqueue: (client) => this.ladder.join('mia', entry, { seat: null, host }, client, (text) => this.refuse(client, text)) };
  }

  knows(name: string): boolean {
    return this.ladder.knows(name);
  }

  refuse(client: MiaLigaClient, text: string): void {
    // The protocol has no words for it: the client is unregistered, the words go to the log.
    this.port?.drop(client, text);
  }

  async play(seats: TableSeat<MiaLigaClient>[], context: { gameId: string; season: string }): Promise<TableOutcome> {
    const port = this.port;
    const failed = (note: string): TableOutcome => ({ scores: null, reasons: seats.map(() => null), recordId: null, note });
    if (port === null) return failed('the Liga port is closed');
    const names = miaNames(seats.map((s) => (s.kind === 'entry' ? s.entry.name : `${s.level.label} (Haus)`)));
    const bots: MiaClient[] = [];
    const spec: ({ client: MiaLigaClient } | { house: string })[] = [];
    try {
      for (const [i, s] of seats.entries()) {
        if (s.kind === 'entry') {
          spec.push({ client: s.handle });
          continue;
        }
        // A one-time name only this process knows: no student can register as the house.
        const name = `haus${randomBytes(8).toString('hex')}`;
        port.expectHouse(name);
        const bot = new MiaClient({ host: port.houseHost, port: port.port, name, bot: createBot(HOUSE_STRATEGY, `${context.gameId}:${i}`) });
        bots.push(bot);
        await bot.start();
        spec.push({ house: name });
      }
      const result = await port.playTable({
        seats: spec,
        names,
        rounds: this.o.rounds ?? DEFAULT_ROUNDS,
        seed: context.gameId,
        meta: { ladder: { game: 'mia', gameId: context.gameId, season: context.season, entries: seats.map((s) => (s.kind === 'entry' ? s.entry.id : null)) } },
      });
      return miaOutcome(result);
    } catch (err) {
      this.o.log.warn({ err, gameId: context.gameId }, 'ladder: a Mia game could not be played');
      // Its students wait for the next game.
      port.release(seats.flatMap((s) => (s.kind === 'entry' ? [s.handle] : [])));
      return failed('the house bots could not register');
    } finally {
      await Promise.all(bots.map((b) => b.stop()));
    }
  }
}

/** Places and loss reasons from a Liga table's game (exported for tests). */
export function miaOutcome(result: LigaTableResult): TableOutcome {
  if (result.aborted !== null) return { scores: null, reasons: result.points.map(() => null), recordId: result.recordId, note: result.aborted };
  const failed = result.joined.map((n) => n === 0);
  const places = catanPlaces(result.points, failed, null);
  const reasons = result.points.map((points, i): LossReason | null => {
    if (places[i] === 1 && !failed[i]) return null;
    if (failed[i]) return { kind: 'disconnect', detail: 'joined no round of the game (JOIN within the join window after ROUND STARTING)' };
    if (result.left[i]) return { kind: 'disconnect', detail: `unregistered during the game after ${result.joined[i]} rounds (${points} points)` };
    if (result.timeouts[i]! > 0)
      return { kind: 'timeout', detail: `lost ${result.timeouts[i]} of ${result.joined[i]} rounds by not answering within the answer time (DID_NOT_TAKE_TURN, DID_NOT_ANNOUNCE)` };
    return { kind: 'played' };
  });
  return { scores: places, reasons, recordId: result.recordId };
}
