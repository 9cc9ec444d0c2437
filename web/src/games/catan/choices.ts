import type { TFunction } from 'i18next';
import type { LegalActions } from '../../../../src/games/catan/rules/legal.js';
import type { Action, Resource, ResourceCounts } from '../../../../src/games/catan/rules/types.js';
import type { Spots } from './Board.js';

/**
 * The person's choices, sorted out of the legal actions the gateway sent: which spots of the
 * board to offer in each mode, and which action a click on one of them means. Nothing here
 * decides legality; it only finds the listed action that matches a click.
 */

export const RESOURCE_LIST: readonly Resource[] = ['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz'];

/** `default`: builds and robber moves; `knight`: where to send the robber with a Ritter; `roads`: the two roads of Strassenbau. */
export type Mode =
  | { readonly kind: 'default' }
  | { readonly kind: 'knight' }
  | { readonly kind: 'roads'; readonly first: string | null };

export type RobberAction = Extract<Action, { type: 'moveRobber' | 'playKnight' }>;
export type RoadBuilding = Extract<Action, { type: 'playRoadBuilding' }>;

export const of = <T extends Action['type']>(
  legal: LegalActions | null,
  type: T,
): Extract<Action, { type: T }>[] =>
  (legal?.actions ?? []).filter((a): a is Extract<Action, { type: T }> => a.type === type);

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/** Robber moves for the mode: a 7's in `Raeuber versetzen`, a Ritter's in knight mode. */
export function robberMoves(legal: LegalActions | null, mode: Mode): RobberAction[] {
  if (mode.kind === 'knight') return of(legal, 'playKnight');
  return legal?.status === 'Raeuber versetzen' ? of(legal, 'moveRobber') : [];
}

/** The roads of a Strassenbau play that can still go with `first` (or all of them). */
export function roadChoices(
  legal: LegalActions | null,
  first: string | null,
): { edges: string[]; single: RoadBuilding | null } {
  const plays = of(legal, 'playRoadBuilding');
  if (first === null)
    return {
      edges: unique(plays.flatMap((p) => (p.road2 === undefined ? [p.road1] : [p.road1, p.road2]))),
      single: null,
    };
  const partners = plays.flatMap((p) =>
    p.road1 === first && p.road2 !== undefined ? [p.road2] : p.road2 === first ? [p.road1] : [],
  );
  return {
    edges: unique(partners),
    single: plays.find((p) => p.road1 === first && p.road2 === undefined) ?? null,
  };
}

export function spotsFor(legal: LegalActions | null, mode: Mode): Spots {
  if (!legal) return {};
  if (mode.kind === 'roads') return { edges: roadChoices(legal, mode.first).edges };
  const robber = robberMoves(legal, mode);
  if (robber.length > 0 || mode.kind === 'knight') return { hexes: unique(robber.map((a) => a.hex)) };
  const builds = of(legal, 'build');
  return {
    corners: builds.filter((b) => b.piece !== 'Strasse').map((b) => b.at),
    edges: builds.filter((b) => b.piece === 'Strasse').map((b) => b.at),
  };
}

/** The Strassenbau play with these two roads, in whichever order the rules listed it. */
export function roadPair(legal: LegalActions | null, a: string, b: string): RoadBuilding | null {
  return (
    of(legal, 'playRoadBuilding').find(
      (p) => (p.road1 === a && p.road2 === b) || (p.road1 === b && p.road2 === a),
    ) ?? null
  );
}

/** `2 Holz, 1 Erz` (resource names are protocol words, marked as terms in English). */
export function countsText(c: ResourceCounts, t: TFunction): string {
  const parts = RESOURCE_LIST.filter((r) => (c[r] ?? 0) > 0).map(
    (r) => `${c[r] ?? 0} ${t('catan.term', { term: r })}`,
  );
  return parts.length === 0 ? t('catan.log.nothing') : parts.join(', ');
}

export const total = (c: ResourceCounts): number => RESOURCE_LIST.reduce((n, r) => n + (c[r] ?? 0), 0);

/** Drops zero counts (the wire may omit them, and a trade must not mention a type it does not move). */
export function nonZero(c: Readonly<Record<Resource, number>>): ResourceCounts {
  const out: Partial<Record<Resource, number>> = {};
  for (const r of RESOURCE_LIST) if (c[r] > 0) out[r] = c[r];
  return out;
}
