/** The Catan rules core: pure, seeded, JSON state; see docs/catan-rules.md. */
export { abort, apply, status, type GameStatus, type Step } from './apply.js';
export {
  CHIPS,
  HARBOUR_SETS,
  SPIRALS,
  boardFromSpec,
  boardTables,
  layChips,
  randomBoard,
  type Board,
  type BoardSpec,
  type Harbour,
  type LandHex,
} from './board.js';
export { MELDUNG, ruleError, type RuleError, type RuleErrorCode } from './errors.js';
export {
  CORNER_NAMES,
  EDGE_NAMES,
  HEX_LETTERS,
  axial,
  canonical,
  parseCorner,
  parseEdge,
  parseLandHex,
} from './geometry.js';
export { legalActions, placementSpots, tradeRates, type LegalActions } from './legal.js';
export { gameProblems, invariantProblems } from './invariants.js';
export { longestRoadHolder, roadLength } from './longest-road.js';
export { COST } from './resources.js';
export { seaRates } from './trade.js';
export {
  BANK_START,
  DECK,
  PIECES,
  WINNING_POINTS,
  newGame,
  seatOf,
  snapshot,
  totalPoints,
  type NewGameOptions,
  type NewPlayer,
  type Phase,
  type Player,
  type State,
  type TradeOffer,
} from './state.js';
export * from './types.js';
