import type { TFunction } from 'i18next';
import type { Team } from '../../../../src/games/ostseeschach/board.js';
import type { ScoreEntry } from '../../../../src/games/ostseeschach/protocol.js';
import type { OstseeschachSeatRow } from '../../../../src/games/ostseeschach/snapshot.js';

/** Words for results and seats; every value shown comes from the server's result. */

export const playerName = (team: Team, name: string): string => (name === '' ? team : `${name} (${team})`);

export function seatText(seat: OstseeschachSeatRow | undefined, team: Team, t: TFunction): string {
  if (!seat) return t('ost.seat.open', { who: team });
  const who = seat.name === '' ? team : seat.name;
  if (seat.left !== null) return t('ost.seat.left', { who, why: seat.left });
  if (seat.address === null) return seat.reserved ? t('ost.seat.reserved', { who }) : t('ost.seat.open', { who });
  return `${who} @ ${seat.address}`;
}

/**
 * The outcome in Siegpunkte: the `<winner>` when the server names one; otherwise the points
 * tell (a timeout has no `<winner>` but gives 2 : 0), and 1 : 1 is a draw.
 */
export function resultText(scores: readonly ScoreEntry[], winner: Team | null, t: TFunction): string {
  const [one, two] = scores;
  if (!one || !two) return t('ost.result.none');
  const points = `(${one.parts[0] ?? 0} : ${two.parts[0] ?? 0})`;
  const by = winner ?? (one.parts[0] === 2 ? 'ONE' : two.parts[0] === 2 ? 'TWO' : null);
  if (by !== null) {
    const entry = by === 'ONE' ? one : two;
    return t('ost.result.wins', { who: playerName(by, entry.name), points });
  }
  if (one.parts[0] === 1 && two.parts[0] === 1) return t('ost.result.draw', { points });
  return t('ost.result.noWinner', { points });
}

/** `ONE: RULE_VIOLATION – <reason>`; REGULAR entries without a reason are left out. */
export function causesText(scores: readonly ScoreEntry[]): string {
  const parts = scores.filter((s) => s.cause !== 'REGULAR' || s.reason !== '').map((s) => `${s.team}: ${s.cause}${s.reason === '' ? '' : ` – ${s.reason}`}`);
  return parts.length === 0 ? 'REGULAR' : parts.join('; ');
}

/** Siegpunkte / Bernsteine / Leichtfiguren Vorne of each team. */
export const partsText = (scores: readonly ScoreEntry[]): string => scores.map((s) => `${s.team} ${s.parts.join('/')}`).join(' · ');
