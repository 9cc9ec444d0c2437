import { scriptedScenario, type GameConformance, type Judgement } from '../../../core/conformance.js';
import type { Team } from '../board.js';
import { GAME_TYPE } from '../messages.js';
import { formatClient } from '../protocol.js';
import { xmlFramer } from './framer.js';
import { OSTSEESCHACH_JUDGEMENTS as J } from './judgements.js';
import {
  MAX_PACKET_CHARS,
  RESERVATIONS,
  ROOM_ID,
  runOstseeschachSession,
  type Ending,
  type OstseeschachSession,
} from './session.js';

/**
 * `spielhalle check-client ostseeschach`: the scenarios an Ostseeschach (Software-Challenge 2022)
 * client must pass, as data. Each names the rule it checks (with the spec section) and a hint;
 * `session` is what the scripted server plays (session.ts). docs/check-client/ostseeschach.md
 * lists them with the reasons.
 */

interface OstseeschachScenario extends Judgement {
  id: string;
  title: string;
  session: OstseeschachSession;
}

/** A short game: the client's moves, then `then` right after its last one. */
type Cut = NonNullable<OstseeschachSession['cut']>;
const after = (moves: number, then: Ending): Cut => ({ afterClientMoves: moves, at: 'ownMove', then });
const whileThinking = (moves: number, then: Ending): Cut => ({ afterClientMoves: moves, at: 'thinking', then });
const OPPONENT_LEAVES: Ending = { kind: 'left', cause: 'LOST_CONNECTION' };
/** The ambers scenario: client moves until the opponent leaves (the course fixture client scores with its 6th and takes the bait with its 7th). */
const AMBER_CLIENT_MOVES = 10;
const short = (team: Team = 'ONE', moves = 2): OstseeschachSession => ({ team, join: 'any', cut: after(moves, OPPONENT_LEAVES) });

/**
 * Display names as long as an administrator's prepare may carry them (our server reads at most
 * 64 Ki characters per packet): the result that names both is the largest packet a player gets.
 */
function longNames(): readonly [string, string] {
  const overhead = formatClient({
    type: 'prepare',
    gameType: GAME_TYPE,
    pause: false,
    slots: [0, 1].map(() => ({ displayName: '', canTimeout: true, reserved: true })),
  }).length;
  const each = Math.floor((MAX_PACKET_CHARS - overhead) / 2);
  const name = (who: string): string => (who + ' Ärger-Möwe ').repeat(Math.ceil(each / 20)).slice(0, each);
  return [name('check-client'), name('Gegner')];
}

export const OSTSEESCHACH_SCENARIOS: readonly OstseeschachScenario[] = [
  {
    id: 'full-game-one',
    title: 'a whole game as ONE against the depth-2 bot, to its regular end (after the opponent’s move)',
    session: { team: 'ONE', join: 'any' },
    ...J.end,
    rule: 'Play a whole game: a legal move for every moveRequest, then after the result and <left> end the connection and exit 0',
    section: 'spec §2, §3.3–§3.5',
  },
  {
    id: 'full-game-two',
    title: 'a whole game as TWO: two mementos before the first request, the end right after the client’s own move',
    session: { team: 'TWO', join: 'any', layout: 'HMSRHMSR' },
    ...J.end,
    rule: 'As TWO, wait for the first moveRequest (turn 0 and turn 1 mementos come first); the game ends after TWO’s move',
    section: 'spec §2 (End), §3.3',
  },
  {
    id: 'join-prepared',
    title: 'a reserved seat (as in every tournament): only <joinPrepared reservationCode="{reservation}"/> opens it',
    session: { team: 'ONE', join: 'prepared', cut: after(1, OPPONENT_LEAVES) },
    ...J.join,
  },
  {
    id: 'join-plain-room',
    title: 'a room <join/> created: the opponent came first (the client is TWO), players without names',
    session: { team: 'TWO', join: 'any', unnamed: true, layout: 'SRHMMHRS', cut: after(2, OPPONENT_LEAVES) },
    ...J.end,
    rule: 'Take the team from the welcome; a <player> without a name is normal (rooms created by <join/>)',
    section: 'spec §3.2, §3.3, §3.5 (name omitted when blank)',
    hint: 'Do not assume you are ONE, and do not require the name attribute of <player>.',
  },
  {
    id: 'join-refused',
    title: 'the join request refused with its errorpacket (unknown reservation, no such room, unknown game type)',
    session: { team: 'ONE', join: 'refused', cut: after(1, OPPONENT_LEAVES) },
    ...J.refused,
  },
  {
    id: 'ambers',
    title: 'ambers from turn 0: the opponent offers captures, towers and stacks of 3, then baits the square of a piece that scored',
    session: { team: 'ONE', join: 'any', layout: 'MRHSSHRM', opponent: 'amberGifts', cut: after(AMBER_CLIENT_MOVES, OPPONENT_LEAVES) },
    ...J.legal,
    rule: 'Read the board from every memento: a light piece on the opponent’s start line and a stack of 3 leave the board as ambers',
    section: 'spec §2 (Captures and towers, Ambers), §3.3',
  },
  {
    id: 'result-before-start',
    title: 'the room is cancelled before the game starts: only <joined>, then the result (opponent LEFT, NOT_CONNECTED)',
    session: { team: 'ONE', join: 'any', cut: { afterClientMoves: 0, at: 'prolog', then: { kind: 'cancel' } } },
    ...J.end,
    section: 'spec §3.10 (cancel), §3.5, §3.6',
    hint: 'A result may come before any welcome or memento: do not rely on knowing your team or the board then.',
  },
  {
    id: 'result-cancelled-paused',
    title: 'a paused room cancelled after the welcome: REGULAR with 0 points each, no <winner>',
    session: { team: 'TWO', join: 'any', stepMs: 300, cut: { afterClientMoves: 0, at: 'welcome', then: { kind: 'cancel' } } },
    ...J.end,
    section: 'spec §3.10 (pause, cancel), §3.5',
    hint: 'A result may come without a memento and without <winner>.',
  },
  {
    id: 'result-left-after-own-move',
    title: 'right after the client’s own move the opponent’s connection is lost (LEFT, LOST_CONNECTION)',
    session: short('ONE', 2),
    ...J.end,
    section: 'spec §3.5, §3.6 (recorded: prepared-leave)',
  },
  {
    id: 'result-left-while-thinking',
    title: 'the opponent leaves while the client owes a move: the result 50 ms after the moveRequest',
    session: { team: 'ONE', join: 'any', cut: whileThinking(2, OPPONENT_LEAVES) },
    ...J.end,
    hint: 'Keep reading while you think: after the result there is no room to move in; end the connection instead of waiting for the next moveRequest.',
  },
  {
    id: 'result-protocol-error',
    title: 'the opponent is dropped for unreadable XML (LEFT, PROTOCOL_ERROR) after the client’s move, the client TWO',
    session: { team: 'TWO', join: 'any', cut: after(2, { kind: 'left', cause: 'PROTOCOL_ERROR' }) },
    ...J.end,
    section: 'spec §3.5, §3.6 (recorded: prepared-badxml)',
  },
  {
    id: 'result-disconnect-while-thinking',
    title: 'the opponent says goodbye mid-game while the client thinks (LEFT, RECEIVED_DISCONNECT)',
    session: { team: 'TWO', join: 'any', cut: whileThinking(1, { kind: 'left', cause: 'RECEIVED_DISCONNECT' }) },
    ...J.end,
    section: 'spec §3.5, §3.6',
  },
  {
    id: 'result-rule-violation',
    title: 'the opponent sends an invalid move: the client gets only the result (RULE_VIOLATION, `%s` and &apos; as sent)',
    session: { team: 'ONE', join: 'any', cut: after(2, { kind: 'violation' }) },
    ...J.end,
    section: 'spec §3.6, §3.8 (recorded: prepared-bad)',
  },
  {
    id: 'result-soft-timeout',
    title: 'the opponent’s move comes after 2000 ms: SOFT_TIMEOUT, 2 points for the client, no <winner>',
    session: { team: 'ONE', join: 'any', cut: after(1, { kind: 'softTimeout' }) },
    ...J.end,
    section: 'spec §3.6, §3.7, §4 #2',
    hint: 'A timeout result has no <winner>: read the outcome from the Siegpunkte.',
  },
  {
    id: 'result-hard-timeout',
    title: 'the opponent sends nothing for 10 s: SOFT_TIMEOUT with the 10-second reason (never HARD_TIMEOUT), no <winner>',
    session: { team: 'TWO', join: 'any', cut: after(1, { kind: 'hardTimeout' }) },
    ...J.end,
    section: 'spec §3.6, §3.7, §4 #2 (recorded: prepared-hard)',
    hint: 'Wait as long as it takes: no read timeout while the opponent thinks, and no <winner> after a timeout.',
  },
  {
    id: 'result-cancelled',
    title: 'an administrator cancels the running game while the client thinks: REGULAR, 0 points each, no <winner>',
    session: { team: 'ONE', join: 'any', cut: whileThinking(1, { kind: 'cancel' }) },
    ...J.end,
    section: 'spec §3.10 (cancel), §3.5',
  },
  {
    id: 'paused-game',
    title: 'a paused room played by steps (300 ms apart): the welcome alone, then each memento and request on a step',
    session: { team: 'ONE', join: 'any', stepMs: 300, cut: after(2, OPPONENT_LEAVES) },
    ...J.move,
    rule: 'In a paused room the first memento comes only with the first step, and no memento follows the client’s own move until the next step',
    section: 'spec §3.3, §3.10 (pause, step)',
    hint: 'Do not expect a memento right after the welcome or after your move; answer whenever a moveRequest comes.',
  },
  {
    id: 'split-reads',
    title: 'every packet cut into four writes (after its first character, in the middle, before its last)',
    session: { ...short('ONE', 3), writes: 'split' },
    rule: 'TCP is a byte stream: a packet may arrive in pieces',
    section: 'spec §3.1 (fragmented input), §6 (parse a stream, not lines)',
    hint: 'Feed every read into one stream parser and act only on complete elements.',
  },
  {
    id: 'coalesced-reads',
    title: 'every packet up to the next moveRequest in one write (joined, welcome, memento and request together)',
    session: { ...short('TWO', 3), writes: 'coalesced' },
    rule: 'TCP is a byte stream: one read may hold several packets',
    section: 'spec §3.1, §6 (parse a stream, not lines)',
    hint: 'Handle every complete element in a read, and keep the rest for the next one.',
  },
  {
    id: 'slow-server',
    title: 'a slow server: each packet in 256-character pieces 20 ms apart, 100 ms before each packet',
    session: { ...short('ONE', 2), writes: 'slow' },
    rule: 'Wait for the whole packet: its parts may come long after each other',
    section: 'spec §3.1',
    hint: 'Do not give up on a packet after a short read timeout.',
  },
  {
    id: 'large-messages',
    title: 'display names as long as a prepare may carry: a result of more than 64 Ki characters, and the 16-piece memento',
    session: { team: 'ONE', join: 'any', names: longNames(), cut: after(1, OPPONENT_LEAVES) },
    ...J.end,
    rule: 'A packet can be as large as the names the administrator chose make it: read it whole',
    section: 'spec §3.1, §3.5 (names in <player>), §3.10 (prepare)',
    hint: 'Do not read packets into a fixed buffer: grow it, or parse the stream as it comes.',
  },
  {
    id: 'large-messages-utf8',
    title: 'a display name whose ä, € and 🂡 lie across bytes 1000, 1024 and 4096 of the result, written cut there into four writes',
    session: { team: 'ONE', join: 'any', utf8Name: true, cut: after(1, OPPONENT_LEAVES) },
    ...J.end,
    rule: 'The stream is UTF-8 bytes: a multi-byte character may come in two reads, so decode the stream, not single reads',
    section: 'spec §3.1 (UTF-8 XML stream), §3.5 (names in <player>)',
    hint: 'Feed the bytes to the XML parser (or a streaming decoder: InputStreamReader, setEncoding("utf8")); never decode each read on its own.',
  },
  {
    id: 'late-move-request',
    title: 'the opponent thinks 6 s (a seat without time limit): the next moveRequest comes long after the last packet',
    session: { team: 'ONE', join: 'any', thinkMs: (n) => (n === 1 ? 6000 : 0), cut: after(3, OPPONENT_LEAVES) },
    ...J.move,
    rule: 'Wait for the next packet as long as it takes: opponents in rooms without timeouts may think for any time',
    section: 'spec §3.7 (only canTimeout seats time out)',
    hint: 'Do not use a read timeout on the connection.',
  },
  {
    id: 'move-time',
    title: 'a seat prepared with canTimeout="true": every move within 2000 ms of its moveRequest',
    session: { team: 'ONE', join: 'any', canTimeout: true, cut: after(4, OPPONENT_LEAVES) },
    ...J.time,
  },
  {
    id: 'server-stops',
    title: 'the server stops after the client’s move: <sc.protocol.CloseConnection/>, </protocol>, FIN',
    session: { team: 'ONE', join: 'any', cut: after(2, { kind: 'serverStops' }) },
    ...J.closed,
    section: 'spec §3.1, §3.5; connection.ts shutdown',
  },
  {
    id: 'server-closes',
    title: 'the connection closes without another byte while the client owes a move',
    session: { team: 'ONE', join: 'any', cut: whileThinking(2, { kind: 'serverCloses' }) },
    ...J.closed,
  },
];

export const ostseeschachConformance: GameConformance = {
  placeholders: ['host', 'port', 'reservation', 'room'],
  example: 'spielhalle bot ostseeschach -h {host} -p {port} -r {reservation} --bot random',
  maxLineBytes: MAX_PACKET_CHARS,
  framer: () => xmlFramer(MAX_PACKET_CHARS),
  scenarios: OSTSEESCHACH_SCENARIOS.map((s) => scriptedScenario(s, { reservation: RESERVATIONS[s.session.team], room: ROOM_ID }, 'an Ostseeschach game', () => runOstseeschachSession(s.session))),
};
