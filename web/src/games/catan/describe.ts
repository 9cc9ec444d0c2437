import type { TFunction } from 'i18next';

/**
 * A protocol 0.3 line as a sentence for the game log, in the page's language (`t`); protocol
 * words (Dorf, Strasse, Holz …) stay as the line spells them, marked as terms in English. The line is shown as it came (censored for
 * whoever received it); statuses, OKs and the lobby's chatter are left out (null).
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `Holz 2, Erz 1`, or `3 cards` for a censored `{"Unbekannt":3}`. */
export function cardsText(v: unknown, t: TFunction): string {
  if (!isObj(v)) return '';
  if (typeof v.Unbekannt === 'number') return t('catan.log.cards', { count: v.Unbekannt });
  const parts = Object.entries(v).filter(([, n]) => typeof n === 'number' && n > 0);
  return parts.length === 0
    ? t('catan.log.nothing')
    : parts.map(([k, n]) => `${t('catan.term', { term: k })} ${String(n)}`).join(', ');
}

export interface LogEntry {
  readonly text: string;
  /** For styling: `roll`, `build`, `robber`, `trade`, `card`, `award`, `chat`, `end`, `error`, `cards`. */
  readonly kind: string;
}

export function describeLine(line: string, nameOf: (id: number) => string, t: TFunction): LogEntry | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObj(parsed)) return null;
  const [type] = Object.keys(parsed);
  if (type === undefined) return null;
  const body = parsed[type];
  if (type === 'Fehler' && isObj(body))
    return { text: t('catan.log.error', { message: str(body.Meldung) }), kind: 'error' };
  if (!isObj(body)) return null;
  const who = (key = 'Spieler'): string => {
    const id = num(body[key]);
    return id === null ? t('catan.log.someone') : nameOf(id);
  };
  switch (type) {
    case 'Spiel gestartet':
      return { text: t('catan.log.started'), kind: 'end' };
    case 'Spiel beendet':
      return { text: str(body.Nachricht), kind: 'end' };
    case 'Wuerfelwurf': {
      const dice = Array.isArray(body.Wurf) ? (body.Wurf as unknown[]).map((d) => num(d) ?? 0) : [];
      return {
        text: t('catan.log.rolled', {
          who: who(),
          dice: dice.join(' + '),
          sum: dice.reduce((a, b) => a + b, 0),
        }),
        kind: 'roll',
      };
    }
    case 'Ertrag':
      return {
        text: t('catan.log.gets', { who: who(), cards: cardsText(body.Rohstoffe, t) }),
        kind: 'cards',
      };
    case 'Kosten':
      return {
        text: t('catan.log.givesUp', { who: who(), cards: cardsText(body.Rohstoffe, t) }),
        kind: 'cards',
      };
    case 'Raeuber versetzt':
      return {
        text:
          num(body.Ziel) === null
            ? t('catan.log.robber', { who: who(), place: str(body.Ort) })
            : t('catan.log.robberRobbing', { who: who(), place: str(body.Ort), victim: who('Ziel') }),
        kind: 'robber',
      };
    case 'Bauvorgang': {
      const g = isObj(body.Gebaeude) ? body.Gebaeude : {};
      const owner = num(g.Eigentuemer);
      return {
        text: t('catan.log.built', {
          who: owner === null ? t('catan.log.someone') : nameOf(owner),
          piece: str(g.Typ),
          place: str(g.Ort),
        }),
        kind: 'build',
      };
    }
    case 'Entwicklungskarte gekauft': {
      const card = str(body.Entwicklungskarte);
      return {
        text:
          card === 'Unbekannt'
            ? t('catan.log.boughtCard', { who: who() })
            : t('catan.log.boughtThisCard', { who: who(), card }),
        kind: 'card',
      };
    }
    case 'Laengste Handelsstrasse':
      return {
        text:
          num(body.Spieler) === null
            ? t('catan.log.noLongestRoad')
            : t('catan.log.longestRoad', { who: who() }),
        kind: 'award',
      };
    case 'Groesste Rittermacht':
      return { text: t('catan.log.largestArmy', { who: who() }), kind: 'award' };
    case 'Handelsangebot':
      return {
        text: t('catan.log.offers', {
          who: who(),
          offer: cardsText(body.Angebot, t),
          request: cardsText(body.Nachfrage, t),
          id: String(num(body['Handel id'])),
        }),
        kind: 'trade',
      };
    case 'Handelsangebot angenommen':
      return {
        text: t('catan.log.accepts', { who: who(), id: String(num(body['Handel id'])) }),
        kind: 'trade',
      };
    case 'Handel ausgefuehrt':
      return {
        text: t('catan.log.traded', {
          who: who(),
          other: who('Mitspieler'),
          id: String(num(body['Handel id'])),
        }),
        kind: 'trade',
      };
    case 'Handelsangebot abgebrochen':
      return {
        text: t('catan.log.withdraws', { who: who(), id: String(num(body['Handel id'])) }),
        kind: 'trade',
      };
    case 'Ritter ausspielen':
      return {
        text:
          num(body.Ziel) === null
            ? t('catan.log.knight', { who: who(), place: str(body.Ort) })
            : t('catan.log.knightRobbing', { who: who(), place: str(body.Ort), victim: who('Ziel') }),
        kind: 'card',
      };
    case 'Strassenbaukarte ausspielen':
      return {
        text: t('catan.log.roadBuilding', {
          who: who(),
          roads: [str(body['Strasse 1']), str(body['Strasse 2'])].filter((r) => r !== '').join(', '),
        }),
        kind: 'card',
      };
    case 'Monopol':
      return { text: t('catan.log.monopoly', { who: who(), resource: str(body.Rohstoff) }), kind: 'card' };
    case 'Erfindung':
      return {
        text: t('catan.log.invention', { who: who(), cards: cardsText(body.Rohstoffe, t) }),
        kind: 'card',
      };
    case 'Chatnachricht':
      return {
        text: `${num(body.Absender) === null ? t('catan.log.server') : who('Absender')}: ${str(body.Nachricht)}`,
        kind: 'chat',
      };
    case 'Statusupdate': {
      const p = isObj(body.Spieler) ? body.Spieler : {};
      const id = num(p.id);
      return str(p.Status) === 'Verbindung verloren'
        ? {
            text: t('catan.log.lostConnection', { who: id === null ? t('catan.log.someone') : nameOf(id) }),
            kind: 'end',
          }
        : null;
    }
    default:
      return null;
  }
}
