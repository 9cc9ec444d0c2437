import type { MiaRoundRow, MiaSnapshot } from '../../../../src/games/mia/snapshot.js';
import type { SpectatorEvent } from '../../types.js';

/**
 * Folds Mia's spectator events into the last snapshot so the page moves between snapshots
 * (which the server sends at most every 100 ms). Bookkeeping only: a new round appears, public
 * lines are appended, a finished round moves to the recent list. No rule is decided here.
 */
export function applyMiaEvent(snapshot: MiaSnapshot, event: SpectatorEvent): MiaSnapshot {
  const data =
    typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>) : {};
  switch (event.type) {
    case 'roundStarting': {
      if (typeof data.number !== 'number') return snapshot;
      return { ...snapshot, round: emptyRound(data.number) };
    }
    case 'line': {
      if (typeof data.line !== 'string' || snapshot.round === null) return snapshot;
      return { ...snapshot, round: { ...snapshot.round, log: [...snapshot.round.log, data.line] } };
    }
    case 'roundOver': {
      if (!isRoundRow(event.data)) return snapshot;
      const row = event.data;
      return {
        ...snapshot,
        round: snapshot.round?.number === row.number ? null : snapshot.round,
        recent: [row, ...snapshot.recent.filter((r) => r.number !== row.number)].slice(0, 20),
        roundsPlayed: row.phase === 'over' ? snapshot.roundsPlayed + 1 : snapshot.roundsPlayed,
      };
    }
    default:
      return snapshot;
  }
}

function emptyRound(number: number): MiaRoundRow {
  return {
    number,
    players: [],
    phase: 'joining',
    toAct: null,
    announcements: [],
    log: [],
    losers: [],
    reason: null,
    actual: null,
    matchId: null,
  };
}

function isRoundRow(value: unknown): value is MiaRoundRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Partial<Record<keyof MiaRoundRow, unknown>>;
  return (
    typeof row.number === 'number' &&
    Array.isArray(row.players) &&
    Array.isArray(row.losers) &&
    typeof row.phase === 'string'
  );
}
