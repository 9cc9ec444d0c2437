import { err, ok, type Result } from '../../core/result.js';
import type { Team } from './board.js';
import { parseStateElement } from './protocol-state.js';
import {
  attr,
  CLOSE_CONNECTION,
  parseClient,
  parseMoveElement,
  type GameResult,
  type ProtocolError,
  type RoomMessage,
  type ScoreCause,
  type ScoreEntry,
  type ServerPacket,
} from './protocol.js';
import { child, type XmlElement } from './xml/parser.js';

/**
 * Our client's side of the protocol: server packets read back into the types the server writes
 * them from. Like every parse, it never throws; an unreadable packet is an error value.
 */

const bad = (message: string): Result<never, ProtocolError> => err({ code: 'bad-content', message });
const bool = (e: XmlElement, key: string): boolean => (attr(e, key) ?? '').toLowerCase() === 'true';

const isTeam = (v: string | null): v is Team => v === 'ONE' || v === 'TWO';
const SCORE_CAUSES: readonly string[] = [
  'REGULAR',
  'LEFT',
  'RULE_VIOLATION',
  'SOFT_TIMEOUT',
  'HARD_TIMEOUT',
  'UNKNOWN',
];

function parseResult(d: XmlElement): Result<GameResult, ProtocolError> {
  const scores: ScoreEntry[] = [];
  for (const entry of child(d, 'scores')?.children ?? []) {
    const player = child(entry, 'player');
    const score = child(entry, 'score');
    const team = player ? attr(player, 'team') : null;
    const cause = score ? attr(score, 'cause') : null;
    if (!score || !isTeam(team) || cause === null || !SCORE_CAUSES.includes(cause))
      return bad('a score entry needs a team and a cause');
    const parts = score.children.filter((c) => c.name === 'part').map((c) => Number(c.text.trim()));
    if (parts.some((n) => !Number.isFinite(n))) return bad('score parts are numbers');
    scores.push({
      team,
      name: player ? (attr(player, 'name') ?? '') : '',
      cause: cause as ScoreCause,
      reason: attr(score, 'reason') ?? '',
      parts,
    });
  }
  const winner = child(d, 'winner');
  const team = winner ? attr(winner, 'team') : null;
  return ok({ scores, winner: isTeam(team) ? team : null });
}

function parseRoomMessage(d: XmlElement): Result<RoomMessage, ProtocolError> {
  switch (attr(d, 'class')) {
    case 'welcomeMessage': {
      const color = attr(d, 'color');
      return isTeam(color)
        ? ok({ class: 'welcomeMessage', color })
        : bad('welcomeMessage needs a color ONE or TWO');
    }
    case 'memento': {
      const state = child(d, 'state');
      if (!state) return bad('a memento holds a <state>');
      const parsed = parseStateElement(state);
      return parsed.ok ? ok({ class: 'memento', state: parsed.value }) : bad(parsed.error);
    }
    case 'moveRequest':
      return ok({ class: 'moveRequest' });
    case 'result': {
      const result = parseResult(d);
      return result.ok ? ok({ class: 'result', result: result.value }) : result;
    }
    case 'error': {
      const original = child(d, 'originalMessage');
      const move = original ? parseMoveElement(original) : null;
      return ok({
        class: 'error',
        message: attr(d, 'message') ?? '',
        original: move?.ok ? move.value : null,
      });
    }
    case 'paused':
      return ok({ class: 'paused', paused: bool(d, 'paused') });
    default:
      return bad(`unknown room message class ${attr(d, 'class') ?? '(none)'}`);
  }
}

/** One packet of a server's stream. */
export function parseServer(e: XmlElement): Result<ServerPacket, ProtocolError> {
  const roomId = attr(e, 'roomId');
  switch (e.name) {
    case 'joined':
    case 'observed':
    case 'left':
      return roomId === null ? bad(`<${e.name}> needs a roomId`) : ok({ type: e.name, roomId });
    case 'joinedGameRoom':
      return roomId === null
        ? bad('<joinedGameRoom> needs a roomId')
        : ok({ type: 'joinedGameRoom', roomId, playerCount: Number(attr(e, 'playerCount') ?? 0) });
    case 'prepared':
      return roomId === null
        ? bad('<prepared> needs a roomId')
        : ok({
            type: 'prepared',
            roomId,
            reservations: e.children.filter((c) => c.name === 'reservation').map((c) => c.text.trim()),
          });
    case 'errorpacket': {
      const echo = child(e, 'originalRequest');
      const cls = echo ? attr(echo, 'class') : null;
      const original = echo && cls !== null ? parseClient({ ...echo, name: cls }) : null;
      return ok({
        type: 'errorpacket',
        message: attr(e, 'message') ?? '',
        original: original?.ok ? original.value : null,
      });
    }
    case 'room': {
      const d = child(e, 'data');
      if (roomId === null || !d) return bad('<room> needs a roomId and <data>');
      const data = parseRoomMessage(d);
      return data.ok ? ok({ type: 'room', roomId, data: data.value }) : data;
    }
    case CLOSE_CONNECTION:
      return ok({ type: 'closeConnection' });
    default:
      return err({ code: 'unknown-element', message: `unknown element <${e.name}>` });
  }
}
