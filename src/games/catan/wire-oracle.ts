import type { GameEvent, SeenEvent } from './events.js';
import type { Delivery, HistoryEntry } from './leak-oracle.js';
import { parseServer, type ServerMessage } from './protocol.js';

/**
 * The leak oracle (leak-oracle.ts) judges events; this turns what a client really received, its
 * wire lines, back into events so the oracle can judge the wire. Lines are parsed with the codec,
 * OK, Fehler and chat are left out, and the k-th game message is lined up with the k-th event of
 * the server's full history: the content comes from the wire, the history only says which event a
 * message stands for (and a transfer's cause, which is not on the wire). A message out of line is a
 * problem in itself (wrong order or a missing message, §2.7).
 */

/** Which wire message type each event becomes. */
const WIRE_TYPE: Readonly<Record<GameEvent['type'], ServerMessage['type']>> = {
  gameStarted: 'gameStarted',
  rolled: 'rolled',
  robberMoved: 'robberMoved',
  built: 'built',
  knightPlayed: 'knightPlayed',
  roadBuildingPlayed: 'roadBuildingPlayed',
  monopolyPlayed: 'monopolyPlayed',
  yearOfPlentyPlayed: 'yearOfPlentyPlayed',
  longestRoad: 'longestRoad',
  largestArmy: 'largestArmy',
  tradeOffered: 'tradeOffered',
  tradeAccepted: 'tradeAccepted',
  tradeCompleted: 'tradeCompleted',
  tradeCancelled: 'tradeCancelled',
  gameWon: 'gameOver',
  gameAborted: 'gameOver',
  gained: 'gained',
  paid: 'paid',
  devCardBought: 'devCardBought',
  playerUpdated: 'status',
};

/**
 * One viewer's lines as oracle deliveries: the game messages in order (OK, Fehler and chat left
 * out), the k-th message taken as the k-th event of the history. The content comes from the wire;
 * the history only says which event a message answers to (and a transfer's cause, which is not on
 * the wire). A message out of line is reported as a problem.
 */
export function wireDeliveries(history: readonly HistoryEntry[], lines: readonly string[]): { deliveries: Delivery[]; problems: string[] } {
  const problems: string[] = [];
  const start = lines.findIndex((l) => l.startsWith('{"Spiel gestartet"'));
  const messages: { m: ServerMessage; line: string }[] = [];
  for (const line of start < 0 ? [] : lines.slice(start)) {
    const parsed = parseServer(line);
    if (!parsed.ok) {
      problems.push(`unreadable: ${line.slice(0, 80)}`);
      continue;
    }
    const m = parsed.value;
    if (m.type === 'answer' || m.type === 'error' || m.type === 'chat') continue;
    messages.push({ m, line });
  }
  let k = 0;
  const deliveries = history.map((entry, at): Delivery => {
    const events: SeenEvent[] = [];
    const raw: string[] = [];
    for (const truth of entry.events) {
      const next = messages[k++];
      if (!next) {
        problems.push(`entry ${at}: no message for ${truth.type}`);
        continue;
      }
      raw.push(next.line);
      if (next.m.type !== WIRE_TYPE[truth.type]) {
        problems.push(`entry ${at}: ${next.m.type} where ${truth.type} was due`);
        continue;
      }
      events.push(seen(next.m, truth));
    }
    // The raw text goes along so that the oracle's search for the deck and the RNG sees every byte.
    return { events, lines: raw } as Delivery;
  });
  if (k < messages.length) problems.push(`${messages.length - k} messages more than events`);
  return { deliveries, problems };
}

function seen(m: ServerMessage, truth: GameEvent): SeenEvent {
  switch (m.type) {
    case 'status': {
      const p = m.player;
      return { type: 'playerUpdated', player: { id: p.id, name: p.name ?? '', colour: p.colour ?? 'Rot', status: p.status, points: p.points, resources: p.resources, knights: p.knights, devCards: p.devCards } };
    }
    case 'gained':
    case 'paid':
      return { type: m.type, player: m.player, resources: m.resources, cause: truth.type === m.type ? truth.cause : 'production' };
    case 'gameStarted':
    case 'gameOver':
      // Public; their text is in the delivery's raw lines for the oracle to search.
      return truth;
    default:
      return m as SeenEvent;
  }
}
