import type { Colour, DevCard, DevCards, Hidden, Piece, Resource, ResourceCounts, Resources, Status } from './rules/types.js';

/**
 * What happens in a game, as full-information facts in the order the server sends the matching
 * messages (catan.md §2.7). `censorEvent` turns each into what one viewer may see (§2.6); the codec
 * turns that into a wire message. Player references are protocol ids.
 */

/** Why cards moved; not on the wire, but it lets logs, the browser and the leak oracle tell transfers apart. */
export type TransferCause =
  | 'setup'
  | 'production'
  | 'build'
  | 'devCard'
  | 'discard'
  | 'steal'
  | 'seaTrade'
  | 'trade'
  | 'monopoly'
  | 'yearOfPlenty';

/** A player as the Statusupdate shows it to the player itself. */
export interface PlayerSnapshot {
  readonly id: number;
  readonly name: string;
  readonly colour: Colour;
  readonly status: Status;
  /** All points, hidden Siegpunkt cards included. */
  readonly points: number;
  readonly resources: Resources;
  readonly knights: number;
  /** Unplayed cards, bought-this-turn and Siegpunkt included. */
  readonly devCards: DevCards;
}

/** A player as a Statusupdate shows it to someone: others see counts only (§2.6). */
export interface SeenPlayer {
  readonly id: number;
  readonly name: string;
  readonly colour: Colour;
  readonly status: Status;
  readonly points: number;
  readonly resources: Resources | Hidden;
  readonly knights: number;
  readonly devCards: DevCards | Hidden;
}

/** Events everyone sees as they are. */
export type PublicEvent =
  /** The game began (`Spiel gestartet`); `order` is the turn order, for the server's chat line. */
  | { readonly type: 'gameStarted'; readonly order: readonly number[] }
  /** `Wuerfelwurf`. */
  | { readonly type: 'rolled'; readonly player: number; readonly dice: readonly [number, number] }
  /** `Raeuber versetzt`; `victim` only if one was named. */
  | { readonly type: 'robberMoved'; readonly player: number; readonly hex: string; readonly victim?: number }
  /** `Bauvorgang`; `at` is canonical. */
  | { readonly type: 'built'; readonly player: number; readonly piece: Piece; readonly at: string }
  /** Echo of `Ritter ausspielen`. */
  | { readonly type: 'knightPlayed'; readonly player: number; readonly hex: string; readonly victim?: number }
  /** Echo of `Strassenbaukarte ausspielen`, with the roads canonical. */
  | { readonly type: 'roadBuildingPlayed'; readonly player: number; readonly road1: string; readonly road2?: string }
  /** Echo of `Monopol`. */
  | { readonly type: 'monopolyPlayed'; readonly player: number; readonly resource: Resource }
  /** Echo of `Erfindung`. */
  | { readonly type: 'yearOfPlentyPlayed'; readonly player: number; readonly resources: ResourceCounts }
  /** `Laengste Handelsstrasse`; null: nobody holds it (`{}`). */
  | { readonly type: 'longestRoad'; readonly player: number | null }
  /** `Groesste Rittermacht`. */
  | { readonly type: 'largestArmy'; readonly player: number }
  /** `Handelsangebot`. */
  | {
      readonly type: 'tradeOffered';
      readonly player: number;
      readonly tradeId: number;
      readonly offer: ResourceCounts;
      readonly request: ResourceCounts;
    }
  /** `Handelsangebot angenommen`. */
  | { readonly type: 'tradeAccepted'; readonly player: number; readonly tradeId: number }
  /** `Handel ausgefuehrt`: `player` offered, `partner` accepted. */
  | { readonly type: 'tradeCompleted'; readonly tradeId: number; readonly player: number; readonly partner: number }
  /** `Handelsangebot abgebrochen`: withdrawn by the offerer, or an acceptance withdrawn / declined. */
  | { readonly type: 'tradeCancelled'; readonly player: number; readonly tradeId: number }
  /** `Spiel beendet` with a `Sieger`. */
  | { readonly type: 'gameWon'; readonly player: number; readonly name: string }
  /** `Spiel beendet` without `Sieger` (D9): `player` lost the connection. */
  | { readonly type: 'gameAborted'; readonly player: number; readonly name: string };

/** The full-information form of the censored events. */
export type PrivateEvent =
  /** `Ertrag`. */
  | { readonly type: 'gained'; readonly player: number; readonly resources: ResourceCounts; readonly cause: TransferCause }
  /** `Kosten`. */
  | { readonly type: 'paid'; readonly player: number; readonly resources: ResourceCounts; readonly cause: TransferCause }
  /** `Entwicklungskarte gekauft`. */
  | { readonly type: 'devCardBought'; readonly player: number; readonly card: DevCard }
  /**
   * `Statusupdate`. `publicPoints` leaves out hidden Siegpunkt cards; `reveal` marks the winner's
   * final update, which shows everyone the true points.
   */
  | { readonly type: 'playerUpdated'; readonly player: PlayerSnapshot; readonly publicPoints: number; readonly reveal: boolean };

export type GameEvent = PublicEvent | PrivateEvent;

/** An event as one viewer receives it. */
export type SeenEvent =
  | PublicEvent
  | { readonly type: 'gained'; readonly player: number; readonly resources: ResourceCounts | Hidden; readonly cause: TransferCause }
  | { readonly type: 'paid'; readonly player: number; readonly resources: ResourceCounts | Hidden; readonly cause: TransferCause }
  | { readonly type: 'devCardBought'; readonly player: number; readonly card: DevCard | 'Unbekannt' }
  | { readonly type: 'playerUpdated'; readonly player: SeenPlayer };

export type Viewer = number | 'spectator';

const sum = (r: Readonly<Record<string, number | undefined>>): number => {
  let n = 0;
  for (const v of Object.values(r)) n += v ?? 0;
  return n;
};

/** Censors one player snapshot for someone other than that player. */
export function censorPlayer(player: PlayerSnapshot, publicPoints: number, reveal: boolean): SeenPlayer {
  return {
    ...player,
    points: reveal ? player.points : publicPoints,
    resources: { Unbekannt: sum(player.resources) },
    devCards: { Unbekannt: sum(player.devCards) },
  };
}

/**
 * The event as `viewer` may see it (§2.6): the subject of an Ertrag, Kosten, Statusupdate or
 * purchase sees it in full, everyone else (spectators included) sees counts only. A steal thus
 * shows thief and victim only their own side in clear.
 */
export function censorEvent(event: GameEvent, viewer: Viewer): SeenEvent {
  switch (event.type) {
    case 'gained':
    case 'paid':
      return event.player === viewer ? event : { ...event, resources: { Unbekannt: sum(event.resources) } };
    case 'devCardBought':
      return event.player === viewer ? event : { ...event, card: 'Unbekannt' };
    case 'playerUpdated':
      return {
        type: 'playerUpdated',
        player: event.player.id === viewer ? event.player : censorPlayer(event.player, event.publicPoints, event.reveal),
      };
    default:
      return event;
  }
}
