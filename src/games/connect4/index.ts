import { Option, type Command } from 'commander';
import { commandLogLevel } from '../../core/command-log.js';
import { UsageError } from '../../core/errors.js';
import type { GameServer } from '../../core/game-server.js';
import type { Stoppable } from '../../core/lifecycle.js';
import { createLogger, type Logger } from '../../core/log.js';
import type { MatchDetail } from '../../core/records.js';
import type { GameCommands, GameModule, ServeContext } from '../types.js';
import { BOT_LEVELS, type BotLevel } from './bots/index.js';
import { Connect4Engine } from './engine.js';
import { Connect4Hub } from './hub.js';
import { HouseAdmission, SparringScheduler, sparringRotation } from './house.js';
import { AutoPlayer } from './peer.js';
import { connect4Conformance } from './conformance/index.js';
import { registerConnect4Routes } from './routes.js';
import { fromMoves, status } from './rules.js';
import { registerSolveCommand } from './solve-command.js';
import { bindFirst, candidatePorts, DEFAULT_PEER_PORTS, network, portNumber, type NetworkFlags } from './network-flags.js';
import { runPlayConnect4, type PlayOptions } from './play-command.js';
import { connect4Tournament } from './tournament.js';
import { C4_DEFAULTS, startUdpPeer } from './transport.js';

export { Connect4Hub } from './hub.js';
export { Connect4Engine } from './engine.js';

/**
 * 4 Gewinnt: the hub (house bots, browser relays, games against the solver), `bot connect4`,
 * `play connect4` and `solve`. Everything binds 127.0.0.1 unless the user asks for the LAN.
 */

function hubOf(server: GameServer): Connect4Hub {
  if (!(server instanceof Connect4Hub)) throw new Error('not a Connect Four hub');
  return server;
}

/** The house bot answers every invitation with perfect play; its sparring partner keeps the board busy. */
async function startHouseBots(ctx: ServeContext, server: GameServer): Promise<Stoppable[]> {
  const s = ctx.settings.games.connect4;
  const hub = hubOf(server);
  const parts: Stoppable[] = [];
  if (s.houseBots < 1) return parts;
  const seed = ctx.settings.seed === '' ? String(Date.now()) : ctx.settings.seed;
  let games = 0;
  const chooser = (level: BotLevel, name: string) => (state: { moves: readonly number[] }) =>
    hub.engine.choose(state, level, `${seed}:${name}:${games}:${state.moves.join('')}`);

  // One admission for both bots: what one remote IP holds of them counts together.
  // Ladder codes are the Liga peer's (docs/connect4.md "Die Liga"): the house bots leave their invitations alone.
  const admission = new HouseAdmission({ maxGamesPerHost: s.maxGamesPerHost, hostPauseMs: s.hostPauseMs, isOwn: (p) => hub.isOwnPeer(p), refuses: (p) => hub.isLadderCode(p.name) });
  const house = await hub.startPeer({ name: 'house-perfect', role: 'house', port: s.port });
  const housePlayer = new AutoPlayer(house.peer, chooser('perfect', 'house'), { log: ctx.log, admission });
  // A fresh seed per game, so that equal positions of different games may get different moves.
  house.peer.on((event) => {
    if (event.type === 'game-started') games++;
  });
  parts.push({ name: 'connect4 house bot', stop: () => housePlayer.stop() });
  if (s.houseBots < 2) return parts;

  let sparring;
  try {
    sparring = await hub.startPeer({ name: `house-${s.sparringLevel}`, role: 'sparring', port: s.port === 0 ? 0 : s.port + 1 });
  } catch {
    sparring = await hub.startPeer({ name: `house-${s.sparringLevel}`, role: 'sparring', port: 0 });
  }
  // House games follow a deterministic schedule (house.ts, houseGamePlan): the first player
  // alternates from game to game and the sparring bot's level rotates; against anyone else it
  // plays the configured level.
  const scheduler = new SparringScheduler({
    house,
    sparring,
    pauseMs: s.sparringPauseMs,
    levels: sparringRotation(s.sparringLevel),
    log: ctx.log,
  });
  const sparringPlayer = new AutoPlayer(
    sparring.peer,
    (state) => {
      const plan = scheduler.current;
      const level = scheduler.sparringLevel(s.sparringLevel);
      return hub.engine.choose(state, level, `${seed}:sparring:${plan?.index ?? 0}:${level}:${state.moves.join('')}`);
    },
    { log: ctx.log, admission },
  );
  parts.push({
    name: 'connect4 sparring bot',
    stop: () => {
      scheduler.stop();
      sparringPlayer.stop();
    },
  });
  return parts;
}

const levelOption = (fallback: BotLevel) => new Option('--level <level>', 'how the bot plays').choices(BOT_LEVELS).default(fallback);

function networkOptions(cmd: Command): Command {
  return cmd
    .option('--port <port>', `UDP port (default ${C4_DEFAULTS.port}; 0 = any free one)`)
    .option('--bind <address>', 'address to bind (default 127.0.0.1; 0.0.0.0 with --lan)')
    .option('--lan', 'play on the LAN: bind all interfaces and broadcast stage 1 to 255.255.255.255')
    .option('--broadcast <address>', 'broadcast address for --lan (default 255.255.255.255)')
    .option('--peer-port <port...>', 'announce also to 127.0.0.1 at these ports (peers on this machine)', [...DEFAULT_PEER_PORTS])
    .option('--log-level <level>', 'log level (debug shows every datagram; default warn)');
}

function registerCommands({ bot, play, program }: GameCommands): void {
  networkOptions(
    bot
      .command('connect4')
      .description('a Connect Four peer that accepts every invitation and plays it with the solver')
      .option('--name <name>', 'our clientname (1–32 printable ASCII characters)', 'c4-bot')
      .addOption(levelOption('perfect'))
      .option('--invite <host:port>', 'invite this peer once at the start (if it invites us too, we accept its invitation instead)')
      .option('--once', 'exit (code 0) when the first game ends, as a tournament program does')
      .option('--move-time <ms>', 'longest the perfect level thinks per move (default 3000)')
      .option('--seed <seed>', 'seed for choosing among equally good moves', 'spielhalle'),
  ).action(async (opts: NetworkFlags & { name: string; level: BotLevel; invite?: string; once?: boolean; moveTime?: string; seed: string }, cmd: Command) => {
    const net = network(opts);
    const log: Logger = createLogger({ level: commandLogLevel(cmd, 'warn') });
    const moveTime = opts.moveTime === undefined ? undefined : Number(opts.moveTime);
    if (moveTime !== undefined && (!Number.isInteger(moveTime) || moveTime < 1)) throw new UsageError(`--move-time must be a number of milliseconds, got "${opts.moveTime ?? ''}"`);
    const engine = new Connect4Engine(moveTime === undefined ? { log } : { log, perfectBudgetMs: moveTime });
    const ports = candidatePorts(opts, net.peerPorts);
    const udp = await bindFirst(ports, (port) => startUdpPeer({ name: opts.name, port, ...net, log }));
    let n = 0;
    const player = new AutoPlayer(udp.peer, (state) => engine.choose(state, opts.level, `${opts.seed}:${n++}`), { log });
    if (opts.invite !== undefined) {
      const m = /^(.+):(\d+)$/.exec(opts.invite);
      if (!m) throw new UsageError(`--invite must be host:port, got "${opts.invite}"`);
      const invited = udp.peer.invite({ address: m[1] ?? '', port: portNumber(m[2] ?? '', '--invite') });
      if (!invited.ok) throw new UsageError(invited.error.message);
      // Crossed invitations (it invites us too): we take its invitation, so that it moves first.
      const target = invited.value.key;
      udp.peer.on((event) => {
        if (event.type !== 'invitation' || event.from.key !== target || udp.peer.invitee?.key !== target) return;
        udp.peer.cancelInvite();
        udp.peer.accept(target);
      });
    }
    process.stderr.write(`spielhalle: Connect Four bot "${opts.name}" (${opts.level}) on udp ${udp.address.address}:${udp.address.port}; Ctrl-C stops it\n`);
    await new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
      // --once: the game's end (or its abort) ends the program, after a moment for the last stage 5s.
      if (opts.once === true)
        udp.peer.on((event) => {
          if (event.type === 'game-over' || event.type === 'aborted') setTimeout(resolve, 300);
        });
    });
    player.stop();
    await udp.close();
    await engine.close();
    process.stderr.write(`spielhalle: ${JSON.stringify(player.stats)}\n`);
  });

  networkOptions(
    play
      .command('connect4')
      .description('play 4 Gewinnt in the terminal: against peers on the network, or against the solver')
      .option('--name <name>', 'your clientname (1–32 printable ASCII characters)', process.env.USER ?? 'player')
      .addOption(new Option('--vs <who>', 'opponent').choices(['peer', 'bot']).default('peer'))
      .addOption(levelOption('strong'))
      .option('--bot-first', 'against the bot: the bot moves first'),
  ).action(async (opts: PlayOptions, cmd: Command) => {
    await runPlayConnect4(opts, commandLogLevel(cmd, 'warn'));
  });

  registerSolveCommand(program);
}

/** A recorded game replays through the rules to the recorded result. */
function verify(match: MatchDetail): { checked: boolean; problems: string[] } {
  const result = match.result as { outcome?: string; winner?: number | null; moves?: string; reason?: string } | null;
  if (!result || typeof result.moves !== 'string') return { checked: false, problems: [] };
  const replayed = fromMoves(result.moves);
  if (!replayed.ok) return { checked: true, problems: [`the moves ${result.moves} are not a game: ${replayed.error.message}`] };
  const problems: string[] = [];
  const moveEvents = match.events.filter((e) => e.type === 'move').map((e) => (e.data as { column: number }).column);
  if (moveEvents.join('') !== result.moves) problems.push(`the move events (${moveEvents.join('')}) differ from the result's moves (${result.moves})`);
  const s = status(replayed.value);
  if (result.outcome === 'won' && result.reason === 'four' && (s.kind !== 'won' || s.winner !== result.winner))
    problems.push(`the record says player ${String(result.winner)} made a four, the rules say ${s.kind}`);
  if (result.outcome === 'drawn' && s.kind !== 'drawn') problems.push(`the record says drawn, the rules say ${s.kind}`);
  if (result.outcome === 'aborted' || result.reason === 'resigned') {
    if (s.kind !== 'running') problems.push(`the game was over (${s.kind}) but is recorded as ${result.reason ?? 'aborted'}`);
  }
  return { checked: true, problems };
}

export const connect4: GameModule = {
  name: 'connect4',
  title: '4 Gewinnt (Connect Four)',
  createServer: (ctx) => {
    const s = ctx.settings.games.connect4;
    return new Connect4Hub({
      host: s.lan ? C4_DEFAULTS.lanBindAddress : ctx.settings.host,
      port: s.port,
      broadcastAddress: s.lan ? s.broadcastAddress : null,
      peerPorts: s.peerPorts,
      log: ctx.log,
      store: ctx.store,
      engine: new Connect4Engine({ log: ctx.log }),
      ladderPort: s.ladderPort,
      limits: { datagramsPerSecondPerHost: s.datagramsPerSecondPerHost, lobbyEntriesPerHost: s.lobbyEntriesPerHost, invitationsPerHost: s.invitationsPerHost },
    });
  },
  startHouseBots,
  listensWithHouseBots: true,
  registerCommands,
  registerRoutes: (app, server, ctx) => {
    const hub = hubOf(server);
    registerConnect4Routes(app, {
      hub,
      games: hub.solverGames,
      engine: hub.engine,
      log: ctx.log,
      maxBrowserPeers: ctx.settings.games.connect4.maxBrowserPeers,
    });
  },
  verify,
  tournament: connect4Tournament,
  conformance: connect4Conformance,
};
