import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePieces } from '../../../src/games/dame/notation.js';
import {
  encodeGroup,
  formatClient,
  formatFault,
  formatGroup,
  isGameId,
  parseBoardHeader,
  parseClientLine,
  parseGreeting,
  parseMoveRequest,
  parsePlayerEntry,
  parseTotal,
  parseWon,
  parseYou,
  type ClientMessage,
} from '../../../src/games/dame/protocol.js';
import { initialState } from '../../../src/games/dame/rules.js';

describe('server groups', () => {
  it('spells the prolog groups as §2.2 does', () => {
    expect(formatGroup({ type: 'greeting', version: '3.1' })).toEqual(['+ MNM Gameserver v3.1 accepting connections']);
    expect(formatGroup({ type: 'motd', text: 'Welcome to the Dame server' })).toEqual(['+ Welcome to the Dame server']);
    expect(formatGroup({ type: 'versionAccepted' })).toEqual(['+ Client version accepted - please send Game-ID to join']);
    expect(formatGroup({ type: 'playing', gameName: 'Game from 2024-01-15 10:00' })).toEqual([
      '+ PLAYING Checkers',
      '+ Game from 2024-01-15 10:00',
    ]);
    expect(
      formatGroup({
        type: 'players',
        you: { seat: 0, name: 'White Player', ready: true },
        others: [{ seat: 1, name: 'Black Player', ready: true }],
      }),
    ).toEqual(['+ YOU 0 White Player', '+ TOTAL 2', '+ 1 Black Player 1', '+ ENDPLAYERS']);
    expect(formatGroup({ type: 'players', you: { seat: 1, name: 'Black Player', ready: true }, others: [{ seat: 0, name: 'White Player', ready: false }] })).toContain(
      '+ 0 White Player 0',
    );
  });

  it('spells MOVE with the board rank 8 first, no trailing spaces', () => {
    expect(formatGroup({ type: 'move', timeMs: 3000, board: initialState() })).toEqual([
      '+ MOVE 3000',
      '+ BOARD 8,8',
      '+ 8 * b * b * b * b',
      '+ 7 b * b * b * b *',
      '+ 6 * b * b * b * b',
      '+ 5 * * * * * * * *',
      '+ 4 * * * * * * * *',
      '+ 3 w * w * w * w *',
      '+ 2 * w * w * w * w',
      '+ 1 w * w * w * w *',
      '+ ENDBOARD',
    ]);
    expect(encodeGroup({ type: 'okThink' })).toBe('+ OKTHINK\n');
    expect(encodeGroup({ type: 'moveOk' })).toBe('+ MOVEOK\n');
    expect(encodeGroup({ type: 'wait' })).toBe('+ WAIT\n');
  });

  it('spells the GAMEOVER block with kings, the winners and QUIT; a draw is Yes/Yes', () => {
    const board = parsePieces('W A1; B H8');
    if (!board.ok) throw new Error(board.error);
    const lines = formatGroup({ type: 'gameOver', board: board.value, winners: [true, true] });
    expect(lines[0]).toBe('+ GAMEOVER');
    expect(lines[1]).toBe('+ BOARD 8,8');
    expect(lines[2]).toBe('+ 8 * * * * * * * B');
    expect(lines[9]).toBe('+ 1 W * * * * * * *');
    expect(lines.slice(10)).toEqual(['+ ENDBOARD', '+ PLAYER0WON Yes', '+ PLAYER1WON Yes', '+ QUIT']);
    expect(formatGroup({ type: 'gameOver', board: board.value, winners: [false, true] }).slice(11, 13)).toEqual([
      '+ PLAYER0WON No',
      '+ PLAYER1WON Yes',
    ]);
  });

  it('spells every error line of §2.5', () => {
    expect(formatFault({ code: 'timeout' })).toBe('- TIMEOUT Be faster next time');
    expect(formatFault({ code: 'version-mismatch' })).toBe('- Client Version does not match server Version');
    expect(formatFault({ code: 'expected', command: 'ID' })).toBe('- Did not get the expected ID command');
    expect(formatFault({ code: 'expected', command: 'PLAY' })).toBe('- Did not get the expected PLAY command');
    for (const command of ['VERSION', 'PLAYER', 'THINKING', 'OKWAIT'] as const) {
      expect(formatFault({ code: 'expected', command })).toBe(`- Did not get the expected ${command} command`);
    }
    expect(formatFault({ code: 'invalid-game-id' })).toBe('- Not a valid game ID');
    expect(formatFault({ code: 'game-not-found' })).toBe('- Game does not exist');
    expect(formatFault({ code: 'no-free-player' })).toBe('- No free player');
    expect(formatFault({ code: 'unexpected' })).toBe('- Did not expect response from client');
    expect(formatFault({ code: 'invalid-move', reason: 'Destination is already occupied' })).toBe(
      '- Invalid Move: Destination is already occupied',
    );
    expect(formatFault({ code: 'internal' })).toBe('- Internal error. Sorry & Bye');
  });
});

describe('client lines', () => {
  it('reads VERSION: only the major counts; anything else does not parse', () => {
    for (const [line, major] of [
      ['VERSION 2.1', 2],
      ['VERSION 2.3', 2],
      ['VERSION 3.12', 3],
      ['VERSION 3', 3],
      ['VERSION  3.1  ', 3],
    ] as const) {
      expect(parseClientLine(line), line).toMatchObject({ type: 'VERSION', major });
    }
    for (const line of ['VERSION', 'VERSION x', 'VERSION 3.x', 'VERSION 3.1.2', 'VERSION -3']) {
      expect(parseClientLine(line), line).toMatchObject({ type: 'VERSION', major: null });
    }
    expect(parseClientLine('version 3.1')).toEqual({ type: 'other', text: 'version 3.1' });
  });

  it('reads ID, PLAYER (bare, numbered, junk), OKWAIT, THINKING', () => {
    expect(parseClientLine('ID k3x9q2m7a1b5c')).toEqual({ type: 'ID', gameId: 'k3x9q2m7a1b5c' });
    expect(parseClientLine('ID')).toEqual({ type: 'ID', gameId: '' });
    expect(parseClientLine('PLAYER')).toEqual({ type: 'PLAYER', seat: null, invalid: false });
    expect(parseClientLine('PLAYER ')).toEqual({ type: 'PLAYER', seat: null, invalid: false });
    expect(parseClientLine('PLAYER 1')).toEqual({ type: 'PLAYER', seat: 1, invalid: false });
    expect(parseClientLine('PLAYER 7')).toEqual({ type: 'PLAYER', seat: 7, invalid: false });
    expect(parseClientLine('PLAYER one')).toEqual({ type: 'PLAYER', seat: null, invalid: true });
    expect(parseClientLine('PLAYER 0 1')).toEqual({ type: 'PLAYER', seat: null, invalid: true });
    expect(parseClientLine('OKWAIT')).toEqual({ type: 'OKWAIT' });
    expect(parseClientLine('THINKING')).toEqual({ type: 'THINKING' });
    expect(parseClientLine('okwait')).toEqual({ type: 'other', text: 'okwait' });
    expect(parseClientLine('OKWAIT now')).toEqual({ type: 'other', text: 'OKWAIT now' });
  });

  it('reads PLAY with any whitespace; the command itself is left to interpretPlay', () => {
    expect(parseClientLine('PLAY C3:D4')).toEqual({ type: 'PLAY', command: 'C3:D4' });
    expect(parseClientLine('PLAY\tE3:C5;C5:B6')).toEqual({ type: 'PLAY', command: 'E3:C5;C5:B6' });
    expect(parseClientLine('PLAY')).toEqual({ type: 'PLAY', command: '' });
    expect(parseClientLine('PLAYC3:D4')).toEqual({ type: 'other', text: 'PLAYC3:D4' });
    expect(parseClientLine('play C3:D4')).toEqual({ type: 'other', text: 'play C3:D4' });
  });

  it('strips NULs and trailing spaces, and ignores empty lines', () => {
    expect(parseClientLine('OKWAIT\u0000')).toEqual({ type: 'OKWAIT' });
    expect(parseClientLine('\u0000THINK\u0000ING  ')).toEqual({ type: 'THINKING' });
    expect(parseClientLine('')).toBeNull();
    expect(parseClientLine('   ')).toBeNull();
    expect(parseClientLine('\u0000\u0000')).toBeNull();
  });

  it('never throws, whatever arrives', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), (text, bytes) => {
        const a = parseClientLine(text);
        const b = parseClientLine(Buffer.from(bytes).toString('utf8'));
        return (a === null || typeof a.type === 'string') && (b === null || typeof b.type === 'string');
      }),
    );
  });

  it('reads back every line our client writes', () => {
    const messages: ClientMessage[] = [
      { type: 'VERSION', version: '3.1' },
      { type: 'ID', gameId: 'abcdefghijklm' },
      { type: 'PLAYER', seat: null },
      { type: 'PLAYER', seat: 1 },
      { type: 'OKWAIT' },
      { type: 'THINKING' },
      { type: 'PLAY', command: 'E3:C5' },
    ];
    expect(messages.map((m) => parseClientLine(formatClient(m))?.type)).toEqual(['VERSION', 'ID', 'PLAYER', 'PLAYER', 'OKWAIT', 'THINKING', 'PLAY']);
    expect(formatClient({ type: 'PLAYER', seat: null })).toBe('PLAYER');
    expect(formatClient({ type: 'PLAYER', seat: 0 })).toBe('PLAYER 0');
  });

  it('checks game ids: exactly 13 of [0-9A-Za-z]', () => {
    expect(isGameId('k3x9q2m7a1b5c')).toBe(true);
    expect(isGameId('0SK8WC9EXO1G1')).toBe(true);
    expect(isGameId('k3x9q2m7a1b5')).toBe(false);
    expect(isGameId('k3x9q2m7a1b5cd')).toBe(false);
    expect(isGameId('k3x9q2m7a1b5_')).toBe(false);
    expect(isGameId('k3x9q2m7a1b5ä')).toBe(false);
  });
});

describe("the client's reading of server lines", () => {
  it('reads the greeting version, YOU, player lines with spaces in names, TOTAL, MOVE, BOARD, the winners', () => {
    expect(parseGreeting('+ MNM Gameserver v3.1 accepting connections')).toEqual({ major: 3, minor: 1, version: '3.1' });
    expect(parseGreeting('+ MNM Gameserver v2.3 accepting connections')).toMatchObject({ major: 2 });
    expect(parseGreeting('+ Welcome')).toBeNull();
    expect(parseYou('+ YOU 0 White Player')).toEqual({ seat: 0, name: 'White Player' });
    expect(parsePlayerEntry('+ 1 Black Player 1')).toEqual({ seat: 1, name: 'Black Player', ready: true });
    expect(parsePlayerEntry('+ 0 White Player 0')).toEqual({ seat: 0, name: 'White Player', ready: false });
    expect(parseTotal('+ TOTAL 2')).toBe(2);
    expect(parseMoveRequest('+ MOVE 3000')).toBe(3000);
    expect(parseMoveRequest('+ MOVEOK')).toBeNull();
    expect(parseBoardHeader('+ BOARD 8,8')).toEqual({ columns: 8, rows: 8 });
    expect(parseWon('+ PLAYER1WON Yes')).toEqual({ seat: 1, won: true });
    expect(parseWon('+ PLAYER0WON No')).toEqual({ seat: 0, won: false });
  });
});
