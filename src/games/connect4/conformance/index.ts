import { scriptedScenario, type GameConformance, type Judgement } from '../../../core/conformance.js';
import { MAX_DATAGRAM_BYTES } from '../protocol.js';
import { J } from './judgements.js';
import { runC4Session, type C4Session } from './session.js';

/**
 * `spielhalle check-client connect4`: the scenarios a Connect Four peer must pass, as data. The
 * scripted side is a peer at {host}:{port}; the client binds {port} (placeholder `port` is the
 * client's own port, as in tournaments) and invites `{invite}` (the scripted peer) at once — the
 * inviter moves first. Where a scenario has the scripted peer invite instead, the client must
 * accept that invitation even while its own is out (a tournament's seat 1). session.ts plays the
 * game; docs/check-client/connect4.md lists the scenarios with the reasons.
 */

interface C4Scenario extends Judgement {
  id: string;
  title: string;
  session: C4Session;
}

const INVITING = { role: 'inviting' } as const;

export const C4_SCENARIOS: readonly C4Scenario[] = [
  {
    id: 'full-game-inviting',
    title: 'a whole game: the client invites, we accept, the client moves first',
    session: { ...INVITING },
    ...J.full,
  },
  {
    id: 'full-game-invited',
    title: 'a whole game: we invite the client (its own invitation goes unanswered), we move first',
    session: { role: 'invited' },
    ...J.crossed,
  },
  {
    id: 'crossed-invitations',
    title: 'crossed invitations: ours answers the client’s first invitation; neither is an acceptance',
    session: { role: 'crossed' },
    ...J.crossed,
  },
  {
    id: 'repeated-packets',
    title: 'every datagram of ours three times, keepalives while we think 2.3 s, and stale old moves',
    session: { ...INVITING, copies: 3, stale: true, thinkMs: (n) => (n % 2 === 1 ? 2300 : 0) },
    ...J.repeat,
  },
  {
    id: 'repeated-packets-invited',
    title: 'the same with the client second: invitation, stage 3 and moves three times each',
    session: { role: 'invited', copies: 3, stale: true, thinkMs: (n) => (n % 2 === 0 ? 2300 : 0) },
    ...J.repeat,
  },
  {
    id: 'turn-per-player',
    title: 'a peer that counts turn per player (0, 1, 2, … for its own moves), as A and C do',
    session: { ...INVITING, turns: 'own', blameSilence: true },
    ...J.turnPerPlayer,
  },
  {
    id: 'ignored-packets',
    title: 'before each of our moves: wrong and missing versions, bad and unknown stages, garbage, a third party’s move and invitation',
    session: { ...INVITING, noise: true },
    ...J.ignore,
  },
  {
    id: 'dialects',
    title: 'our datagrams in every valid spelling: A’s pretty-printed strings, B’s "version":"2", unknown keys, NULs',
    session: { ...INVITING, spelling: 'dialects', name: 'check/client', blameSilence: true },
    ...J.dialects,
  },
  {
    id: 'largest-datagram',
    title: `every datagram of ours padded to ${MAX_DATAGRAM_BYTES} bytes with an unknown key`,
    session: { ...INVITING, spelling: 'padded', blameSilence: true },
    ...J.largest,
  },
  {
    id: 'first-move-before-ready',
    title: 'our stage 3 only 1.5 s after our acceptance: the client must not move before it',
    session: { ...INVITING, readyDelayMs: 1500 },
    ...J.ready,
  },
  {
    id: 'slow-peer',
    title: 'a slow peer: accepts only the second copy of the invitation, thinks 6 s and 9 s with keepalives every 2 s',
    session: { ...INVITING, acceptSecondCopy: true, thinkMs: (n) => [6000, 9000][n] ?? 0 },
    ...J.slow,
  },
  {
    id: 'abort-before-acceptance',
    title: 'a 99 in answer to the client’s invitation, before any game: nothing starts, nothing is acknowledged',
    session: { ...INVITING, cut: { at: 'invitation', then: 'abort' } },
    ...J.lobbyAbort,
  },
  {
    id: 'abort-at-board-start',
    title: '99 right after the stage 3 exchange, before anyone moved (we invited)',
    session: { role: 'invited', cut: { at: 'board-start', then: 'abort' } },
    ...J.abort,
  },
  {
    id: 'abort-after-client-move',
    title: '99 right after the client’s second move',
    session: { ...INVITING, cut: { at: 'client-moved', nth: 1, then: 'abort' } },
    ...J.abort,
  },
  {
    id: 'abort-with-peer-move',
    title: '99 right behind our second move, while the client owes its answer',
    session: { ...INVITING, cut: { at: 'peer-moves', nth: 1, then: 'abort' } },
    ...J.abort,
  },
  {
    id: 'abort-after-end',
    title: 'a 99 right after the game’s end: it goes unanswered',
    session: { ...INVITING, strategy: 'lose', cut: { at: 'end', then: 'abort' } },
    ...J.ignoreAfterEnd,
  },
  {
    id: 'end-client-wins',
    title: 'the game ends with the client’s move (we never block): stage 5, the final move repeated',
    session: { ...INVITING, strategy: 'lose' },
    ...J.end,
  },
  {
    id: 'end-peer-wins',
    title: 'the game ends with our move while the client owes nothing more (we play the strong bot)',
    session: { ...INVITING, strategy: 'win' },
    ...J.end,
  },
  {
    id: 'stage5-then-move',
    title: 'stage 5 although the game goes on, our move 3 s later',
    session: { ...INVITING, cut: { at: 'peer-moves', nth: 1, then: 'stage5-then-move' } },
    ...J.stage5,
  },
  {
    id: 'stage5-without-final-move',
    title: 'stage 5 in place of our move and no move ever: no result, no 99, out after 10 s',
    session: { ...INVITING, cut: { at: 'peer-moves', nth: 1, then: 'stage5' } },
    ...J.noFinalMove,
  },
  {
    id: 'silent-peer',
    title: 'we fall silent after the client’s second move: it must abort after 10 s',
    session: { ...INVITING, cut: { at: 'client-moved', nth: 1, then: 'silent' } },
    ...J.silence,
  },
  {
    id: 'move-timeout',
    title: 'keepalives but no move after the client’s second move: it must abort after 30 s',
    session: { ...INVITING, cut: { at: 'client-moved', nth: 1, then: 'stall' } },
    ...J.stall,
  },
];

export const connect4Conformance: GameConformance = {
  placeholders: ['host', 'port', 'invite'],
  example: 'spielhalle bot connect4 --port {port} --invite {invite} --once --level easy --peer-port {port}',
  scriptedSide: 'peer',
  transport: 'udp',
  maxLineBytes: MAX_DATAGRAM_BYTES,
  placeholdersFor: ({ host, port, clientPort }) => ({ port: String(clientPort), invite: `${host}:${port}` }),
  scenarios: C4_SCENARIOS.map((s) => scriptedScenario(s, {}, 'a Connect Four game', () => runC4Session(s.session))),
};
