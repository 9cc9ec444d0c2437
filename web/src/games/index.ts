import type { ComponentType } from 'react';
import { MiaLive } from './mia/MiaLive.js';

/**
 * The live page of each game. Adding a game's page is adding one entry here; a game without an
 * entry still gets the generic live view (its raw snapshot).
 */
export const livePages: ReadonlyMap<string, { label: string; Page: ComponentType }> = new Map([
  ['mia', { label: 'Mia', Page: MiaLive }],
]);
