import { scriptedScenario, type GameConformance, type Judgement } from '../../../core/conformance.js';
import { MAX_CHAT_LENGTH, MAX_MESSAGE_BYTES, MAX_NAME_LENGTH } from '../protocol.js';
import { CATAN_JUDGEMENTS as J, runCatanSession, type CatanSession } from './session.js';

/**
 * `spielhalle check-client catan`: the scenarios a protocol-0.3 client must pass, as data. Each
 * names the rule it checks (with the spec section) and a hint; `session` is the game the scripted
 * server plays (session.ts). docs/check-client/catan.md lists them with the reasons.
 */

interface CatanScenario extends Judgement {
  id: string;
  title: string;
  session: CatanSession;
}

/** A short game: the client's first actions, then another player's connection is lost (D9). */
const SHORT = 8;

/** A seed whose deck begins Ritter, Strassenbau, Ritter, Monopol, Erfindung: the first cards bought are each of the kinds played. */
const ALL_CARDS_SEED = 'check-client-159';

/** The longest Chatnachricht our server relays: 500 characters, each one a 6-byte `\u` escape on the wire (about 3 KB). */
const LONG_CHAT = '\u0001'.repeat(MAX_CHAT_LENGTH);
/** Names of 40 characters of 4 bytes each (the longest the lobby accepts, in bytes). */
const LONG_NAMES = ['🏰', '🐑', '🌾'].map((c) => c.repeat(MAX_NAME_LENGTH));

const REFUSALS: readonly { slug: string; refuse: NonNullable<CatanSession['refuse']>; when: string; extra?: Partial<CatanSession> }[] = [
  { slug: 'spieler', refuse: { kind: 'player', meldung: 'Farbe bereits vergeben', sticky: true }, when: 'to its Spieler (the colour is taken)' },
  { slug: 'spiel-starten', refuse: { kind: 'startGame', meldung: 'Farbe bereits vergeben' }, when: 'to its Spiel starten' },
  { slug: 'dorf-bauen', refuse: { kind: 'setupSettlement', meldung: 'Abstandsregel verletzt', sticky: true }, when: 'to its first setup Dorf' },
  { slug: 'strasse-bauen', refuse: { kind: 'setupRoad', meldung: 'Keine Verbindung', sticky: true }, when: 'to its first setup Strasse' },
  { slug: 'wuerfeln', refuse: { kind: 'roll', meldung: 'Aktion im aktuellen Status nicht erlaubt' }, when: 'to its first Wuerfeln' },
  { slug: 'zug-beenden', refuse: { kind: 'endTurn', meldung: 'Aktion im aktuellen Status nicht erlaubt' }, when: 'to its first Zug beenden' },
  {
    slug: 'raeuber-versetzen',
    refuse: { kind: 'moveRobber', meldung: 'Ungueltiger Ort', sticky: true },
    when: 'to its first Raeuber versetzen (after its own 7)',
    extra: { dice: 'seven-by-client', needs: 'ownRobber' },
  },
  {
    slug: 'karten-abgeben',
    refuse: { kind: 'discard', meldung: 'Falsche Anzahl Karten' },
    when: 'to its first Karten abgeben',
    extra: { dice: 'seven-for-client', needs: 'discard' },
  },
];

export const CATAN_SCENARIOS: readonly CatanScenario[] = [
  {
    id: 'full-game',
    title: 'a whole game with 3 players to its winner (house bots, baseline R)',
    session: {},
    ...J.end,
  },
  {
    id: 'all-messages',
    title: 'a whole game against bots that trade and buy cards: every message type, with others’ cards censored',
    session: { opponents: 'weighted', chat: 'Viel Glück!', offers: 2, seat: 1, eagerCards: true, dice: 'seven-for-client', seed: ALL_CARDS_SEED },
    rule: 'Read every message type of the spec, with the others’ Rohstoffe, Entwicklungskarten and bought cards as {"Unbekannt":n} / "Unbekannt"',
    section: 'spec §2.5, §2.6',
    hint: 'Never index your card tables by a value from the wire unchecked: others’ hands and bought cards are censored.',
  },
  {
    id: 'four-players',
    title: 'a game with 4 players, the client last in the turn order',
    session: { players: 4, seat: 3, clientActions: SHORT },
    ...J.act,
  },
  {
    id: 'seven-discard',
    title: 'a 7 while the client holds 8 or more cards: it must discard half',
    session: { dice: 'seven-for-client', needs: 'discard', clientActions: SHORT },
    ...J.discard,
  },
  {
    id: 'robber-on-own-field',
    title: 'an opponent rolls a 7, puts the robber on the client’s field and robs it',
    session: { dice: 'seven-against-client', needs: 'robbed', clientActions: SHORT, strict: true },
    rule: 'A robber moved by another player onto your field (and a card stolen from you) asks nothing of you: keep following your statuses',
    section: 'spec §2.5 (Raeuber versetzt, Kosten), §2.7 (Raeuber versetzen)',
    hint: 'Raeuber versetzt and a Kosten of your own are news, not requests; only your own Statusupdate asks you to act.',
  },
  {
    id: 'own-seven',
    title: 'the client rolls a 7: it must move the robber (and may name a victim)',
    session: { dice: 'seven-by-client', needs: 'ownRobber', clientActions: SHORT },
    rule: 'After your own 7, move the robber to another land hex (Raeuber versetzen), naming a victim next to it when there is one',
    section: 'spec §2.4, §2.5, §2.7 (Wuerfeln, 7; Raeuber versetzen)',
    hint: 'The robber must leave its hex; Ziel is optional only when nobody with cards touches the new hex.',
  },
  {
    id: 'trade-offers',
    title: 'opponents offer trades in their turns (Handelsangebot while the client waits)',
    session: { offers: 4, clientActions: 2 * SHORT, strict: true },
    rule: 'A Handelsangebot of another player may be accepted (Handel annehmen), declined (Handel abbrechen) or ignored; it is no request to act',
    section: 'spec §2.5 (domestic trade), D11',
    hint: 'Answer an offer at most once and only with its Handel id; never send Zug beenden or Wuerfeln because of it.',
  },
  {
    id: 'split-reads',
    title: 'every write cut into three pieces (inside a line, and before its last newline)',
    session: { writes: 'split', clientActions: SHORT },
    rule: 'TCP is a byte stream: a JSON object may arrive in pieces',
    section: 'spec §2.1 (reading)',
    hint: 'Keep the bytes after the last newline of a read and complete the object with the next read.',
  },
  {
    id: 'coalesced-reads',
    title: 'the lines of several steps in one write',
    session: { writes: 'coalesced', clientActions: SHORT },
    rule: 'TCP is a byte stream: one read may hold many objects',
    section: 'spec §2.1 (reading), §2.7',
    hint: 'Split every read into lines and handle each one, in order.',
  },
  {
    id: 'slow-server',
    title: 'a slow server: each line written alone, 20 ms after the one before',
    session: { writes: 'slow', slowLineMs: 20, clientActions: 4 },
    rule: 'Wait for the next message however late it comes; act on your Statusupdate, not on a pause',
    section: 'spec §2.1, §2.4, §2.7',
    hint: 'Do not guess that the server has finished talking after a short silence.',
  },
  {
    id: 'long-lines',
    title: `the longest lines our server sends: a ${MAX_CHAT_LENGTH}-character chat of escaped characters (~3 KB) and 40-character names`,
    session: { chat: LONG_CHAT, names: LONG_NAMES, clientActions: SHORT },
    rule: 'A server line can be several KB long (a chat of 500 characters, each escaped; a Karte); a client line may have up to 64 KiB',
    section: 'spec §2.1, §2.5 (Chatnachricht), D10, D13',
    hint: 'Read lines of any length (no fixed 1 or 2 KB buffer) and decode JSON escapes such as \\u0001.',
  },
  {
    id: 'long-lines-utf8',
    title: 'two chats whose ä, € and 🂡 lie across bytes 1000, 1024 and 4096 of a write, cut there into four writes',
    session: { utf8Chats: true, clientActions: SHORT },
    rule: 'A line is UTF-8 bytes: a multi-byte character may come in two reads, so decode whole lines, not single reads',
    section: 'spec §2.1 (UTF-8, reading), §2.5 (Chatnachricht), D13',
    hint: 'Collect bytes up to the newline and decode the whole line (or use a streaming decoder: setEncoding("utf8"), InputStreamReader); never decode each read on its own.',
  },
  {
    id: 'time-limit',
    title: 'a decision time of 1000 ms (D10): every action within it',
    session: { decisionMs: 1000, clientActions: SHORT },
    rule: 'Act within the decision time, or the server acts for you (a random move, no OK)',
    section: 'spec D10',
    hint: 'Keep each decision well under the server’s time limit (about 10 s for AI games on our server).',
  },
  {
    id: 'end-in-handshake',
    title: 'a full server: Fehler "Spiel ist voll" in answer to Hallo, then the close',
    session: { cut: { at: 'hallo', then: 'lost' } },
    ...J.closed,
  },
  {
    id: 'end-in-lobby',
    title: 'the lobby closes after the client’s Spiel starten (Spiel beendet without Sieger)',
    session: { cut: { at: 'lobby', then: 'lost' } },
    ...J.end,
  },
  {
    id: 'end-while-owing',
    title: 'Spiel beendet in the same write as a request to act (the second setup Dorf; another player’s connection is lost)',
    session: { cut: { at: 'request', nth: 2, then: 'lost' } },
    ...J.end,
  },
  {
    id: 'end-while-thinking',
    title: 'Spiel beendet 150 ms after a request to act, while the client decides',
    session: { cut: { at: 'thinking', nth: 3, then: 'lost' } },
    ...J.end,
    hint: 'Keep reading while you think: an action after Spiel beendet goes to a closed game.',
  },
  {
    id: 'end-after-own-action',
    title: 'the server stops right after the OK to the client’s own action (Spiel beendet, then the close)',
    session: { cut: { at: 'ok', nth: 3, then: 'stop' } },
    ...J.end,
  },
  {
    id: 'server-closes',
    title: 'the server closes the connection without a line, right after the OK to the client’s action',
    session: { cut: { at: 'ok', nth: 2, then: 'close' } },
    ...J.closed,
  },
  {
    id: 'server-closes-in-lobby',
    title: 'the server closes the connection without a line in the lobby',
    session: { cut: { at: 'lobby', then: 'close' } },
    ...J.closed,
  },
  ...REFUSALS.map(
    (r): CatanScenario => ({
      id: `fehler-${r.slug}`,
      title: `Fehler "${r.refuse.meldung}" ${r.when}${r.refuse.sticky === true ? ' (and again if it sends the same again)' : ''}`,
      session: { refuse: r.refuse, clientActions: SHORT, ...r.extra },
      ...J.fehler,
    }),
  ),
];

export const catanConformance: GameConformance = {
  placeholders: ['host', 'port', 'name'],
  maxLineBytes: MAX_MESSAGE_BYTES,
  normalize: (line) => {
    const n = line.replace(/\r$/, '');
    return n.trim() === '' ? null : n;
  },
  scenarios: CATAN_SCENARIOS.map((s) => scriptedScenario(s, {}, 'a Catan game', () => runCatanSession(s.session))),
};
