/**
 * A protocol 0.3 line as a sentence for the game log. The line is shown as it came (censored for
 * whoever received it); statuses, OKs and the lobby's chatter are left out (null).
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `Holz 2, Erz 1`, or `3 cards` for a censored `{"Unbekannt":3}`. */
export function cardsText(v: unknown): string {
  if (!isObj(v)) return '';
  if (typeof v.Unbekannt === 'number') return `${v.Unbekannt} card${v.Unbekannt === 1 ? '' : 's'}`;
  const parts = Object.entries(v).filter(([, n]) => typeof n === 'number' && n > 0);
  return parts.length === 0 ? 'nothing' : parts.map(([k, n]) => `${k} ${String(n)}`).join(', ');
}

export interface LogEntry {
  readonly text: string;
  /** For styling: `roll`, `build`, `robber`, `trade`, `card`, `award`, `chat`, `end`, `error`, `cards`. */
  readonly kind: string;
}

export function describeLine(line: string, nameOf: (id: number) => string): LogEntry | null {
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
  if (type === 'Fehler' && isObj(body)) return { text: `Fehler: ${str(body.Meldung)}`, kind: 'error' };
  if (!isObj(body)) return null;
  const who = (key = 'Spieler'): string => {
    const id = num(body[key]);
    return id === null ? 'someone' : nameOf(id);
  };
  switch (type) {
    case 'Spiel gestartet':
      return { text: 'The game started.', kind: 'end' };
    case 'Spiel beendet':
      return { text: str(body.Nachricht), kind: 'end' };
    case 'Wuerfelwurf': {
      const dice = Array.isArray(body.Wurf) ? (body.Wurf as unknown[]).map((d) => num(d) ?? 0) : [];
      return {
        text: `${who()} rolled ${dice.join(' + ')} = ${dice.reduce((a, b) => a + b, 0)}`,
        kind: 'roll',
      };
    }
    case 'Ertrag':
      return { text: `${who()} gets ${cardsText(body.Rohstoffe)}`, kind: 'cards' };
    case 'Kosten':
      return { text: `${who()} gives up ${cardsText(body.Rohstoffe)}`, kind: 'cards' };
    case 'Raeuber versetzt':
      return {
        text: `${who()} moved the robber to ${str(body.Ort)}${num(body.Ziel) === null ? '' : `, robbing ${who('Ziel')}`}`,
        kind: 'robber',
      };
    case 'Bauvorgang': {
      const g = isObj(body.Gebaeude) ? body.Gebaeude : {};
      const owner = num(g.Eigentuemer);
      return {
        text: `${owner === null ? 'someone' : nameOf(owner)} built a ${str(g.Typ)} at ${str(g.Ort)}`,
        kind: 'build',
      };
    }
    case 'Entwicklungskarte gekauft': {
      const card = str(body.Entwicklungskarte);
      return {
        text: `${who()} bought a development card${card === 'Unbekannt' ? '' : ` (${card})`}`,
        kind: 'card',
      };
    }
    case 'Laengste Handelsstrasse':
      return {
        text:
          num(body.Spieler) === null
            ? 'Nobody holds the longest road now'
            : `${who()} now holds the longest road`,
        kind: 'award',
      };
    case 'Groesste Rittermacht':
      return { text: `${who()} now holds the largest army`, kind: 'award' };
    case 'Handelsangebot':
      return {
        text: `${who()} offers ${cardsText(body.Angebot)} for ${cardsText(body.Nachfrage)} (offer ${String(num(body['Handel id']))})`,
        kind: 'trade',
      };
    case 'Handelsangebot angenommen':
      return { text: `${who()} accepts offer ${String(num(body['Handel id']))}`, kind: 'trade' };
    case 'Handel ausgefuehrt':
      return {
        text: `${who()} and ${who('Mitspieler')} trade (offer ${String(num(body['Handel id']))})`,
        kind: 'trade',
      };
    case 'Handelsangebot abgebrochen':
      return { text: `${who()} withdraws from offer ${String(num(body['Handel id']))}`, kind: 'trade' };
    case 'Ritter ausspielen':
      return {
        text: `${who()} plays a knight: robber to ${str(body.Ort)}${num(body.Ziel) === null ? '' : `, robbing ${who('Ziel')}`}`,
        kind: 'card',
      };
    case 'Strassenbaukarte ausspielen':
      return {
        text: `${who()} plays road building: ${[str(body['Strasse 1']), str(body['Strasse 2'])].filter((r) => r !== '').join(' and ')}`,
        kind: 'card',
      };
    case 'Monopol':
      return { text: `${who()} plays monopoly on ${str(body.Rohstoff)}`, kind: 'card' };
    case 'Erfindung':
      return { text: `${who()} plays year of plenty: ${cardsText(body.Rohstoffe)}`, kind: 'card' };
    case 'Chatnachricht':
      return {
        text: `${num(body.Absender) === null ? 'Server' : who('Absender')}: ${str(body.Nachricht)}`,
        kind: 'chat',
      };
    case 'Statusupdate': {
      const p = isObj(body.Spieler) ? body.Spieler : {};
      const id = num(p.id);
      return str(p.Status) === 'Verbindung verloren'
        ? { text: `${id === null ? 'someone' : nameOf(id)} lost the connection`, kind: 'end' }
        : null;
    }
    default:
      return null;
  }
}
