import { formatDice, parseDice, type Dice } from './dice.js';
import type { LossReason } from './rules.js';

/**
 * The Mia wire codec. One UDP datagram is one message; fields are separated by `;`; commands are
 * case-sensitive. This file is the only place a Mia wire string is spelled.
 */

/** Longest datagram we look at; anything longer is dropped unread. */
export const MAX_DATAGRAM_BYTES = 1024;
export const MAX_NAME_LENGTH = 20;
/** The most a UDP datagram over IPv4 can carry (65,535 − 8 bytes UDP − 20 bytes IP header): no message we send is longer. */
export const MAX_UDP_PAYLOAD = 65_507;

export type ClientMessage =
  | { type: 'REGISTER'; name: string | undefined }
  | { type: 'REGISTER_SPECTATOR'; name: string | undefined }
  | { type: 'UNREGISTER' }
  | { type: 'ECHO'; text: string }
  | { type: 'JOIN'; token: string | undefined }
  | { type: 'ROLL'; token: string | undefined }
  | { type: 'SEE'; token: string | undefined }
  /** `dice` is null when the announced text is not two dice 1–6 (the announcement is then ignored). */
  | { type: 'ANNOUNCE'; dice: Dice | null; raw: string | undefined; token: string | undefined };

export type RejectReason = 'INVALID_NAME' | 'NAME_ALREADY_TAKEN';
export type CancelReason = 'NO_PLAYERS' | 'ONLY_ONE_PLAYER';

export type ServerMessage =
  | { type: 'REGISTERED' }
  | { type: 'REJECTED'; reason: RejectReason }
  | { type: 'UNREGISTERED' }
  | { type: 'HEARTBEAT' }
  | { type: 'ECHOING'; text: string }
  | { type: 'ROUND STARTING'; token: string }
  | { type: 'ROUND CANCELED'; reason: CancelReason }
  | { type: 'ROUND STARTED'; round: number; players: readonly string[] }
  | { type: 'YOUR TURN'; token: string }
  | { type: 'PLAYER ROLLS'; name: string }
  | { type: 'ROLLED'; dice: Dice; token: string }
  | { type: 'ANNOUNCED'; name: string; dice: Dice }
  | { type: 'PLAYER WANTS TO SEE'; name: string }
  | { type: 'ACTUAL DICE'; dice: Dice }
  | { type: 'PLAYER LOST'; names: readonly string[]; reason: LossReason }
  | { type: 'SCORE'; scores: readonly (readonly [string, number])[] };

export type ParseError =
  | { code: 'too-long'; bytes: number }
  | { code: 'empty' }
  | { code: 'unknown-command'; command: string };

/** Strips one trailing `\n` or `\r\n` (decision 4 in docs/mia.md). */
export function stripLineEnd(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

export function parseClient(datagram: Buffer | string): { ok: true; message: ClientMessage } | { ok: false; error: ParseError } {
  const bytes = typeof datagram === 'string' ? Buffer.byteLength(datagram) : datagram.length;
  if (bytes > MAX_DATAGRAM_BYTES) return { ok: false, error: { code: 'too-long', bytes } };
  const text = stripLineEnd(typeof datagram === 'string' ? datagram : datagram.toString('utf8'));
  if (text === '') return { ok: false, error: { code: 'empty' } };
  const [command = '', ...args] = text.split(';');
  const message = ((): ClientMessage | null => {
    switch (command) {
      case 'REGISTER':
        return { type: 'REGISTER', name: args[0] };
      case 'REGISTER_SPECTATOR':
        return { type: 'REGISTER_SPECTATOR', name: args[0] };
      case 'UNREGISTER':
        return { type: 'UNREGISTER' };
      case 'ECHO':
        return { type: 'ECHO', text: args.length > 0 ? args.join('') : '42' };
      case 'JOIN':
        return { type: 'JOIN', token: args[0] };
      case 'ROLL':
        return { type: 'ROLL', token: args[0] };
      case 'SEE':
        return { type: 'SEE', token: args[0] };
      case 'ANNOUNCE':
        return { type: 'ANNOUNCE', dice: parseDice(args[0]), raw: args[0], token: args[1] };
      default:
        return null;
    }
  })();
  if (message === null) return { ok: false, error: { code: 'unknown-command', command: command.slice(0, 40) } };
  return { ok: true, message };
}

/** Non-empty, at most 20 characters, none of `,` `;` `:` or whitespace, no control characters. */
export function isValidName(name: string | undefined): name is string {
  return (
    name !== undefined &&
    name !== '' &&
    name.length <= MAX_NAME_LENGTH &&
    // eslint-disable-next-line no-control-regex
    !/[,;:\s\u0000-\u001f\u007f\ufffd]/u.test(name)
  );
}

export function formatServer(m: ServerMessage): string {
  switch (m.type) {
    case 'REGISTERED':
    case 'UNREGISTERED':
    case 'HEARTBEAT':
      return m.type;
    case 'REJECTED':
      return `REJECTED;${m.reason}`;
    case 'ECHOING':
      return `ECHOING;${m.text}`;
    case 'ROUND STARTING':
      return `ROUND STARTING;${m.token}`;
    case 'ROUND CANCELED':
      return `ROUND CANCELED;${m.reason}`;
    case 'ROUND STARTED':
      return `ROUND STARTED;${m.round};${m.players.join(',')}`;
    case 'YOUR TURN':
      return `YOUR TURN;${m.token}`;
    case 'PLAYER ROLLS':
      return `PLAYER ROLLS;${m.name}`;
    case 'ROLLED':
      return `ROLLED;${formatDice(m.dice)};${m.token}`;
    case 'ANNOUNCED':
      return `ANNOUNCED;${m.name};${formatDice(m.dice)}`;
    case 'PLAYER WANTS TO SEE':
      return `PLAYER WANTS TO SEE;${m.name}`;
    case 'ACTUAL DICE':
      return `ACTUAL DICE;${formatDice(m.dice)}`;
    case 'PLAYER LOST':
      return `PLAYER LOST;${m.names.join(',')};${m.reason}`;
    case 'SCORE':
      return `SCORE;${m.scores.map(([name, points]) => `${name}:${points}`).join(',')}`;
  }
}

/** Messages our client sends. */
export type OutgoingClient =
  | { type: 'REGISTER' | 'REGISTER_SPECTATOR'; name: string }
  | { type: 'UNREGISTER' }
  | { type: 'JOIN' | 'ROLL' | 'SEE'; token: string }
  | { type: 'ANNOUNCE'; dice: Dice; token: string };

export function formatClient(m: OutgoingClient): string {
  switch (m.type) {
    case 'REGISTER':
    case 'REGISTER_SPECTATOR':
      return `${m.type};${m.name}`;
    case 'UNREGISTER':
      return 'UNREGISTER';
    case 'JOIN':
    case 'ROLL':
    case 'SEE':
      return `${m.type};${m.token}`;
    case 'ANNOUNCE':
      return `ANNOUNCE;${formatDice(m.dice)};${m.token}`;
  }
}

/** What a client reads. Lenient where other servers differ: unknown dice stay null, not an error. */
export type IncomingServer =
  | Exclude<ServerMessage, { type: 'ROLLED' | 'ANNOUNCED' | 'ACTUAL DICE' | 'REJECTED' | 'PLAYER LOST' }>
  | { type: 'REJECTED'; reason: string }
  | { type: 'ROLLED'; dice: Dice | null; token: string }
  | { type: 'ANNOUNCED'; name: string; dice: Dice | null }
  | { type: 'ACTUAL DICE'; dice: Dice | null }
  | { type: 'PLAYER LOST'; names: readonly string[]; reason: string };

export function parseServer(datagram: Buffer | string): IncomingServer | null {
  const text = stripLineEnd(typeof datagram === 'string' ? datagram : datagram.toString('utf8'));
  const [command = '', ...a] = text.split(';');
  const arg = (i: number): string => a[i] ?? '';
  const list = (s: string): string[] => (s === '' ? [] : s.split(','));
  switch (command) {
    case 'REGISTERED':
    case 'UNREGISTERED':
    case 'HEARTBEAT':
      return { type: command };
    case 'REJECTED':
      return { type: 'REJECTED', reason: arg(0) };
    case 'ECHOING':
      return { type: 'ECHOING', text: arg(0) };
    case 'ROUND STARTING':
      return { type: 'ROUND STARTING', token: arg(0) };
    case 'ROUND CANCELED':
      return arg(0) === 'NO_PLAYERS' || arg(0) === 'ONLY_ONE_PLAYER' ? { type: 'ROUND CANCELED', reason: arg(0) as CancelReason } : null;
    case 'ROUND STARTED':
      return { type: 'ROUND STARTED', round: Number(arg(0)), players: list(arg(1)) };
    case 'YOUR TURN':
      return { type: 'YOUR TURN', token: arg(0) };
    case 'PLAYER ROLLS':
      return { type: 'PLAYER ROLLS', name: arg(0) };
    case 'ROLLED':
      return { type: 'ROLLED', dice: parseDice(arg(0)), token: arg(1) };
    case 'ANNOUNCED':
      return { type: 'ANNOUNCED', name: arg(0), dice: parseDice(arg(1)) };
    case 'PLAYER WANTS TO SEE':
      return { type: 'PLAYER WANTS TO SEE', name: arg(0) };
    case 'ACTUAL DICE':
      return { type: 'ACTUAL DICE', dice: parseDice(arg(0)) };
    case 'PLAYER LOST':
      return { type: 'PLAYER LOST', names: list(arg(0)), reason: arg(1) };
    case 'SCORE':
      return {
        type: 'SCORE',
        scores: list(arg(0)).map((entry) => {
          const i = entry.lastIndexOf(':');
          return [entry.slice(0, i), Number(entry.slice(i + 1))] as const;
        }),
      };
    default:
      return null;
  }
}

/** Names in code-unit order: how SCORE and PLAYER LOST sort them (decision 1). */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `line` (a server message) as one recipient sees it at a Liga table (issue 34): the table plays
 * under public names, and the recipient's own public name `own` is shown as the name it registered,
 * `as` (its ladder code), so that its client finds itself in every message, while nobody else
 * ever sees that code. Only the name fields are touched; lists of names stay sorted (decision 1).
 */
export function renameForRecipient(line: string, own: string, as: string): string {
  const at = line.indexOf(';');
  if (at < 0 || own === as) return line;
  const command = line.slice(0, at);
  const fields = line.slice(at + 1).split(';');
  const one = (name: string): string => (name === own ? as : name);
  const list = (names: string, sort: boolean): string => {
    const out = names === '' ? [] : names.split(',').map(one);
    return (sort ? out.sort(byName) : out).join(',');
  };
  switch (command) {
    case 'ROUND STARTED':
      // The turn order, as it is.
      if (fields[1] !== undefined) fields[1] = list(fields[1], false);
      break;
    case 'PLAYER ROLLS':
    case 'ANNOUNCED':
    case 'PLAYER WANTS TO SEE':
      fields[0] = one(fields[0]!);
      break;
    case 'PLAYER LOST':
      fields[0] = list(fields[0]!, true);
      break;
    case 'SCORE': {
      const entries = fields[0] === '' ? [] : fields[0]!.split(',');
      fields[0] = entries
        .map((entry) => {
          const i = entry.lastIndexOf(':');
          return [one(entry.slice(0, i)), entry.slice(i)] as const;
        })
        .sort(([a], [b]) => byName(a, b))
        .map(([name, points]) => `${name}${points}`)
        .join(',');
      break;
    }
    default:
      return line;
  }
  return `${command};${fields.join(';')}`;
}
