import type { Harbour } from './rules/board.js';
import type { Action, Colour, DevCard, DevCards, FieldType, Hidden, Piece, Resource, ResourceCounts, Resources, Status } from './rules/types.js';

/**
 * The messages of protocol 0.3 as typed values, without their spelling: what the codec
 * (protocol.ts, protocol-server.ts) reads and writes. A module of its own so that the readers of
 * server messages (protocol-server.ts) need not import the codec that re-exports them.
 */

export type ClientMessage =
  | { readonly type: 'hello'; readonly version: string }
  /** `Spieler`: the name as sent, the colour in ASCII if it is one; the lobby judges both. */
  | { readonly type: 'player'; readonly name: string; readonly colour: string }
  | { readonly type: 'startGame' }
  | { readonly type: 'chat'; readonly text: string }
  | { readonly type: 'action'; readonly action: Action };

/** A Spieler object; `name` and `colour` are absent until the player has set them. */
export interface WirePlayer {
  readonly id: number;
  readonly colour?: Colour;
  readonly name?: string;
  readonly status: Status;
  readonly points: number;
  readonly resources: Resources | Hidden;
  readonly knights: number;
  readonly devCards: DevCards | Hidden;
}

export interface WireField {
  readonly at: string;
  readonly type: FieldType;
  readonly number: number | null;
}

export interface WireBuilding {
  readonly owner: number;
  readonly piece: Piece;
  readonly at: string;
}

/** A Karte. */
export interface WireMap {
  readonly fields: readonly WireField[];
  readonly buildings: readonly WireBuilding[];
  readonly harbours: readonly Harbour[];
  readonly robber: string;
}

export type ServerMessage =
  | { readonly type: 'hello'; readonly version: string; readonly protocol: string }
  | { readonly type: 'welcome'; readonly id: number }
  | { readonly type: 'gameStarted'; readonly map: WireMap }
  | { readonly type: 'gameOver'; readonly message: string; readonly winner?: number }
  /** `Serverantwort`: `OK`, or from other servers any other text, which clients treat as an error. */
  | { readonly type: 'answer'; readonly text: string }
  | { readonly type: 'error'; readonly message: string }
  | { readonly type: 'chat'; readonly sender?: number; readonly text: string }
  | { readonly type: 'status'; readonly player: WirePlayer }
  | { readonly type: 'rolled'; readonly player: number; readonly dice: readonly [number, number] }
  | { readonly type: 'gained'; readonly player: number; readonly resources: ResourceCounts | Hidden }
  | { readonly type: 'paid'; readonly player: number; readonly resources: ResourceCounts | Hidden }
  | { readonly type: 'robberMoved'; readonly player: number; readonly hex: string; readonly victim?: number }
  | { readonly type: 'built'; readonly player: number; readonly piece: Piece; readonly at: string }
  | { readonly type: 'devCardBought'; readonly player: number; readonly card: DevCard | 'Unbekannt' }
  | { readonly type: 'longestRoad'; readonly player: number | null }
  | { readonly type: 'largestArmy'; readonly player: number }
  | {
      readonly type: 'tradeOffered';
      readonly player: number;
      readonly tradeId: number;
      readonly offer: ResourceCounts;
      readonly request: ResourceCounts;
    }
  | { readonly type: 'tradeAccepted'; readonly player: number; readonly tradeId: number }
  | { readonly type: 'tradeCompleted'; readonly tradeId: number; readonly player: number; readonly partner: number }
  | { readonly type: 'tradeCancelled'; readonly player: number; readonly tradeId: number }
  | { readonly type: 'knightPlayed'; readonly player: number; readonly hex: string; readonly victim?: number }
  | { readonly type: 'roadBuildingPlayed'; readonly player: number; readonly road1: string; readonly road2?: string }
  | { readonly type: 'monopolyPlayed'; readonly player: number; readonly resource: Resource }
  | { readonly type: 'yearOfPlentyPlayed'; readonly player: number; readonly resources: ResourceCounts };
