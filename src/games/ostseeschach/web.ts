import type { FastifyInstance } from 'fastify';
import type { Records } from '../../core/record-backend.js';
import { replayOstseeschachMatch } from './replay.js';

/**
 * The dashboard's own Ostseeschach route: a recorded game as one board per turn
 * (`/api/ostseeschach/replay/<match-id>`), computed by the rules core so the browser only draws.
 * The live rooms come through the generic snapshot and spectator socket. A record that makes the
 * replay fail is a 500 for that request (logged with its stack), never more.
 */
export function registerOstseeschachWebRoutes(app: FastifyInstance, store: Records): void {
  app.get<{ Params: { id: string } }>('/api/ostseeschach/replay/:id', async (request, reply) => {
    try {
      const match = await store.getMatch(request.params.id);
      if (match?.game !== 'ostseeschach') return await reply.code(404).send({ error: `no Ostseeschach match with id ${request.params.id}` });
      const replay = replayOstseeschachMatch(match);
      if (!replay) return await reply.code(422).send({ error: 'this match started from a position without a layout and cannot be replayed' });
      return await reply.send(replay);
    } catch (err) {
      request.log.error({ err, match: request.params.id }, 'ostseeschach replay: internal error');
      return reply.code(500).send({ error: 'internal error' });
    }
  });
}
