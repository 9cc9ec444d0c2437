/**
 * Evaluation weights (centipawn-like units; an amber is worth `amber`). The defaults were tuned by
 * self-play with bench/ostseeschach-tune.ts; docs/ostseeschach-engine.md records how.
 */
export interface EvalParams {
  /** Value of one amber already scored. */
  readonly amber: number;
  /** Material per piece type, index 0 Herzmuschel, 1 Moewe, 2 Seestern, 3 Robbe. */
  readonly pieceValue: readonly [number, number, number, number];
  /** Extra value of a tower (count 2) over a single piece of the same type. */
  readonly towerBonus: readonly [number, number, number, number];
  /**
   * Advancement of light pieces by distance d = |x − own start line|, d = 0…6 (7 is an amber),
   * as a multiplier per type applied to `advanceCurve[d]`.
   */
  readonly advanceScale: readonly [number, number, number];
  readonly advanceCurve: readonly [number, number, number, number, number, number, number];
  /** Robbe bonus per square of distance from the board edge (knight centralisation). */
  readonly robbeCentre: number;
  /** Robbe bonus for standing in the enemy half (it attacks the start line pieces). */
  readonly robbeAdvance: number;
  /** Bonus per square of the team's furthest light piece (the regular-end tie-break). */
  readonly furthestLight: number;
  /** Bonus per pseudo-legal move. */
  readonly mobility: number;
  /** Bonus for a piece defended by an own piece (recaptures keep towers from being cheap ambers). */
  readonly defended: number;
  /** Penalty for an own tower attacked by an enemy piece (its capture scores an amber). */
  readonly attackedTower: number;
  /** Penalty for a single piece attacked and not defended. */
  readonly hanging: number;
  /** Bonus for a light piece one step from the enemy line that no enemy piece attacks. */
  readonly runner: number;
  /** Side-to-move bonus. */
  readonly tempo: number;
}

export const DEFAULT_PARAMS: EvalParams = {
  amber: 830,
  pieceValue: [75, 77, 138, 103],
  towerBonus: [-13, -20, -1, -22],
  advanceScale: [0.97, 0.77, 1.18],
  advanceCurve: [0, 2, 9, 20, 37, 54, 96],
  robbeCentre: 7,
  robbeAdvance: 5,
  furthestLight: 15,
  mobility: 4,
  defended: 5,
  attackedTower: 55,
  hanging: 20,
  runner: 445,
  tempo: 7,
};
