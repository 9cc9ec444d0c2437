import type { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import type { GameServer } from '../core/game-server.js';
import type { Logger } from '../core/log.js';
import type { MatchDetail, MatchRecord } from '../core/records.js';
import type { Records } from '../core/record-backend.js';
import type { Stoppable } from '../core/lifecycle.js';
import type { Settings } from '../config.js';
import type { TournamentSupport } from '../core/tournament-match.js';
import type { GameConformance } from '../core/conformance.js';

/**
 * What a game folder offers the rest of the program. Adding a game is adding a folder with an
 * index.ts that exports one of these, and one line in games/registry.ts.
 */
export interface ServeContext {
  settings: Settings;
  log: Logger;
  store: Records;
}

export interface GameCommands {
  /** `spielhalle bot`: one subcommand per game. */
  bot: Command;
  /** `spielhalle play`: one subcommand per game a person can play in the terminal. */
  play: Command;
  program: Command;
}

export interface GameModule {
  readonly name: keyof Settings['games'];
  readonly title: string;
  createServer(ctx: ServeContext): GameServer;
  /** House bots that play on the running server so there is something to watch. */
  startHouseBots?(ctx: ServeContext, server: GameServer): Promise<Stoppable[]>;
  /**
   * The game's port is its house bot's (Connect Four is peer to peer): `serve` starts these house
   * bots right after the servers, before the dashboard, and logs `listening` once they are up.
   */
  readonly listensWithHouseBots?: boolean;
  /** Adds `bot <game>`, `play <game>` and any other game command to the CLI. */
  registerCommands?(commands: GameCommands): void;
  /**
   * Routes of the game's own under `/api/<game>/` and `/ws/<game>/` (play and analysis pages);
   * the generic ones (info, snapshot, spectating, records) need none.
   */
  registerRoutes?(app: FastifyInstance, server: GameServer, ctx: ServeContext): void;
  /** Checks a recorded match against the rules; `checked` is false where nothing can be checked. */
  verify?(match: MatchDetail): { checked: boolean; problems: string[] };
  /**
   * How a recorded match ended, in one line for `matches` and `replay` (who won or lost, why, the
   * points), and how many moves it holds. Without it the CLI reads the common result fields.
   */
  summarize?(match: MatchRecord): { result: string; moves: number | null };
  /** How a tournament plays one of its matches through this game's server (src/tournament). */
  tournament?: TournamentSupport;
  /** The scenarios of `spielhalle check-client <game>` (src/conformance, docs/check-client.md). */
  conformance?: GameConformance;
}
