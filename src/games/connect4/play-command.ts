import type { LevelWithSilent } from 'pino';
import { createLogger, silentLogger, type Logger } from '../../core/log.js';
import type { BotLevel } from './bots/index.js';
import { Connect4Engine } from './engine.js';
import { bindFirst, candidatePorts, network, type NetworkFlags } from './network-flags.js';
import { runTerminalPlay } from './terminal.js';

/** The options of `spielhalle play connect4` (commander's names; the quick entry play-main.ts gives the same). */
export interface PlayOptions extends NetworkFlags {
  name: string;
  vs: 'peer' | 'bot';
  level: BotLevel;
  botFirst?: boolean;
}

/**
 * `spielhalle play connect4` itself: the board on stdout, moves from stdin, against peers on the
 * network or against the solver (its engine thread). Logs go to stderr only when `logLevel` asks
 * for more than warnings.
 */
export async function runPlayConnect4(opts: PlayOptions, logLevel: LevelWithSilent): Promise<void> {
  const net = network(opts);
  const log: Logger = logLevel === 'warn' ? silentLogger : createLogger({ level: logLevel });
  const engine = new Connect4Engine({ log });
  try {
    const base = { name: opts.name, level: opts.level, input: process.stdin, output: process.stdout, log };
    let n = 0;
    const chooseMove = (state: { moves: readonly number[] }) => engine.choose(state, opts.level, `play:${Date.now()}:${n++}`);
    if (opts.vs === 'bot') {
      await runTerminalPlay({ ...base, vs: 'bot', chooseMove, botStarts: opts.botFirst === true });
    } else {
      const ports = candidatePorts(opts, net.peerPorts);
      await bindFirst(ports, (port) => runTerminalPlay({ ...base, vs: 'peer', port, ...net }));
    }
  } finally {
    await engine.close();
  }
}
