import { RESOURCES, type DevCard, type DevCards, type Resource, type ResourceCounts, type Resources } from './types.js';

export const NO_RESOURCES: Resources = { Holz: 0, Lehm: 0, Wolle: 0, Getreide: 0, Erz: 0 };
export const NO_DEV_CARDS: DevCards = { Ritter: 0, Strassenbau: 0, Monopol: 0, Erfindung: 0, Siegpunkt: 0 };

export const COST = {
  Strasse: { Holz: 1, Lehm: 1 },
  Dorf: { Holz: 1, Lehm: 1, Wolle: 1, Getreide: 1 },
  Stadt: { Getreide: 2, Erz: 3 },
  Entwicklungskarte: { Wolle: 1, Getreide: 1, Erz: 1 },
} as const satisfies Record<string, ResourceCounts>;

export const count = (r: ResourceCounts, k: Resource): number => r[k] ?? 0;

// Unrolled: these run several times per action, and keyed loops over RESOURCES cost more.
export function total(r: ResourceCounts): number {
  return (r.Holz ?? 0) + (r.Lehm ?? 0) + (r.Wolle ?? 0) + (r.Getreide ?? 0) + (r.Erz ?? 0);
}

export function devTotal(d: DevCards): number {
  return d.Ritter + d.Strassenbau + d.Monopol + d.Erfindung + d.Siegpunkt;
}

/** Whether every value is a non-negative safe integer (the codec checks shapes, not ranges). */
export function wellFormed(r: ResourceCounts): boolean {
  for (const k of RESOURCES) {
    const v = r[k];
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) return false;
  }
  return true;
}

export function covers(have: Resources, need: ResourceCounts): boolean {
  return (
    have.Holz >= (need.Holz ?? 0) &&
    have.Lehm >= (need.Lehm ?? 0) &&
    have.Wolle >= (need.Wolle ?? 0) &&
    have.Getreide >= (need.Getreide ?? 0) &&
    have.Erz >= (need.Erz ?? 0)
  );
}

export function add(a: Resources, b: ResourceCounts): Resources {
  return {
    Holz: a.Holz + (b.Holz ?? 0),
    Lehm: a.Lehm + (b.Lehm ?? 0),
    Wolle: a.Wolle + (b.Wolle ?? 0),
    Getreide: a.Getreide + (b.Getreide ?? 0),
    Erz: a.Erz + (b.Erz ?? 0),
  };
}

export function subtract(a: Resources, b: ResourceCounts): Resources {
  return {
    Holz: a.Holz - (b.Holz ?? 0),
    Lehm: a.Lehm - (b.Lehm ?? 0),
    Wolle: a.Wolle - (b.Wolle ?? 0),
    Getreide: a.Getreide - (b.Getreide ?? 0),
    Erz: a.Erz - (b.Erz ?? 0),
  };
}

/** The same counts with the zero keys dropped, as events and the wire show them. */
export function compact(r: ResourceCounts): ResourceCounts {
  const out: Partial<Record<Resource, number>> = {};
  for (const k of RESOURCES) {
    const v = r[k] ?? 0;
    if (v !== 0) out[k] = v;
  }
  return out;
}

export const full = (r: ResourceCounts): Resources => add(NO_RESOURCES, r);

export function withDev(d: DevCards, card: DevCard, delta: number): DevCards {
  return { ...d, [card]: d[card] + delta };
}

export const single = (k: Resource, n: number): ResourceCounts => ({ [k]: n });
