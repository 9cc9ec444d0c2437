/**
 * The vocabulary of the rules core. Values are the protocol's own words (resources, statuses,
 * terrain, cards), so the codec maps them 1:1; keys and type names are English.
 */

export const RESOURCES = ['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz'] as const;
export type Resource = (typeof RESOURCES)[number];
/** A full hand or bank: all five keys. */
export type Resources = Readonly<Record<Resource, number>>;
/** A Rohstoffe object as a client sends it: keys with 0 may be missing. */
export type ResourceCounts = Readonly<Partial<Record<Resource, number>>>;

export const DEV_CARDS = ['Ritter', 'Strassenbau', 'Monopol', 'Erfindung', 'Siegpunkt'] as const;
export type DevCard = (typeof DEV_CARDS)[number];
export type DevCards = Readonly<Record<DevCard, number>>;

/** The censored form of a Rohstoffe or Entwicklungskarten object (§2.6). */
export interface Hidden {
  readonly Unbekannt: number;
}

export const TERRAINS = ['Ackerland', 'Hügelland', 'Weideland', 'Wald', 'Gebirge', 'Wüste'] as const;
export type Terrain = (typeof TERRAINS)[number];
export type FieldType = Terrain | 'Meer';

export const YIELD: Readonly<Record<Terrain, Resource | null>> = {
  Wald: 'Holz',
  Hügelland: 'Lehm',
  Weideland: 'Wolle',
  Ackerland: 'Getreide',
  Gebirge: 'Erz',
  Wüste: null,
};

export type HarbourType = 'Hafen' | `${Resource} Hafen`;
export const HARBOUR_TYPES: readonly HarbourType[] = ['Hafen', 'Holz Hafen', 'Lehm Hafen', 'Wolle Hafen', 'Getreide Hafen', 'Erz Hafen'];

export const COLOURS = ['Rot', 'Orange', 'Blau', 'Weiss'] as const;
export type Colour = (typeof COLOURS)[number];

/** catan.md §2.4, exactly as the wire spells them. */
export type Status =
  | 'Spiel starten'
  | 'Wartet auf Spielbeginn'
  | 'Dorf bauen'
  | 'Strasse bauen'
  | 'Wuerfeln'
  | 'Karten wegen Raeuber abgeben'
  | 'Raeuber versetzen'
  | 'Handeln oder Bauen'
  | 'Warten'
  | 'Verbindung verloren';

export type Piece = 'Strasse' | 'Dorf' | 'Stadt';

/** The client's in-game messages as values (catan.md §2.5), one variant per message type. */
export type Action =
  /** `Wuerfeln`. `dice` fixes the roll for replays of recorded games and scripted tests; never from the wire. */
  | { readonly type: 'roll'; readonly dice?: readonly [number, number] }
  /** `Karten abgeben`. */
  | { readonly type: 'discard'; readonly cards: ResourceCounts }
  /** `Raeuber versetzen`: `hex` is the `Ort`, `victim` the `Ziel`. */
  | { readonly type: 'moveRobber'; readonly hex: string; readonly victim?: number }
  /** `Bauen`: `at` is the `Ort`, letters in any order. */
  | { readonly type: 'build'; readonly piece: Piece; readonly at: string }
  /** `Entwicklungskarte kaufen`. */
  | { readonly type: 'buyDevCard' }
  /** `Ritter ausspielen`. */
  | { readonly type: 'playKnight'; readonly hex: string; readonly victim?: number }
  /** `Strassenbaukarte ausspielen`: `Strasse 1`, `Strasse 2`. */
  | { readonly type: 'playRoadBuilding'; readonly road1: string; readonly road2?: string }
  /** `Monopol`. */
  | { readonly type: 'playMonopoly'; readonly resource: Resource }
  /** `Erfindung`. */
  | { readonly type: 'playYearOfPlenty'; readonly resources: ResourceCounts }
  /** `Seehandel`: `Angebot`, `Nachfrage`. */
  | { readonly type: 'seaTrade'; readonly offer: ResourceCounts; readonly request: ResourceCounts }
  /** `Handel anbieten`. */
  | { readonly type: 'offerTrade'; readonly offer: ResourceCounts; readonly request: ResourceCounts }
  /** `Handel annehmen`. */
  | { readonly type: 'acceptTrade'; readonly tradeId: number }
  /** `Handel abschliessen`: `partner` is the `Mitspieler`. */
  | { readonly type: 'completeTrade'; readonly tradeId: number; readonly partner: number }
  /** `Handel abbrechen`: withdraws an offer (offerer) or an acceptance / declines (anyone else). */
  | { readonly type: 'cancelTrade'; readonly tradeId: number }
  /** `Zug beenden`. */
  | { readonly type: 'endTurn' };

export type ActionType = Action['type'];
