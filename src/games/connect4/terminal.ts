import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from '../../core/errors.js';
import { silentLogger, type Logger } from '../../core/log.js';
import type { MoveChooser, PeerEvent, PeerTiming, RemotePeer } from './peer.js';
import {
  apply,
  COLUMNS,
  grid,
  initialState,
  legalMoves,
  ROWS,
  status,
  type C4State,
  type Player,
} from './rules.js';
import { startUdpPeer, type UdpPeer } from './transport.js';

/**
 * `spielhalle play connect4`: a human at a terminal, against a peer on the network (lobby,
 * invitations, moves) or against a local bot without any network. Rendering is a pure function of
 * the board; everything else turns input lines into Peer commands and Peer events into lines.
 */

export const STONES: Readonly<Record<Player, string>> = { 0: 'X', 1: 'O' };

/**
 * The board as text, top row first: columns labelled 1–7, X for the first player, O for the
 * second, the last move in brackets.
 */
export function renderBoard(state: C4State): string {
  const cells = grid(state);
  const last = state.moves.at(-1);
  let lastRow = -1;
  if (last !== undefined)
    for (let row = 0; row < ROWS; row++) if (cells[row]![last - 1] !== null) lastRow = row;
  const lines = [(' ' + Array.from({ length: COLUMNS }, (_, c) => ` ${c + 1} `).join('')).trimEnd()];
  for (let row = ROWS - 1; row >= 0; row--) {
    let text = '|';
    for (let col = 0; col < COLUMNS; col++) {
      const stone = cells[row]![col];
      const mark = stone === null || stone === undefined ? '.' : STONES[stone];
      text += row === lastRow && col === last! - 1 ? `[${mark}]` : ` ${mark} `;
    }
    lines.push(text + '|');
  }
  lines.push('+' + '-'.repeat(COLUMNS * 3) + '+');
  return lines.join('\n') + '\n';
}

/** A column typed by the user: exactly one digit 1–7 (surrounding blanks allowed). */
export function parseColumn(text: string): number | null {
  const t = text.trim();
  return /^[1-7]$/.test(t) ? Number(t) : null;
}

export interface TerminalPlayOptions {
  /** Our clientname: 1–32 printable ASCII characters. */
  name: string;
  vs: 'peer' | 'bot';
  /** Shown for `--vs bot`; the chooser already plays at this level. */
  level?: 'perfect' | 'strong' | 'easy';
  /** The bot for `--vs bot` (required there). */
  chooseMove?: MoveChooser;
  /** `--vs bot`: the bot moves first in the first game (then the first move alternates). */
  botStarts?: boolean;
  port?: number;
  bindAddress?: string;
  broadcastAddress?: string | null;
  peerPorts?: readonly number[];
  clienttype?: number;
  timing?: Partial<PeerTiming>;
  log?: Logger;
  input: Readable;
  output: Writable;
}

export interface TerminalSummary {
  won: number;
  lost: number;
  drawn: number;
  aborted: number;
}

const HELP_LOBBY =
  'Commands: list, invite <n>, accept, decline, quit. In a game: a column 1-7, or quit to abort it.\n';

/** Runs until the user quits or the input ends. */
export async function runTerminalPlay(options: TerminalPlayOptions): Promise<TerminalSummary> {
  if (options.vs === 'bot') {
    if (!options.chooseMove) throw new UsageError('playing against the bot needs a move chooser');
    return playBot(options, options.chooseMove);
  }
  return playPeer(options);
}

/** Feeds input lines to `onLine` one at a time (async handlers finish first); `true` from it stops reading. */
function lines(input: Readable, onLine: (line: string) => boolean | Promise<boolean>): Promise<void> {
  const rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
  let chain = Promise.resolve();
  let stopped = false;
  return new Promise((resolve) => {
    rl.on('line', (line) => {
      chain = chain
        .then(async () => {
          if (stopped) return;
          if (await onLine(line)) {
            stopped = true;
            rl.close();
          }
        })
        .catch(() => undefined);
    });
    rl.on('close', () => {
      void chain.then(() => resolve());
    });
  });
}

function describeResult(outcome: 'won' | 'lost' | 'drawn', opponent: string): string {
  return outcome === 'won'
    ? 'You win!'
    : outcome === 'lost'
      ? `${opponent} wins.`
      : 'Draw: the board is full.';
}

// ---- against the local bot ----

async function playBot(options: TerminalPlayOptions, choose: MoveChooser): Promise<TerminalSummary> {
  const out = (text: string) => options.output.write(text);
  const summary: TerminalSummary = { won: 0, lost: 0, drawn: 0, aborted: 0 };
  const botName = `the bot${options.level ? ` (${options.level})` : ''}`;
  let botPlayer: Player = options.botStarts ? 0 : 1;
  let state = initialState();
  let over = false;

  const finishIfOver = (): boolean => {
    const st = status(state);
    if (st.kind === 'running') return false;
    over = true;
    const outcome = st.kind === 'drawn' ? 'drawn' : st.winner === botPlayer ? 'lost' : 'won';
    summary[outcome]++;
    out(
      renderBoard(state) + describeResult(outcome, 'The bot') + "\nType 'new' for another game or 'quit'.\n",
    );
    return true;
  };

  const botMove = async (): Promise<void> => {
    out(`${botName} thinks...\n`);
    // Let the line above reach the terminal before a long synchronous search starts.
    await new Promise((resolve) => setImmediate(resolve));
    let column: number | null = null;
    try {
      column = await choose(state);
    } catch (error) {
      options.log?.error({ err: error }, 'the bot failed');
    }
    let next = column === null ? null : apply(state, column);
    if (!next?.ok) {
      column = legalMoves(state)[0]!;
      next = apply(state, column);
    }
    if (next.ok) state = next.value;
    out(`The bot plays ${column}.\n`);
  };

  const newGame = async (): Promise<void> => {
    state = initialState();
    over = false;
    out(
      `New game against ${botName}: you are ${STONES[(1 - botPlayer) as Player]}${botPlayer === 1 ? ' and move first' : '; the bot moves first'}.\n`,
    );
    if (botPlayer === 0) await botMove();
    out(renderBoard(state) + 'Your move (1-7): ');
  };

  await newGame();
  await lines(options.input, async (line) => {
    const cmd = line.trim().toLowerCase();
    if (cmd === 'quit' || cmd === 'q') {
      if (!over && state.moves.length > 0) summary.aborted++;
      return true;
    }
    if (over) {
      if (cmd === 'new' || cmd === 'n') {
        botPlayer = (1 - botPlayer) as Player;
        await newGame();
      } else out("The game is over. Type 'new' for another game or 'quit'.\n");
      return false;
    }
    const column = parseColumn(cmd);
    if (column === null) {
      out('Not a column: type a digit 1-7 (or quit).\nYour move (1-7): ');
      return false;
    }
    const next = apply(state, column);
    if (!next.ok) {
      out(
        `${next.error.code === 'column-full' ? `Column ${column} is full.` : next.error.message}\nYour move (1-7): `,
      );
      return false;
    }
    state = next.value;
    if (finishIfOver()) return false;
    await botMove();
    if (!finishIfOver()) out(renderBoard(state) + 'Your move (1-7): ');
    return false;
  });
  out('Bye.\n');
  return summary;
}

// ---- against a peer on the network ----

async function playPeer(options: TerminalPlayOptions): Promise<TerminalSummary> {
  const out = (text: string) => options.output.write(text);
  const summary: TerminalSummary = { won: 0, lost: 0, drawn: 0, aborted: 0 };
  const udp: UdpPeer = await startUdpPeer({
    name: options.name,
    bindAddress: options.bindAddress ?? '127.0.0.1',
    port: options.port ?? 32442,
    broadcastAddress: options.broadcastAddress ?? null,
    peerPorts: options.peerPorts ?? [],
    clienttype: options.clienttype ?? 0,
    log: options.log ?? silentLogger,
    ...(options.timing ? { timing: options.timing } : {}),
  });
  const peer = udp.peer;
  let shown: RemotePeer[] = [];
  let opponent = 'the opponent';
  const who = (p: RemotePeer) => `${p.name ?? '(no name)'} (${p.key})`;

  const showLobby = () => {
    shown = peer.lobby();
    out(
      shown.length === 0
        ? 'Nobody in the lobby yet.\n'
        : 'In the lobby:\n' + shown.map((p, i) => `  ${i + 1}) ${who(p)}\n`).join(''),
    );
  };

  const onEvent = (e: PeerEvent): void => {
    switch (e.type) {
      case 'phase':
        if (e.phase === 'lobby') showLobby();
        break;
      case 'lobby':
        if (peer.phase === 'lobby') showLobby();
        break;
      case 'invitation':
        if (peer.phase === 'lobby') out(`${who(e.from)} invites you: type 'accept' (or 'decline').\n`);
        break;
      case 'invite-expired':
        out(`${who(e.to)} did not answer the invitation.\n`);
        break;
      case 'accept-expired':
        out(`${who(e.to)} did not start the game; back in the lobby.\n`);
        break;
      case 'game-started':
        opponent = e.game.opponent.name ?? e.game.opponent.key;
        out(
          `Game against ${opponent}: you are ${STONES[e.game.localPlayer]}${e.game.localPlayer === 0 ? ' and move first' : `; ${opponent} moves first`}.\n`,
        );
        if (e.game.localPlayer === 1) out(renderBoard(initialState()) + `Waiting for ${opponent}...\n`);
        break;
      case 'your-turn':
        out(renderBoard(e.state) + 'Your move (1-7): ');
        break;
      case 'moved':
        if (e.by === 'remote') out(`${opponent} plays ${e.column}.\n`);
        else if (status(e.state).kind === 'running')
          out(renderBoard(e.state) + `Waiting for ${opponent}...\n`);
        break;
      case 'bad-move':
        out(
          `${opponent} sent a move that does not count (column ${e.column}, turn ${e.turn}: ${e.reason}); waiting for a valid one.\n`,
        );
        break;
      case 'game-over':
        summary[e.outcome]++;
        out(
          renderBoard(e.state) +
            describeResult(e.outcome, opponent) +
            "\nPress Enter to return to the lobby (or type 'quit').\n",
        );
        break;
      case 'aborted':
        summary.aborted++;
        out(`The game was aborted: ${abortText(e.reason, opponent)}. Back in the lobby.\n`);
        break;
      default:
        break;
    }
  };
  const unsubscribe = peer.on(onEvent);
  out(
    `Connect Four as ${options.name} on ${udp.address.address}:${udp.address.port}${options.broadcastAddress ? `, broadcasting to ${options.broadcastAddress}` : ''}.\n${HELP_LOBBY}`,
  );
  showLobby();

  await lines(options.input, (line) => {
    const [cmd = '', arg] = line.trim().split(/\s+/);
    const word = cmd.toLowerCase();
    if (word === 'help' || word === '?') {
      out(HELP_LOBBY);
      return false;
    }
    switch (peer.phase) {
      case 'playing': {
        if (word === 'quit' || word === 'q') {
          peer.quit();
          return false;
        }
        const column = parseColumn(word);
        if (column === null) {
          out('Not a column: type a digit 1-7 (or quit to abort the game).\n');
          return false;
        }
        const r = peer.move(column);
        if (!r.ok)
          out(
            r.error.code === 'column-full'
              ? `Column ${column} is full.\n`
              : r.error.code === 'not-your-turn' || r.error.code === 'opponent-not-ready'
                ? `Not your turn: wait for ${opponent}.\n`
                : `${r.error.message}\n`,
          );
        return false;
      }
      case 'ended':
        if (word === 'quit' || word === 'q') return true;
        peer.backToLobby();
        return false;
      case 'accepting':
        if (word === 'quit' || word === 'q') peer.quit();
        else out('Waiting for the game to start (or quit).\n');
        return false;
      default:
        break;
    }
    if (word === '' || word === 'list' || word === 'l') showLobby();
    else if (word === 'invite' || word === 'i') {
      const n = Number(arg);
      const target = Number.isInteger(n) ? shown[n - 1] : undefined;
      if (!target) {
        out("No such player: type 'list', then 'invite <n>' with a number from the list.\n");
        return false;
      }
      const r = peer.invite(target.key);
      out(r.ok ? `Inviting ${who(r.value)}...\n` : `${r.error.message}\n`);
    } else if (word === 'accept' || word === 'a') {
      const r = peer.accept();
      out(r.ok ? `Accepted ${who(r.value)}; waiting for the board...\n` : `${r.error.message}\n`);
    } else if (word === 'decline' || word === 'd') {
      const r = peer.decline();
      out(r.ok ? `Declined ${who(r.value)}.\n` : `${r.error.message}\n`);
    } else if (word === 'quit' || word === 'q') return true;
    else out(`Unknown command "${cmd.slice(0, 20)}". ${HELP_LOBBY}`);
    return false;
  });
  unsubscribe();
  await udp.close();
  out('Bye.\n');
  return summary;
}

function abortText(reason: string, opponent: string): string {
  switch (reason) {
    case 'silence':
      return `nothing heard from ${opponent} for 10 s`;
    case 'move-timeout':
      return `${opponent} did not move within 30 s`;
    case 'quit':
      return 'you quit';
    case 'opponent-aborted':
      return `${opponent} left the game`;
    case 'no-final-move':
      return `${opponent} says the game is over, but its last move never arrived`;
    default:
      return reason;
  }
}
