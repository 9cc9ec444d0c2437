import type { Coordinates, Team } from './board.js';
import type { RuleErrorCode } from './rules.js';

/**
 * Every text the official server writes into a wire attribute (score reasons, room errors, lobby
 * errors), spelled once, exactly as the 22.final server builds it (spec §2, §3.6, §3.8, §3.9).
 * Java and Kotlin `toString()` shapes are part of these strings, so they are rebuilt here.
 */

export const GAME_TYPE = 'swc_2022_ostseeschach';

/** The `MoveMistake` texts; `%s` is literal on the wire (spec §4 #3). */
export const MISTAKE_TEXT: Readonly<Record<RuleErrorCode, string>> = {
  WRONG_COLOR: 'Nur eigene Spielfiguren können gezogen werden',
  OUT_OF_BOUNDS: 'Das Zielfeld liegt außerhalb des Spielfelds',
  INVALID_MOVEMENT: '%s kann sich nicht um %s bewegen',
  DESTINATION_BLOCKED: 'Kann nicht auf ein Feld der eigenen Farbe ziehen',
  // Unreachable on the server (a finished room is gone); the official INVALID_MOVE text.
  GAME_OVER: 'Dieser Zug ist nicht möglich',
};

/** Kotlin `Coordinates.toString()`. */
export const coordinatesText = (c: Coordinates): string => `[${c.x}|${c.y}]`;
/** A move as read off the wire: `from` is null when the client left `<from>` out. */
export interface MoveText {
  readonly from: Coordinates | null;
  readonly to: Coordinates;
}
/** Kotlin `Move.toString()` (a null field prints `null`). */
export const moveText = (m: MoveText): string =>
  `Zug von ${m.from === null ? 'null' : coordinatesText(m.from)} zu ${coordinatesText(m.to)}`;
/** Kotlin `Player.toString()`: `ONE(Alice)`, `TWO()` when unnamed. */
export const playerText = (team: Team, name: string): string => `${team}(${name})`;

/** `InvalidMoveException.message`: the RULE_VIOLATION score reason. */
export const violationReason = (code: RuleErrorCode, move: MoveText): string =>
  `${MISTAKE_TEXT[code]} bei Zug '${moveText(move)}'`;

/** The room error for an invalid move (to the offender and the observers). */
export const invalidMoveMessage = (name: string, code: RuleErrorCode, move: MoveText): string =>
  `Ungueltiger Zug von '${name}'.\nInvalidMoveException(mistake=${MISTAKE_TEXT[code]}, move=${moveText(move)})`;

export const notYourTurnMessage = (
  expected: { team: Team; name: string },
  actual: { team: Team; name: string },
  move: MoveText,
): string =>
  `It's not your turn yet; expected: ${playerText(expected.team, expected.name)}, got ${playerText(actual.team, actual.name)} (msg was ${moveText(move)}).`;

export const notRequestedMessage = (team: Team, name: string): string =>
  `Move from ${playerText(team, name)} has not been requested.`;

/** Java integer division: a 2000 ms limit reads "2 Sekunden", a 500 ms test limit "0 Sekunden". */
export const timeoutReason = (limitMs: number): string =>
  `Der Spieler hat innerhalb von ${Math.floor(limitMs / 1000)} Sekunden nach Aufforderung keinen Zug gesendet`;

export type DisconnectCause =
  | 'LOST_CONNECTION'
  | 'PROTOCOL_ERROR'
  | 'RECEIVED_DISCONNECT'
  | 'INITIATED_DISCONNECT'
  | 'NOT_CONNECTED'
  | 'TIMEOUT'
  | 'UNKNOWN';

export const leftReason = (cause: DisconnectCause): string => `Der Spieler hat das Spiel verlassen: ${cause}`;

// ---- lobby errors: `<fully qualified exception class>: <message>` (Java Throwable.toString) ----

const GAME_ROOM = 'sc.api.plugins.exceptions.GameRoomException';
/** Kotlin string templates print a missing attribute as `null`. */
const str = (v: string | null): string => (v === null ? 'null' : v);

export const LOBBY_ERROR = {
  roomNotFound: (roomId: string | null) => `${GAME_ROOM}: Couldn't find a room with id ${str(roomId)}`,
  roomFull: (roomId: string | null) => `${GAME_ROOM}: Room ${str(roomId)} is already full!`,
  notMember: (roomId: string) => `${GAME_ROOM}: Client is not a member of game ${roomId}`,
  nonMove: (packetText: string) => `${GAME_ROOM}: Received non-move packet: ${packetText}`,
  unknownReservation: () =>
    "sc.server.gaming.UnknownReservationException: Couldn't find a reservation for the provided token.",
  /**
   * A ladder code the ladder refuses (issue 34): the errorpacket of an unknown reservation, with
   * the ladder's words as its text, so a client shows why (`Liga: this code was revoked; …`).
   */
  ladderRefused: (text: string) => `sc.server.gaming.UnknownReservationException: ${text}`,
  authenticationFailed: () =>
    'sc.server.network.AuthenticationFailedException: Failed to authenticate as administrator',
  unauthenticated: (requestText: string) =>
    `sc.server.network.UnauthenticatedException: Request ${requestText} requires authentication`,
  /** Spec §4 #4: the official server drops the client without a packet; we answer with this. */
  unknownGameType: (gameType: string | null) =>
    `sc.api.plugins.exceptions.PluginLoaderException: Could not find game of type '${str(gameType)}'`,
  /** Our fix for a prepare with more than two slots (the official server drops the admin). */
  tooManySlots: () =>
    'sc.api.plugins.exceptions.TooManyPlayersException: Attempted to join an already full game',
  /** Our own limit on open rooms (the official server has none). */
  tooManyRooms: (max: number) => `${GAME_ROOM}: The server already has ${max} open rooms`,
  /** Our own limit on the open rooms one host created by join or prepare (fair share). */
  tooManyRoomsForHost: (max: number) => `${GAME_ROOM}: Your host already has ${max} open rooms`,
  /** A request that failed on a bug of ours: the client hears of it instead of waiting forever. */
  internalError: (requestText: string) => `sc.server.InternalError: Request ${requestText} failed on the server`,
} as const;

/**
 * Where Java prints an identity hash (`[Lsc.shared.SlotDescriptor;@1b6d3586`), the value is random
 * per JVM; we print this fixed one.
 */
export const IDENTITY_HASH = '1b6d3586';
