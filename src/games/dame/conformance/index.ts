import { scriptedScenario, type GameConformance, type Judgement } from '../../../core/conformance.js';
import { parsePieces } from '../notation.js';
import { MAX_LINE_BYTES, formatFault, normalizeLine, type ProtocolFault, type Seat } from '../protocol.js';
import { createState, type DameState } from '../rules.js';
import { DAME_JUDGEMENTS as J, GAME_ID, playerOf, runDameSession, type CutPoint, type DameSession } from './session.js';

/**
 * `spielhalle check-client dame`: the scenarios a Dame client must pass, as data. Each names the
 * rule it checks (with the spec section) and a hint; `session` is the script the scripted server
 * plays (session.ts). docs/check-client/dame.md lists them with the reasons.
 */

interface DameScenario extends Judgement {
  id: string;
  title: string;
  session: DameSession;
}

function position(pieces: string, toMove: 'white' | 'black' = 'white'): () => DameState {
  const board = parsePieces(pieces);
  if (!board.ok) throw new Error(board.error);
  return () => createState(board.value, toMove);
}

/** A short game: the client's first moves, then the opponent loses on time. */
const short = (mode: DameSession['mode'], seat: Seat = 0): DameSession => ({ mode, seat, clientMoves: 2 });

/**
 * The prolog of every scenario that is not about the prolog: auto mode with the MOTD after 300 ms
 * of silence (our server waits 2000 ms, its tournaments 100 ms), so that v2 and v3 clients pass
 * it alike and quickly.
 */
const AUTO = { mode: 'auto', motdAfterMs: 300 } as const;

/** `+ <name>` of exactly `bytes` bytes (the longest client line the server reads is 1024 bytes). */
const filler = (prefix: string, suffix: string, bytes: number): string => {
  const n = bytes - prefix.length - suffix.length;
  return 'x'.repeat(Math.max(1, n));
};

const LONG_GAME_NAME = filler('+ ', '', MAX_LINE_BYTES);
const LONG_WHITE = filler('+ YOU 0 ', '', MAX_LINE_BYTES);
const LONG_BLACK = filler('+ 1 ', ' 1', MAX_LINE_BYTES);

const ERROR_POINTS: readonly { slug: string; fault: ProtocolFault; at: CutPoint; seat?: Seat; when: string }[] = [
  { slug: 'version-mismatch', fault: { code: 'version-mismatch' }, at: 'VERSION', when: 'in answer to VERSION' },
  { slug: 'expected-version', fault: { code: 'expected', command: 'VERSION' }, at: 'VERSION', when: 'in answer to VERSION' },
  { slug: 'expected-id', fault: { code: 'expected', command: 'ID' }, at: 'ID', when: 'in answer to ID' },
  { slug: 'invalid-game-id', fault: { code: 'invalid-game-id' }, at: 'ID', when: 'in answer to ID' },
  { slug: 'game-not-found', fault: { code: 'game-not-found' }, at: 'ID', when: 'in answer to ID' },
  { slug: 'expected-player', fault: { code: 'expected', command: 'PLAYER' }, at: 'PLAYER', when: 'in answer to PLAYER' },
  { slug: 'no-free-player', fault: { code: 'no-free-player' }, at: 'PLAYER', when: 'in answer to PLAYER' },
  { slug: 'timeout', fault: { code: 'timeout' }, at: 'THINKING', when: 'in place of + OKTHINK' },
  { slug: 'expected-thinking', fault: { code: 'expected', command: 'THINKING' }, at: 'THINKING', when: 'in place of + OKTHINK' },
  { slug: 'expected-play', fault: { code: 'expected', command: 'PLAY' }, at: 'PLAY', when: 'in place of + MOVEOK' },
  { slug: 'expected-okwait', fault: { code: 'expected', command: 'OKWAIT' }, at: 'OKWAIT', seat: 1, when: 'in answer to OKWAIT' },
  { slug: 'unexpected', fault: { code: 'unexpected' }, at: 'PLAY', when: 'in place of + MOVEOK' },
  ...(['Syntax error', 'Invalid position', 'No own piece', 'Destination is already occupied', 'Move not allowed'] as const).map((reason) => ({
    slug: `invalid-move-${reason.toLowerCase().replace(/\s+/g, '-')}`,
    fault: { code: 'invalid-move', reason } as const,
    at: 'PLAY' as const,
    when: 'in place of + MOVEOK',
  })),
  { slug: 'internal', fault: { code: 'internal' }, at: 'OKWAIT', seat: 1, when: 'in answer to OKWAIT' },
];

export const DAME_SCENARIOS: readonly DameScenario[] = [
  {
    id: 'full-game',
    title: 'a whole game from the start position to its end, as White',
    session: { ...AUTO, seat: 0 },
    ...J.end,
  },
  {
    id: 'full-game-black',
    title: 'a whole game as Black: WAIT loops before the opponent’s moves',
    session: { ...AUTO, seat: 1, waits: (n) => [2, 1, 3][n] ?? 0 },
    ...J.end,
  },
  {
    id: 'prolog-v3',
    title: 'v3 prolog: greeting v3.1, then the MOTD at once',
    session: { ...short('v3') },
    rule: 'A v3 server sends a MOTD line after the greeting: answer VERSION only after it',
    section: 'spec §2.2, §4 decision 7',
    hint: 'After a greeting with major ≥ 3, read one more line (the MOTD) before sending VERSION.',
  },
  {
    id: 'prolog-v2',
    title: 'v2 prolog: greeting v2.3 and no MOTD',
    session: { ...short('v2') },
    rule: 'A v2 server sends no MOTD: answer the greeting with VERSION at once',
    section: 'spec §2.2, §4 decision 7',
    hint: 'Read the MOTD only when the greeting’s major is 3 or more; do not wait for a line that never comes.',
  },
  {
    id: 'prolog-auto',
    title: 'auto-mode prolog: the MOTD comes only after 2000 ms of client silence',
    session: { ...short('auto') },
    ...J.prolog,
    section: 'spec §2.2; docs/dame.md decision 2',
  },
  {
    id: 'split-reads',
    title: 'every group cut into three TCP writes (inside lines, before the last newline)',
    session: { ...short('auto'), ...AUTO, writes: 'split' },
    rule: 'TCP is a byte stream: a line may arrive in pieces',
    section: 'spec §2.1, §2.6',
    hint: 'Keep the bytes after the last newline of a read and complete the line with the next read.',
  },
  {
    id: 'coalesced-reads',
    title: 'groups that follow each other sent in one write (MOVE with ENDPLAYERS and with MOVEOK, GAMEOVER with MOVEOK)',
    session: { ...AUTO, seat: 0, clientMoves: 3, writes: 'coalesced' },
    rule: 'TCP is a byte stream: one read may hold several lines and several groups',
    section: 'spec §2.1, §2.6',
    hint: 'Split every read into lines and handle each; keep the lines after the one you waited for.',
  },
  {
    id: 'long-lines',
    title: 'a game name and player names that make 1024-byte lines',
    session: { ...short('auto'), ...AUTO, gameName: LONG_GAME_NAME, names: [LONG_WHITE, LONG_BLACK] },
    rule: 'A server line can be as long as the 1024 bytes a line may have',
    section: 'spec §2.1, §2.2 (names may contain spaces)',
    hint: 'Do not read lines into a fixed 1024-byte buffer: a 1024-byte line needs 1025 bytes with its newline.',
  },
  {
    id: 'slow-server',
    title: 'a slow server: each line written alone, 50 ms after the one before',
    session: { ...short('auto'), ...AUTO, writes: 'slow', slowLineMs: 50 },
    rule: 'Wait for the whole group: a line may come long after the one before',
    section: 'spec §2.1, §2.3',
    hint: 'Do not give up on a group after a short read timeout, and answer + MOVE only after + ENDBOARD.',
  },
  {
    id: 'move-time',
    title: 'a short MOVE time (+ MOVE 200): THINKING and PLAY within 400 ms',
    session: { ...AUTO, seat: 0, clientMoves: 3, moveTimeMs: 200 },
    rule: 'THINKING and the complete PLAY must arrive within the MOVE time plus 200 ms, or the server sends "- TIMEOUT Be faster next time" and the client loses',
    section: 'spec §2.3, §2.5; docs/dame.md decision 6',
    hint: 'Read the time from + MOVE <ms> and stop thinking well before it runs out.',
  },
  {
    id: 'wait-loops',
    title: 'WAIT loops of 0 to 8 rounds before the opponent’s moves, also right after the client’s move',
    session: { ...AUTO, seat: 1, clientMoves: 5, waits: (n) => [1, 0, 3, 8, 2, 5][n] ?? 1, waitIdleMs: 60 },
    ...J.okwait,
  },
  {
    id: 'backward-capture',
    title: 'a backward capture by a man as the only legal move (w D4; b C3 C5 B6 E5 F6 H8)',
    session: { ...AUTO, seat: 0, clientMoves: 3, start: position('w D4; b C3 C5 B6 E5 F6 H8') },
    rule: 'Men capture in all four diagonal directions; here D4:B2 (backward) is the only legal move',
    section: 'spec §3 (single move 2), §4 decision 3',
    hint: 'Generate captures backward too; a client that finds no move here has no legal answer.',
  },
  {
    id: 'chain-capture',
    title: 'a capture chain as the only legal move (w C1; b B2 A3 D2 F4 D4 C5 B8): C1:E3, then E3:G5',
    session: { ...AUTO, seat: 0, clientMoves: 4, start: position('w C1; b B2 A3 D2 F4 D4 C5 B8') },
    rule: 'After a capture the same side moves again: in one PLAY (C1:E3:G5) or answering the next + MOVE',
    section: 'spec §2.3 (after MOVEOK), §2.4, §3 (turn)',
    hint: 'After + MOVEOK a new + MOVE may follow at once: rebuild the position from its board and move again.',
  },
  {
    id: 'king-diagonal',
    title: 'a flying king: its only moves capture B2 from A1 and land anywhere up to H8 (W A1; b B2 F8)',
    session: { ...AUTO, seat: 0, clientMoves: 3, start: position('W A1; b B2 F8') },
    rule: 'Kings move and capture over any distance along a diagonal and land on any free square beyond',
    section: 'spec §3 (single moves 3 and 4), §4 decision 2',
    hint: 'Walk each king ray to the board’s edge; a capture may cross empty squares before and after the victim.',
  },
  {
    id: 'gameover-in-prolog',
    title: 'joining a game that has ended: the player list, then GAMEOVER',
    session: { ...AUTO, seat: 0, cut: { at: 'ENDPLAYERS', then: 'gameover' } },
    ...J.end,
    section: 'spec §2.2; docs/dame.md decision 9',
  },
  {
    id: 'gameover-instead-of-okthink',
    title: 'GAMEOVER in place of + OKTHINK (the opponent lost while the client owed its move)',
    session: { ...AUTO, seat: 0, cut: { at: 'THINKING', nth: 1, then: 'gameover' } },
    ...J.end,
  },
  {
    id: 'gameover-while-thinking',
    title: 'GAMEOVER 50 ms after + OKTHINK, while the client thinks',
    session: { ...AUTO, seat: 0, cut: { at: 'OKTHINK', nth: 1, then: 'gameover' } },
    ...J.end,
    hint: 'Keep reading while you think: a PLAY after GAMEOVER goes to a closed connection.',
  },
  {
    id: 'gameover-instead-of-moveok',
    title: 'GAMEOVER in place of + MOVEOK (the client’s PLAY crossed the end of the game)',
    session: { ...AUTO, seat: 0, cut: { at: 'PLAY', nth: 1, then: 'gameover' } },
    ...J.end,
  },
  {
    id: 'gameover-after-moveok',
    title: 'GAMEOVER right after the client’s own move (+ MOVEOK, 50 ms, GAMEOVER)',
    session: { ...AUTO, seat: 0, cut: { at: 'MOVEOK', nth: 1, then: 'gameover' } },
    ...J.end,
  },
  {
    id: 'gameover-after-okwait',
    title: 'GAMEOVER right after an OKWAIT (the client waits as Black)',
    session: { ...AUTO, seat: 1, waits: () => 2, cut: { at: 'OKWAIT', nth: 1, then: 'gameover' } },
    ...J.end,
  },
  {
    id: 'server-closes',
    title: 'the server closes the connection without a line, right after + MOVEOK',
    session: { ...AUTO, seat: 0, cut: { at: 'MOVEOK', nth: 1, then: 'close' } },
    ...J.closed,
  },
  ...ERROR_POINTS.map((e): DameScenario => {
    const line = formatFault(e.fault);
    const seat = e.seat ?? 0;
    return {
      id: `error-${e.slug}`,
      title: `"${line}" ${e.when}`,
      session: { ...AUTO, seat, ...(seat === 1 ? { waits: () => 1 } : {}), cut: { at: e.at, nth: e.at === 'VERSION' || e.at === 'ID' || e.at === 'PLAYER' ? 0 : 1, then: { error: line } } },
      ...J.error,
    };
  }),
];

export const dameConformance: GameConformance = {
  placeholders: ['host', 'port', 'gameId', 'player'],
  example: 'spielhalle bot dame --host {host} --port {port} -g {gameId} -p {player} --bot random',
  maxLineBytes: MAX_LINE_BYTES,
  normalize: (line) => {
    const n = normalizeLine(line);
    return n === '' ? null : n;
  },
  scenarios: DAME_SCENARIOS.map((s) => scriptedScenario(s, { gameId: GAME_ID, player: playerOf(s.session.seat) }, 'a Dame game', () => runDameSession(s.session))),
};
