/**
 * Every way an action can be refused: a machine-readable code and the exact `Meldung` the server
 * sends in `Fehler` (catan.md §3 "Errors"). Several codes share a text where the spec's list has
 * one text for several causes; the code says which cause it was.
 */

export const MELDUNG = {
  'unknown-player': 'Ungueltige Nachricht',
  'invalid-message': 'Ungueltige Nachricht',
  'second-road-required': 'Ungueltige Nachricht',
  'not-your-turn': 'Nicht am Zug',
  'wrong-status': 'Aktion im aktuellen Status nicht erlaubt',
  'game-over': 'Aktion im aktuellen Status nicht erlaubt',
  'invalid-place': 'Ungueltiger Ort',
  'robber-not-moved': 'Ungueltiger Ort',
  'no-settlement-to-upgrade': 'Ungueltiger Ort',
  occupied: 'Ort bereits belegt',
  'distance-rule': 'Abstandsregel verletzt',
  'not-connected': 'Keine Verbindung',
  'no-road-spot': 'Keine Verbindung',
  'not-enough-resources': 'Nicht genug Rohstoffe',
  'no-pieces': 'Keine Bauteile mehr',
  'bank-short': 'Bank hat nicht genug Rohstoffe',
  'deck-empty': 'Keine Entwicklungskarten mehr',
  'card-not-playable': 'Karte nicht spielbar',
  'wrong-card-count': 'Falsche Anzahl Karten',
  'invalid-target': 'Ungueltiges Ziel',
  'invalid-trade': 'Ungueltiger Handel',
  'trade-not-found': 'Handel nicht gefunden',
} as const;

export type RuleErrorCode = keyof typeof MELDUNG;

export interface RuleError {
  readonly code: RuleErrorCode;
  /** The exact `Meldung` text for `{"Fehler":{"Meldung":…}}`. */
  readonly message: (typeof MELDUNG)[RuleErrorCode];
}

export const ruleError = (code: RuleErrorCode): RuleError => ({ code, message: MELDUNG[code] });
