import type { ComponentType } from 'react';
import { CatanPage } from './catan/CatanPage.js';
import { Connect4Page } from './connect4/Connect4Page.js';
import { DamePage } from './dame/DamePage.js';
import { MiaLive } from './mia/MiaLive.js';
import { OstseeschachPage } from './ostseeschach/OstseeschachPage.js';

/**
 * The live page of each game (its menu label a message key). Adding a game's page is adding one entry here; a game without an
 * entry still gets the generic live view (its raw snapshot).
 */
export const livePages: ReadonlyMap<string, { labelKey: string; Page: ComponentType }> = new Map([
  ['catan', { labelKey: 'nav.catan', Page: CatanPage }],
  ['mia', { labelKey: 'nav.mia', Page: MiaLive }],
  ['connect4', { labelKey: 'nav.connect4', Page: Connect4Page }],
  ['dame', { labelKey: 'nav.dame', Page: DamePage }],
  ['ostseeschach', { labelKey: 'nav.ostseeschach', Page: OstseeschachPage }],
]);
