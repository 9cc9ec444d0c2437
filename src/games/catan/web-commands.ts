import { z } from 'zod';
import { MAX_CHAT_LENGTH } from './protocol.js';
import { COLOURS, RESOURCES } from './rules/index.js';

/**
 * What the browser may send on `/ws/catan/play` (web-views.ts `CatanPlayCommand`), checked for its
 * shape before the codec formats it: a rules `Action` with counts and places of sane size, a
 * name and colour, a chat line. Whether an action is legal is the server's to say.
 */

const count = z.number().int().min(0).max(95);
const counts = z.strictObject(
  Object.fromEntries(RESOURCES.map((r) => [r, count.optional()])) as Record<
    (typeof RESOURCES)[number],
    z.ZodOptional<typeof count>
  >,
);
const place = z.string().min(1).max(3);
const id = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31);

const actionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('roll') }),
  z.strictObject({ type: z.literal('discard'), cards: counts }),
  z.strictObject({ type: z.literal('moveRobber'), hex: place, victim: id.optional() }),
  z.strictObject({ type: z.literal('build'), piece: z.enum(['Strasse', 'Dorf', 'Stadt']), at: place }),
  z.strictObject({ type: z.literal('buyDevCard') }),
  z.strictObject({ type: z.literal('playKnight'), hex: place, victim: id.optional() }),
  z.strictObject({ type: z.literal('playRoadBuilding'), road1: place, road2: place.optional() }),
  z.strictObject({ type: z.literal('playMonopoly'), resource: z.enum(RESOURCES) }),
  z.strictObject({ type: z.literal('playYearOfPlenty'), resources: counts }),
  z.strictObject({ type: z.literal('seaTrade'), offer: counts, request: counts }),
  z.strictObject({ type: z.literal('offerTrade'), offer: counts, request: counts }),
  z.strictObject({ type: z.literal('acceptTrade'), tradeId: id }),
  z.strictObject({ type: z.literal('completeTrade'), tradeId: id, partner: id }),
  z.strictObject({ type: z.literal('cancelTrade'), tradeId: id }),
  z.strictObject({ type: z.literal('endTurn') }),
]);

const name = z.string().trim().min(1).max(40);
const colour = z.enum(COLOURS);

export const commandSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('player'), name, colour }),
  z.strictObject({ type: z.literal('start') }),
  z.strictObject({ type: z.literal('fill'), size: z.union([z.literal(3), z.literal(4)]).optional() }),
  z.strictObject({ type: z.literal('action'), action: actionSchema }),
  z.strictObject({ type: z.literal('chat'), text: z.string().min(1).max(MAX_CHAT_LENGTH) }),
  z.strictObject({ type: z.literal('leave') }),
]);
