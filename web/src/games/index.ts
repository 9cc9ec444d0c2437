import type { ComponentType } from 'react';
import { CatanPage } from './catan/CatanPage.js';
import { Connect4Page } from './connect4/Connect4Page.js';
import { DamePage } from './dame/DamePage.js';
import { MiaLive } from './mia/MiaLive.js';
import { OstseeschachPage } from './ostseeschach/OstseeschachPage.js';

/**
 * The live page of each game. Adding a game's page is adding one entry here; a game without an
 * entry still gets the generic live view (its raw snapshot).
 */
export const livePages: ReadonlyMap<string, { label: string; Page: ComponentType }> = new Map([
  ['catan', { label: 'Catan', Page: CatanPage }],
  ['mia', { label: 'Mia live', Page: MiaLive }],
  ['connect4', { label: '4 Gewinnt', Page: Connect4Page }],
  ['dame', { label: 'Dame', Page: DamePage }],
  ['ostseeschach', { label: 'Ostseeschach', Page: OstseeschachPage }],
]);
