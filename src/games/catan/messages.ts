import type { SeenEvent, SeenPlayer } from './events.js';
import type { WireMap, WirePlayer, ServerMessage } from './protocol.js';
import { NO_DEV_CARDS, NO_RESOURCES } from './rules/resources.js';
import type { State } from './rules/state.js';
import type { Colour, Status } from './rules/types.js';
import { boardView, buildingsView } from './view.js';

/**
 * From what a viewer may see (a censored event) to the server messages it gets, plus the server's
 * own texts. Nothing here looks at the full state except the public map.
 */

export const TEXT = {
  order: (players: readonly { readonly id: number; readonly name: string }[]): string =>
    `Reihenfolge: ${players.map((p) => `${p.name} (${p.id})`).join(', ')}`,
  won: (name: string): string => `Spieler ${name} hat das Spiel gewonnen.`,
  lost: (name: string): string => `Spieler ${name} hat die Verbindung verloren. Spiel abgebrochen.`,
  serverStopped: 'Der Server wird beendet. Spiel abgebrochen.',
  internalError: 'Interner Fehler des Servers. Spiel abgebrochen.',
  /** To the members of a lobby closed because nobody joined for `idleLobbyTimeoutMs`. */
  idleLobby: 'Zu lange kein Spielbeginn. Lobby geschlossen.',
  /** A game with a turn limit (tournaments) that reached it without a winner. */
  turnLimit: (turns: number): string => `Zuglimit von ${turns} Zuegen erreicht. Spiel beendet ohne Sieger.`,
  /** A player the server had to act for too often in a row (tournaments). */
  timedOut: (name: string): string => `Spieler ${name} hat zu oft nicht rechtzeitig geantwortet. Spiel abgebrochen.`,
  /** A prepared game (tournament) called off before it started. */
  calledOff: 'Das vorbereitete Spiel wurde abgesagt.',
  /** A running game called off by the tournament (stopped, aborted). */
  tournamentStopped: 'Das Turnier wurde unterbrochen. Spiel abgebrochen.',
} as const;

/** The public Karte of a game (board, placements, robber). */
export function wireMap(s: State): WireMap {
  const board = boardView(s);
  return { fields: board.fields, buildings: buildingsView(s), harbours: board.harbours, robber: board.robber };
}

export function wirePlayer(p: SeenPlayer): WirePlayer {
  return { id: p.id, colour: p.colour, name: p.name, status: p.status, points: p.points, resources: p.resources, knights: p.knights, devCards: p.devCards };
}

/** A lobby member before the game: no cards, no points; Farbe and Name once chosen. */
export function lobbyPlayer(m: { readonly id: number; readonly name: string | null; readonly colour: Colour | null; readonly status: Status }, own: boolean): WirePlayer {
  return {
    id: m.id,
    ...(m.colour === null ? {} : { colour: m.colour }),
    ...(m.name === null ? {} : { name: m.name }),
    status: m.status,
    points: 0,
    resources: own ? NO_RESOURCES : { Unbekannt: 0 },
    knights: 0,
    devCards: own ? NO_DEV_CARDS : { Unbekannt: 0 },
  };
}

export interface MessageContext {
  /** The Karte for `Spiel gestartet` (public, the same for everyone). */
  readonly map: () => WireMap;
  /** Players in turn order, for the server's chat line with the order (D4). */
  readonly order: () => readonly { readonly id: number; readonly name: string }[];
}

/** The wire messages one censored event becomes (one, except `Spiel gestartet`, which is followed by the order chat). */
export function messagesFor(e: SeenEvent, ctx: MessageContext): ServerMessage[] {
  switch (e.type) {
    case 'gameStarted':
      return [
        { type: 'gameStarted', map: ctx.map() },
        { type: 'chat', text: TEXT.order(ctx.order()) },
      ];
    case 'gameWon':
      return [{ type: 'gameOver', message: TEXT.won(e.name), winner: e.player }];
    case 'gameAborted':
      return [{ type: 'gameOver', message: TEXT.lost(e.name) }];
    case 'playerUpdated':
      return [{ type: 'status', player: wirePlayer(e.player) }];
    case 'gained':
    case 'paid':
      return [{ type: e.type, player: e.player, resources: e.resources }];
    case 'devCardBought':
      return [{ type: 'devCardBought', player: e.player, card: e.card }];
    default:
      // The public events have the shape of their messages already.
      return [e];
  }
}
