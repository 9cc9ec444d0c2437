import { boardLines, type Board, type InvalidMoveReason } from './notation.js';

/**
 * The MNM Gameserver line protocol for `Checkers` (spec §2): every server line and group is
 * spelled here and nowhere else, and every client line is read here. Parsing never throws.
 * Server lines start with `+ ` (ok) or `- ` (fatal); client lines have no prefix.
 */

export const GAME_KIND = 'Checkers';
export const DEFAULT_PORT = 1357;
/** Longest client line the server reads (spec §2.1, decision): longer lines are a protocol error. */
export const MAX_LINE_BYTES = 1024;
export const DEFAULT_MOTD = 'Welcome to the Dame server';
export const DEFAULT_SEAT_NAMES = ['White Player', 'Black Player'] as const;

export type ProtocolMode = 'auto' | 'v2' | 'v3';

/** The version in the greeting: v2 mode says 2.3, v3 and auto say 3.1 (spec §2.2). */
export const SERVER_VERSION: Record<ProtocolMode, string> = { v2: '2.3', v3: '3.1', auto: '3.1' };
/** Client majors each mode accepts. */
export const ACCEPTED_MAJORS: Record<ProtocolMode, readonly number[]> = { v2: [2], v3: [3], auto: [2, 3] };

const GAME_ID = /^[0-9A-Za-z]{13}$/;
export const isGameId = (text: string): boolean => GAME_ID.test(text);

export type Seat = 0 | 1;

export interface PlayerEntry {
  readonly seat: number;
  readonly name: string;
  /** Connected (or played by the engine). */
  readonly ready: boolean;
}

/** One server group: written with one write() (spec §2.6). */
export type ServerGroup =
  | { type: 'greeting'; version: string }
  | { type: 'motd'; text: string }
  | { type: 'versionAccepted' }
  | { type: 'playing'; gameName: string }
  | { type: 'players'; you: PlayerEntry; others: readonly PlayerEntry[] }
  | { type: 'wait' }
  | { type: 'move'; timeMs: number; board: Board }
  | { type: 'okThink' }
  | { type: 'moveOk' }
  | { type: 'gameOver'; board: Board; winners: readonly [boolean, boolean] };

export type ExpectedCommand = 'VERSION' | 'ID' | 'PLAYER' | 'THINKING' | 'PLAY' | 'OKWAIT';

/** Why the server drops a client: each has exactly one error line (spec §2.5). */
export type ProtocolFault =
  | { code: 'timeout' }
  | { code: 'version-mismatch' }
  | { code: 'expected'; command: ExpectedCommand }
  | { code: 'invalid-game-id' }
  | { code: 'game-not-found' }
  | { code: 'no-free-player' }
  | { code: 'unexpected' }
  | { code: 'invalid-move'; reason: InvalidMoveReason }
  /** A server's own refusal in words (the ladder: a revoked code); one line, no newline. */
  | { code: 'refused'; text: string }
  | { code: 'internal' };

const boardBlock = (board: Board): string[] => ['+ BOARD 8,8', ...boardLines(board).map((row) => `+ ${row}`), '+ ENDBOARD'];

const yesNo = (won: boolean): string => (won ? 'Yes' : 'No');

const playerLine = (p: PlayerEntry): string => `+ ${p.seat} ${p.name} ${p.ready ? 1 : 0}`;

/** The lines of a group, without line ends. */
export function formatGroup(group: ServerGroup): string[] {
  switch (group.type) {
    case 'greeting':
      return [`+ MNM Gameserver v${group.version} accepting connections`];
    case 'motd':
      return [`+ ${group.text}`];
    case 'versionAccepted':
      return ['+ Client version accepted - please send Game-ID to join'];
    case 'playing':
      return [`+ PLAYING ${GAME_KIND}`, `+ ${group.gameName}`];
    case 'players':
      return [
        `+ YOU ${group.you.seat} ${group.you.name}`,
        `+ TOTAL ${group.others.length + 1}`,
        ...group.others.map(playerLine),
        '+ ENDPLAYERS',
      ];
    case 'wait':
      return ['+ WAIT'];
    case 'move':
      return [`+ MOVE ${group.timeMs}`, ...boardBlock(group.board)];
    case 'okThink':
      return ['+ OKTHINK'];
    case 'moveOk':
      return ['+ MOVEOK'];
    case 'gameOver':
      return [
        '+ GAMEOVER',
        ...boardBlock(group.board),
        `+ PLAYER0WON ${yesNo(group.winners[0])}`,
        `+ PLAYER1WON ${yesNo(group.winners[1])}`,
        '+ QUIT',
      ];
  }
}

/** A group as the bytes of its one write. */
export const encodeGroup = (group: ServerGroup): string => formatGroup(group).join('\n') + '\n';

export function formatFault(fault: ProtocolFault): string {
  switch (fault.code) {
    case 'timeout':
      return '- TIMEOUT Be faster next time';
    case 'version-mismatch':
      return '- Client Version does not match server Version';
    case 'expected':
      return `- Did not get the expected ${fault.command} command`;
    case 'invalid-game-id':
      return '- Not a valid game ID';
    case 'game-not-found':
      return '- Game does not exist';
    case 'no-free-player':
      return '- No free player';
    case 'unexpected':
      return '- Did not expect response from client';
    case 'invalid-move':
      return `- Invalid Move: ${fault.reason}`;
    case 'refused':
      return `- ${fault.text}`;
    case 'internal':
      return '- Internal error. Sorry & Bye';
  }
}

// ---- client lines (what the server reads) ----------------------------------------------------

export type ClientLine =
  /** `major` is null when the version does not parse. */
  | { type: 'VERSION'; major: number | null; version: string }
  | { type: 'ID'; gameId: string }
  /** `seat`: null for a bare PLAYER; NaN-free: an argument that is no seat number gives `invalid`. */
  | { type: 'PLAYER'; seat: number | null; invalid: boolean }
  | { type: 'OKWAIT' }
  | { type: 'THINKING' }
  /** The text after `PLAY` and its whitespace (possibly empty). */
  | { type: 'PLAY'; command: string }
  | { type: 'other'; text: string };

/** NULs out, trailing whitespace off (spec §2.1, decision); `\r` is already gone (framer). */
export function normalizeLine(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return raw.replace(/\u0000/g, '').replace(/[ \t\r]+$/, '');
}

const VERSION = /^VERSION\s+(\d{1,6})(?:\.(\d{1,6}))?$/;
const PLAYER = /^PLAYER(?:\s+(.*))?$/;
const ID = /^ID(?:\s+(.*))?$/;
const PLAY = /^PLAY(?:\s+(.*))?$/;

/** One client line; null for an empty line (ignored, spec §2.1). Keywords are case-sensitive. */
export function parseClientLine(raw: string): ClientLine | null {
  const line = normalizeLine(raw);
  if (line === '') return null;
  if (line.startsWith('VERSION')) {
    const m = VERSION.exec(line);
    if (m) return { type: 'VERSION', major: Number(m[1]), version: m[2] === undefined ? m[1]! : `${m[1]!}.${m[2]}` };
    if (/^VERSION(\s|$)/.test(line)) return { type: 'VERSION', major: null, version: line.slice(7).trim() };
  }
  if (line === 'OKWAIT') return { type: 'OKWAIT' };
  if (line === 'THINKING') return { type: 'THINKING' };
  let m = PLAYER.exec(line);
  if (m) {
    const arg = (m[1] ?? '').trim();
    if (arg === '') return { type: 'PLAYER', seat: null, invalid: false };
    return /^\d{1,3}$/.test(arg) ? { type: 'PLAYER', seat: Number(arg), invalid: false } : { type: 'PLAYER', seat: null, invalid: true };
  }
  m = PLAY.exec(line);
  if (m) return { type: 'PLAY', command: (m[1] ?? '').trim() };
  m = ID.exec(line);
  if (m) return { type: 'ID', gameId: (m[1] ?? '').trim() };
  return { type: 'other', text: line };
}

// ---- the client's side: what a client sends and how it reads the server --------------------

export type ClientMessage =
  | { type: 'VERSION'; version: string }
  | { type: 'ID'; gameId: string }
  | { type: 'PLAYER'; seat: number | null }
  | { type: 'OKWAIT' }
  | { type: 'THINKING' }
  | { type: 'PLAY'; command: string };

export function formatClient(message: ClientMessage): string {
  switch (message.type) {
    case 'VERSION':
      return `VERSION ${message.version}`;
    case 'ID':
      return `ID ${message.gameId}`;
    case 'PLAYER':
      return message.seat === null ? 'PLAYER' : `PLAYER ${message.seat}`;
    case 'OKWAIT':
      return 'OKWAIT';
    case 'THINKING':
      return 'THINKING';
    case 'PLAY':
      return `PLAY ${message.command}`;
  }
}

/** The greeting's version, e.g. `{ major: 3, minor: 1 }`, or null when the line is no greeting. */
export function parseGreeting(line: string): { major: number; minor: number | null; version: string } | null {
  const m = /^\+ MNM Gameserver v?(\d+)(?:\.(\d+))?\S*(?:\s|$)/.exec(line);
  if (!m) return null;
  const major = Number(m[1]);
  const minor = m[2] === undefined ? null : Number(m[2]);
  return { major, minor, version: minor === null ? String(major) : `${major}.${minor}` };
}

/** `+ YOU <n> <name>`, `+ <n> <name> <ready>`: seat, name (may hold spaces) and ready flag. */
export function parseYou(line: string): { seat: number; name: string } | null {
  const m = /^\+ YOU (\d+)(?: (.*))?$/.exec(line);
  return m ? { seat: Number(m[1]), name: m[2] ?? '' } : null;
}

export function parsePlayerEntry(line: string): PlayerEntry | null {
  const m = /^\+ (\d+) (?:(.*) )?([01])$/.exec(line);
  return m ? { seat: Number(m[1]), name: m[2] ?? '', ready: m[3] === '1' } : null;
}

export const parseTotal = (line: string): number | null => {
  const m = /^\+ TOTAL (\d+)$/.exec(line);
  return m ? Number(m[1]) : null;
};

export const parseMoveRequest = (line: string): number | null => {
  const m = /^\+ MOVE (\d+)$/.exec(line);
  return m ? Number(m[1]) : null;
};

export const parseBoardHeader = (line: string): { columns: number; rows: number } | null => {
  const m = /^\+ BOARD (\d+),(\d+)$/.exec(line);
  return m ? { columns: Number(m[1]), rows: Number(m[2]) } : null;
};

export const parseWon = (line: string): { seat: number; won: boolean } | null => {
  const m = /^\+ PLAYER(\d)WON (Yes|No)$/.exec(line);
  return m ? { seat: Number(m[1]), won: m[2] === 'Yes' } : null;
};

/** Lines the client compares literally. */
export const SERVER_LINES = {
  versionAccepted: '+ Client version accepted - please send Game-ID to join',
  endPlayers: '+ ENDPLAYERS',
  wait: '+ WAIT',
  endBoard: '+ ENDBOARD',
  okThink: '+ OKTHINK',
  moveOk: '+ MOVEOK',
  gameOver: '+ GAMEOVER',
  quit: '+ QUIT',
} as const;

export const isErrorLine = (line: string): boolean => line.startsWith('-');
