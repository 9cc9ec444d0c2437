import { createSocket } from 'node:dgram';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { AutoPlayer, type C4GameRecord } from '../../../src/games/connect4/peer.js';
import { fromMoves, legalMoves, type C4State } from '../../../src/games/connect4/rules.js';
import { parseColumn, renderBoard, runTerminalPlay } from '../../../src/games/connect4/terminal.js';
import { startUdpPeer, type UdpPeer } from '../../../src/games/connect4/transport.js';

const board = (moves: string): C4State => {
  const r = fromMoves(moves);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

const firstLegal = (order: number[]) => (s: C4State) =>
  order.find((c) => legalMoves(s).includes(c)) ?? legalMoves(s)[0]!;

describe('renderBoard', () => {
  it('draws the empty board with labelled columns', () => {
    expect(renderBoard(board(''))).toBe(
      [
        '  1  2  3  4  5  6  7',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '+---------------------+',
        '',
      ].join('\n'),
    );
  });

  it('draws X for the first player, O for the second, and brackets the last move', () => {
    expect(renderBoard(board('4453'))).toBe(
      [
        '  1  2  3  4  5  6  7',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  .  .  .  . |',
        '| .  .  .  O  .  .  . |',
        '| .  . [O] X  X  .  . |',
        '+---------------------+',
        '',
      ].join('\n'),
    );
    const full = renderBoard(board('444444717'));
    expect(full.split('\n').slice(1, 7)).toEqual([
      '| .  .  .  O  .  .  . |',
      '| .  .  .  X  .  .  . |',
      '| .  .  .  O  .  .  . |',
      '| .  .  .  X  .  .  . |',
      '| .  .  .  O  .  . [X]|',
      '| O  .  .  X  .  .  X |',
    ]);
  });

  it('reads only a single digit 1-7 as a column', () => {
    expect(parseColumn(' 7 ')).toBe(7);
    for (const bad of ['0', '8', '44', 'x', '', '4.', '-1']) expect(parseColumn(bad), bad).toBeNull();
  });
});

function collect(stream: PassThrough): {
  text: () => string;
  waitFor: (needle: string | RegExp, from?: number) => Promise<number>;
} {
  let text = '';
  const waiters: (() => void)[] = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters.splice(0)) w();
  });
  return {
    text: () => text,
    /** Resolves with the index just after the first match at or after `from`. */
    waitFor: (needle, from = 0) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${String(needle)} in:\n${text.slice(from)}`)),
          10_000,
        );
        const check = () => {
          const rest = text.slice(from);
          const m =
            typeof needle === 'string'
              ? rest.includes(needle)
                ? { index: rest.indexOf(needle), length: needle.length }
                : null
              : (() => {
                  const r = needle.exec(rest);
                  return r ? { index: r.index, length: r[0].length } : null;
                })();
          if (m) {
            clearTimeout(timer);
            resolve(from + m.index + m.length);
          } else waiters.push(check);
        };
        check();
      }),
  };
}

describe('playing against the local bot', () => {
  it('plays scripted games over streams: bad input, a full column, a win, a new game, quit', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const out = collect(output);
    const done = runTerminalPlay({
      name: 'Tester',
      vs: 'bot',
      level: 'easy',
      chooseMove: firstLegal([1, 2, 3, 4, 5, 6, 7]),
      input,
      output,
    });
    // Game 1: we are X and start; the bot stacks column 1, we stack column 4 and win.
    input.write(['hello', '4', '9', '4', '4', '4', 'x', 'new'].join('\n') + '\n');
    // Game 2: the bot starts in column 1; we answer in column 1 until it is full.
    input.write(['1', '1', '1', '1'].join('\n') + '\n');
    input.end('quit\n');
    const summary = await done;
    expect(summary).toEqual({ won: 1, lost: 0, drawn: 0, aborted: 1 });
    const text = out.text();
    expect(text).toContain('New game against the bot (easy): you are X and move first.');
    expect(text.match(/Not a column: type a digit 1-7/g)?.length).toBe(2);
    expect(text).toContain('You win!');
    expect(text).toContain("The game is over. Type 'new' for another game or 'quit'.");
    expect(text).toContain('New game against the bot (easy): you are O; the bot moves first.');
    expect(text).toContain('Column 1 is full.');
    expect(text.trimEnd().endsWith('Bye.')).toBe(true);
    // The winning board of game 1, last move bracketed.
    expect(text).toContain(
      [
        '| .  .  .  .  .  .  . |',
        '| .  .  . [X] .  .  . |',
        '| O  .  .  X  .  .  . |',
        '| O  .  .  X  .  .  . |',
        '| O  .  .  X  .  .  . |',
        '+---------------------+',
        'You win!',
      ].join('\n'),
    );
  });

  it('says when the bot wins, and refuses to start without a chooser', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const out = collect(output);
    const done = runTerminalPlay({
      name: 'Tester',
      vs: 'bot',
      botStarts: true,
      chooseMove: firstLegal([4]),
      input,
      output,
    });
    input.end(['1', '1', '1'].join('\n') + '\n');
    expect(await done).toEqual({ won: 0, lost: 1, drawn: 0, aborted: 0 });
    expect(out.text()).toContain('The bot wins.');
    await expect(
      runTerminalPlay({ name: 'x', vs: 'bot', input: new PassThrough(), output: new PassThrough() }),
    ).rejects.toThrow(/chooser/);
  });
});

async function freePorts(n: number): Promise<number[]> {
  const sockets = await Promise.all(
    Array.from({ length: n }, () => {
      const s = createSocket('udp4');
      return new Promise<typeof s>((resolve) => s.bind(0, '127.0.0.1', () => resolve(s)));
    }),
  );
  const ports = sockets.map((s) => s.address().port);
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

const FAST = {
  resendMs: 100,
  lobbyExpiryMs: 1000,
  inviteTimeoutMs: 1000,
  invitationValidMs: 1000,
  acceptTimeoutMs: 1000,
  silenceMs: 3000,
  moveTimeoutMs: 5000,
  finalMoveWaitMs: 500,
};

describe('playing against a peer', () => {
  let bob: UdpPeer | null = null;
  afterEach(async () => {
    await bob?.close();
    bob = null;
  });

  it('lists the lobby, invites, plays a game with typing mistakes, returns to the lobby and quits', async () => {
    const [alicePort, bobPort] = await freePorts(2);
    const records: C4GameRecord[] = [];
    bob = await startUdpPeer({
      name: 'Bob',
      port: bobPort!,
      peerPorts: [alicePort!],
      timing: FAST,
      onGameFinished: (r) => records.push(r),
    });
    new AutoPlayer(bob.peer, firstLegal([3, 2, 1]), { thinkDelayMs: 150 });
    const input = new PassThrough();
    const output = new PassThrough();
    const out = collect(output);
    const done = runTerminalPlay({
      name: 'Alice',
      vs: 'peer',
      port: alicePort!,
      bindAddress: '127.0.0.1',
      broadcastAddress: null,
      peerPorts: [bobPort!],
      timing: FAST,
      input,
      output,
    });
    let at = await out.waitFor(`1) Bob (127.0.0.1:${bobPort})`);
    input.write('invite 7\n');
    at = await out.waitFor('No such player', at);
    input.write('invite 1\n');
    at = await out.waitFor('Game against Bob: you are X and move first.', at);
    for (let i = 0; i < 4; i++) {
      at = await out.waitFor('Your move (1-7): ', at);
      if (i === 1) {
        input.write('nine\n');
        at = await out.waitFor('Not a column', at);
      }
      input.write('4\n');
      if (i === 2) {
        input.write('5\n'); // typed while Bob thinks
        at = await out.waitFor('Not your turn: wait for Bob.', at);
      }
    }
    at = await out.waitFor('You win!', at);
    expect(out.text()).toContain('Bob plays 3.');
    input.write('\n');
    at = await out.waitFor('In the lobby:', at);
    input.end('quit\n');
    expect(await done).toEqual({ won: 1, lost: 0, drawn: 0, aborted: 0 });
    expect(out.text().trimEnd().endsWith('Bye.')).toBe(true);
    for (let i = 0; i < 200 && records.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(records.map((r) => [r.outcome, r.moves.join('')])).toEqual([['lost', '4343434']]);
  });
});
