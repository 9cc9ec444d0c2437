import { scriptedScenario, type GameConformance, type Judgement } from '../../../core/conformance.js';
import { makeDice } from '../dice.js';
import { MAX_DATAGRAM_BYTES, MAX_NAME_LENGTH, MAX_UDP_PAYLOAD, stripLineEnd } from '../protocol.js';
import { CUT_CHARACTERS, USUAL_READ_SIZES } from '../../../core/utf8-cuts.js';
import { MIA_JUDGEMENTS as J } from './judgements.js';
import { runMiaSession, type MiaSession, type OpponentAction } from './session.js';

/**
 * `spielhalle check-client mia`: the scenarios a Mia player client must pass, as data. Each names
 * the rule it checks (with the spec section) and a hint; `session` is what the scripted server
 * plays (session.ts). docs/check-client/mia.md lists them with the reasons.
 */

interface MiaScenario extends Judgement {
  id: string;
  title: string;
  session: MiaSession;
}

/** The client's name unless a scenario is about names ({name} on its command line). */
export const CLIENT_NAME = 'check-client';
const OPPONENTS = ['alice', 'bob'] as const;

const session = (over: Partial<MiaSession>): MiaSession => ({ name: CLIENT_NAME, opponents: OPPONENTS, rounds: [], ...over });
const roll = (high: number, low: number, claim: [number, number] = [high, low]): OpponentAction => ({ roll: makeDice(high, low), announce: makeDice(claim[0], claim[1]) });
const SEE: OpponentAction = { see: true };

/** Fifty players with 20-character names: ROUND STARTED, PLAYER LOST;…;MIA and SCORE over 1024 bytes. */
const CROWD = Array.from({ length: 50 }, (_, i) => `long-named-player-${String(i + 1).padStart(2, '0')}`);
const LONG_NAME = 'check-client-20-char';

/**
 * Players gone long ago (decision 10: SCORE lists every player ever registered) that make the
 * SCORE after a round exactly `bytes` long, points below 10 so that it keeps its length.
 */
export function absentFor(bytes: number, present: readonly string[]): [string, number][] {
  const entry = (name: string, points: number): number => Buffer.byteLength(name) + 2 + String(points).length;
  let total = 'SCORE;'.length - 1 + present.reduce((n, name) => n + entry(name, 0), 0);
  const full = entry('gone-player-00000000', 0);
  const absent: [string, number][] = [];
  while (bytes - total >= 2 * full) {
    const item: [string, number] = [`gone-player-${String(absent.length).padStart(8, '0')}`, absent.length % 10];
    absent.push(item);
    total += entry(item[0], item[1]);
  }
  // The rest (23 to 45 bytes) in one or two entries with 0 points and names of the right length.
  const rest = bytes - total;
  const lengths = rest - 3 <= 20 ? [rest - 3] : [Math.ceil((rest - 6) / 2), Math.floor((rest - 6) / 2)];
  lengths.forEach((n, i) => absent.push([(i === 0 ? 'y' : 'z').repeat(n), 0]));
  return absent;
}

/**
 * Players gone long ago whose names (`000x…ä`, at most 20 characters, sorted before every present
 * player) put ä, € and 🂡 across bytes 1000, 1024 and 4096 of the SCORE after a round: a client
 * that receives into a buffer of one of these sizes cuts a character in two (issue 32).
 */
export function absentAcross(): [string, number][] {
  const absent: [string, number][] = [];
  let pos = 'SCORE;'.length;
  const add = (name: string): void => {
    absent.push([name, 0]);
    pos += Buffer.byteLength(name) + ':0,'.length;
  };
  const prefix = (): string => String(absent.length).padStart(3, '0');
  USUAL_READ_SIZES.forEach((offset, i) => {
    const char = CUT_CHARACTERS[i]!;
    for (;;) {
      // ASCII before the character, so that it starts one byte before the offset.
      const before = offset - 1 - pos - 3;
      if (before >= 0 && before <= MAX_NAME_LENGTH - 3 - char.length) {
        add(`${prefix()}${'x'.repeat(before)}${char}`);
        return;
      }
      add(`${prefix()}${'x'.repeat(Math.min(MAX_NAME_LENGTH, before - 3) - 3)}`);
    }
  });
  return absent;
}

const REASON_ROUNDS: readonly { reason: string; script: readonly OpponentAction[]; title: string }[] = [
  { reason: 'SEE_BEFORE_FIRST_ROLL', script: [SEE], title: 'the first player SEEs before anyone rolled' },
  { reason: 'SEE_FAILED', script: [roll(5, 4), SEE], title: 'alice announces her true 5,4, bob SEEs' },
  { reason: 'CAUGHT_BLUFFING', script: [roll(3, 2, [6, 6]), SEE], title: 'alice rolls 3,2 and announces 6,6, bob SEEs' },
  { reason: 'ANNOUNCED_LOSING_DICE', script: [roll(5, 4), roll(6, 1, [5, 3])], title: 'alice announces 5,4, bob 5,3' },
  { reason: 'MIA', script: [roll(2, 1)], title: 'alice rolls and announces Mia: everyone else loses, the client too' },
  { reason: 'LIED_ABOUT_MIA', script: [roll(4, 3, [2, 1])], title: 'alice rolls 4,3 and announces Mia' },
];

export const MIA_SCENARIOS: readonly MiaScenario[] = [
  {
    id: 'register',
    title: 'REGISTER;{name}, REGISTERED, the first invitation',
    session: session({}),
    ...J.register,
  },
  {
    id: 'register-mid-round',
    title: 'registering while a round among the others is under way: its end without its start, then the first invitation',
    session: session({ rounds: [{ inProgress: true, script: [roll(5, 4), SEE] }, {}] }),
    ...J.alive,
    hint: 'A client sees the messages of a round it is not in (no ROUND STARTED before them): handle them in any state.',
  },
  {
    id: 'rejected-name-taken',
    title: 'REJECTED;NAME_ALREADY_TAKEN in answer to REGISTER',
    session: session({ registration: 'NAME_ALREADY_TAKEN' }),
    ...J.rejected,
  },
  {
    id: 'rejected-invalid-name',
    title: 'a 21-character name on the command line: refused by the client, or REJECTED;INVALID_NAME',
    session: session({ name: 'check-client-too-long' }),
    ...J.rejected,
    section: 'spec §Names (at most 20 characters), §Messages (REJECTED;INVALID_NAME)',
  },
  {
    id: 'full-game',
    title: 'eight rounds with alice and bob under the real rules, turn orders shuffled',
    session: session({ rounds: Array.from({ length: 8 }, () => ({})) }),
    ...J.turn,
  },
  {
    id: 'heads-up',
    title: 'eight rounds against alice alone: the turn goes back and forth',
    session: session({ opponents: ['alice'], rounds: Array.from({ length: 8 }, (_, i) => ({ order: i % 2 === 0 ? 'client-first' : 'client-last' })) }),
    ...J.turn,
    hint: 'The turn order wraps around: YOUR TURN can come again in the same round, each time with a new token.',
  },
  {
    id: 'answer-time',
    title: 'our server’s default timing: 250 ms for every answer, a join window of 250 ms, five rounds',
    session: session({ opponents: ['alice'], answerMs: 250, rounds: Array.from({ length: 5 }, (_, i) => ({ order: i % 2 === 0 ? 'client-first' : 'client-last' })) }),
    ...J.answerTime,
  },
  {
    id: 'duplicates',
    title: 'every datagram arrives twice in a row',
    session: session({ delivery: { kind: 'twice' }, rounds: [{ order: 'client-first' }, {}, { order: 'client-last' }] }),
    rule: 'A datagram may arrive twice: the same message again is no new question (answer it once; a second answer with the same token is ignored by our server)',
    section: 'spec §Transport (UDP), Tokens',
    hint: 'Remember the tokens you answered; a repeated message must not upset the client’s state.',
  },
  {
    id: 'late-duplicates',
    title: 'a copy of each invitation, YOUR TURN and ROLLED comes again after the server has moved on',
    session: session({ delivery: { kind: 'late' }, rounds: [{ order: 'client-first' }, {}, { order: 'client-last' }] }),
    rule: 'A datagram may come late and twice: a message whose token was answered already is stale, not a new question',
    section: 'spec §Transport (UDP), Tokens (a token is valid only in its waiting state)',
    hint: 'Check a message’s token against those you answered before acting on it; never give up the round for it.',
  },
  {
    id: 'heartbeat-anywhere',
    title: 'a HEARTBEAT after every datagram: mid-round, between YOUR TURN and the answer, in the join window',
    session: session({ delivery: { kind: 'heartbeats' }, rounds: [{ order: 'client-first' }, { order: 'client-last' }] }),
    rule: 'HEARTBEAT may come at any time (it is a timer of the server, not a step of the round): it needs no answer and changes nothing',
    section: 'spec §Messages (HEARTBEAT every 2000 ms to every registered address); decision 5',
    hint: 'Handle HEARTBEAT before looking at the round state, in every state.',
  },
  {
    id: 'round-canceled-no-players',
    title: 'ROUND CANCELED;NO_PLAYERS twice (the client’s JOINs were lost), then a round',
    session: session({ rounds: [{ joins: 'none' }, { joins: 'none' }, { order: 'client-first' }] }),
    ...J.join,
    rule: 'After ROUND CANCELED the round is gone: the next ROUND STARTING is a new round with a new token',
    section: 'spec §Rounds, §Messages (ROUND CANCELED;NO_PLAYERS)',
  },
  {
    id: 'round-canceled-only-one-player',
    title: 'ROUND STARTED with the client alone, ROUND CANCELED;ONLY_ONE_PLAYER, then a round',
    session: session({ rounds: [{ joins: 'client-only' }, { order: 'client-first' }] }),
    ...J.join,
    rule: 'After ROUND CANCELED the round is gone: the next ROUND STARTING is a new round with a new token',
    section: 'spec §Rounds, §Messages (ROUND CANCELED;ONLY_ONE_PLAYER after ROUND STARTED)',
  },
  {
    id: 'round-without-client',
    title: 'the client’s JOIN is lost: a whole round of alice and bob, then a round with the client',
    session: session({ rounds: [{ joins: 'others' }, {}] }),
    ...J.alive,
    hint: 'A ROUND STARTED that does not list you is a round to watch: answer nothing, and join the next one.',
  },
  ...REASON_ROUNDS.map(
    (r): MiaScenario => ({
      id: `lost-${r.reason.toLowerCase().replace(/_/g, '-')}`,
      title: `PLAYER LOST;…;${r.reason}: ${r.title}; then a round`,
      session: session({ rounds: [{ order: 'client-last', script: r.script }, { order: 'client-first' }] }),
      ...J.alive,
      rule: `A round may end with any loss reason (here ${r.reason}): read PLAYER LOST whatever its reason and join the next round`,
      section: 'spec §Turn (loss reasons), seed (reason list)',
      hint: 'Treat the reason as text you may log; do not stop on a reason you have not met before.',
    }),
  ),
  {
    id: 'lost-did-not-take-turn',
    title: 'the client’s answer to YOUR TURN is lost on the way: PLAYER LOST;{name};DID_NOT_TAKE_TURN, then a round',
    session: session({ rounds: [{ order: 'client-first', lose: 'turn' }, { order: 'client-first' }] }),
    ...J.alive,
    rule: 'A client that the server timed out is told so (PLAYER LOST;<name>;DID_NOT_TAKE_TURN): it has lost the round and joins the next',
    section: 'spec §Turn (no answer in 250 ms → DID_NOT_TAKE_TURN), §Transport (UDP)',
    hint: 'Do not wait for ROLLED forever after your ROLL: PLAYER LOST ends the round whatever you sent.',
  },
  {
    id: 'lost-did-not-announce',
    title: 'the client’s ANNOUNCE is lost on the way: PLAYER LOST;{name};DID_NOT_ANNOUNCE, then a round',
    session: session({ rounds: [{ order: 'client-first', lose: 'announce' }, { order: 'client-first' }] }),
    ...J.alive,
    rule: 'A client that the server timed out is told so (PLAYER LOST;<name>;DID_NOT_ANNOUNCE): it has lost the round and joins the next',
    section: 'spec §Turn (no ANNOUNCE in 250 ms → DID_NOT_ANNOUNCE), §Transport (UDP)',
    hint: 'PLAYER LOST ends the round whatever you sent; a reason about your own timeout is no reason to stop.',
  },
  {
    id: 'long-score',
    title: 'fifty other players with 20-character names: ROUND STARTED, PLAYER LOST;…;MIA and SCORE over 1024 bytes',
    session: {
      name: LONG_NAME,
      opponents: CROWD,
      rounds: [{ order: 'client-first' }, { order: 'client-last', script: [roll(2, 1)] }],
    },
    rule: 'A datagram can be longer than 1024 bytes (SCORE lists every player ever registered; names have up to 20 characters): read it whole',
    section: 'spec §Names, §Scoring, §Transport; docs/mia.md decisions 10 and 12',
    hint: 'Receive into a buffer of 65,507 bytes (the largest UDP payload), not 1024: a shorter buffer cuts the datagram.',
  },
  {
    id: 'long-score-utf8',
    title: 'a SCORE of 4 KB with names whose ä, € and 🂡 lie across bytes 1000, 1024 and 4096 (players registered once)',
    session: session({ absent: absentAcross(), rounds: [{ order: 'client-first' }, { order: 'client-last' }] }),
    rule: 'Names are UTF-8 and a datagram can be longer than 1024 bytes: receive it whole, then decode it',
    section: 'spec §Names (any characters but , ; : and whitespace), §Scoring, §Transport; docs/mia.md decisions 10 and 12',
    hint: 'Receive into 65,507 bytes and decode the whole datagram: a 1000-, 1024- or 4096-byte buffer cuts a character here (Python: UnicodeDecodeError).',
  },
  {
    id: 'largest-score',
    title: `a SCORE of ${MAX_UDP_PAYLOAD.toLocaleString('en')} bytes, the largest UDP datagram (about 2,850 players ever registered)`,
    session: session({ absent: absentFor(MAX_UDP_PAYLOAD, [...OPPONENTS, CLIENT_NAME]), rounds: [{ order: 'client-first' }] }),
    rule: `SCORE is as long as the largest UDP datagram, ${MAX_UDP_PAYLOAD} bytes, when that many players have registered: read it whole`,
    section: 'spec §Scoring (every player ever registered); docs/mia.md decision 12',
    hint: 'Receive into a buffer of 65,507 bytes (or 64 KiB), and parse SCORE without a fixed limit on its entries.',
  },
  {
    id: 'slow-server',
    title: 'a slow server: every datagram 100 ms after the one before, each reply to the client 500 ms after its datagram',
    session: session({ delivery: { kind: 'slow', gapMs: 100, replyMs: 500 }, rounds: [{ order: 'client-first' }, { order: 'client-last' }] }),
    rule: 'The server’s next message may take a while: keep waiting (the server times out the client, never the other way round)',
    section: 'spec §Rounds, §Turn (only the client’s answers have a time limit)',
    hint: 'Do not give up a round after a short read timeout; a round ends with PLAYER LOST or ROUND CANCELED.',
  },
  {
    id: 'server-silent',
    title: 'the server falls silent after the client’s JOIN: nothing, not even a HEARTBEAT, for 6 s',
    session: session({ rounds: [{}], end: 'silent', silentMs: 6000 }),
    ...J.silent,
  },
  {
    id: 'unregistered',
    title: 'after two rounds the server sends UNREGISTERED unasked (a tournament table’s end)',
    session: session({ rounds: [{}, {}], end: 'unregistered' }),
    ...J.unregistered,
  },
];

export const miaConformance: GameConformance = {
  placeholders: ['host', 'port', 'name'],
  example: 'spielhalle bot mia --host {host} --port {port} --name {name}',
  transport: 'udp',
  maxLineBytes: MAX_DATAGRAM_BYTES,
  // Our server strips one trailing \n or \r\n from a datagram (spec decision 4).
  normalize: (line) => stripLineEnd(line),
  scenarios: MIA_SCENARIOS.map((s) => scriptedScenario(s, { name: s.session.name }, 'a Mia server', () => runMiaSession({ ...s.session, judgement: { rule: s.rule, section: s.section, hint: s.hint } }))),
};
