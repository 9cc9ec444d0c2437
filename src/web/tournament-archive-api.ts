import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Logger } from '../core/log.js';
import type { Records } from '../core/record-backend.js';
import { writeArchive, writeArchiveFile } from '../tournament/archive.js';

/**
 * A tournament's archive and deletion from the dashboard (issue 37), beside `tournament archive |
 * delete` on the command line:
 * - `GET /api/tournaments/:id/archive`: the archive file as a download (the one written when it was
 *   archived, when there is one: retention may have taken records since; else made now).
 * - `POST /api/tournaments/:id/archive` `{confirm: id}`: writes `<dataDir>/archives/<id>.tournament.jsonl.gz`
 *   and marks the tournament archived (retention may take its records from then on).
 * - `POST /api/tournaments/:id/delete` `{confirm: id}`: deletes it with every game record of it.
 * Both changes need the tournament's id typed back (the page asks for it) and are refused while it runs.
 */

const confirmBody = z.strictObject({ confirm: z.string() });

export function registerTournamentArchiveRoutes(app: FastifyInstance, o: { store: Records; log: Logger; dataDir?: string | undefined }): void {
  const { store, log } = o;
  const fileOf = (id: string): string | null => (o.dataDir === undefined ? null : join(o.dataDir, 'archives', `${id}.tournament.jsonl.gz`));
  const attachment = (id: string) => ({
    'content-type': 'application/gzip',
    'content-disposition': `attachment; filename="${id}.tournament.jsonl.gz"`,
  });

  /** The tournament, or a reply sent (404, 400 without the confirmation, 409 while running). */
  async function changeable(id: string, body: unknown, reply: { code(n: number): { send(b: unknown): unknown } }) {
    const t = await store.getTournament(id);
    if (!t) {
      reply.code(404).send({ error: `no tournament ${id}` });
      return null;
    }
    const parsed = confirmBody.safeParse(body ?? {});
    if (!parsed.success || parsed.data.confirm !== id) {
      reply.code(400).send({ error: `confirm with the tournament's id: {"confirm": "${id}"}` });
      return null;
    }
    if (t.status === 'running') {
      reply.code(409).send({ error: `${id} is running: stop it first` });
      return null;
    }
    return t;
  }

  app.get<{ Params: { id: string } }>('/api/tournaments/:id/archive', async (request, reply) => {
    const { id } = request.params;
    const t = await store.getTournament(id);
    if (!t) return reply.code(404).send({ error: `no tournament ${id}` });
    const file = fileOf(id);
    if (t.archivedAt !== null && file !== null && existsSync(file)) return reply.headers(attachment(id)).send(createReadStream(file));
    const out = new PassThrough();
    writeArchive(store, id, out).catch((err: unknown) => {
      log.error({ err, tournament: id }, 'tournament archive download failed');
      out.destroy(err as Error);
    });
    return reply.headers(attachment(id)).send(out);
  });

  app.post<{ Params: { id: string } }>('/api/tournaments/:id/archive', async (request, reply) => {
    const t = await changeable(request.params.id, request.body, reply);
    if (!t) return reply;
    const file = fileOf(t.id);
    if (file === null) return reply.code(409).send({ error: 'this dashboard has no data directory to keep the archive in: use `spielhalle tournament archive`' });
    const r = await writeArchiveFile(store, t.id, file);
    await store.archiveTournament(t.id, Date.now());
    log.info({ tournament: t.id, file, matches: r.matches, records: r.records, missing: r.missing.length }, 'tournament archived from the dashboard');
    return reply.send({ id: t.id, file, matches: r.matches, records: r.records, missing: r.missing.length });
  });

  app.post<{ Params: { id: string } }>('/api/tournaments/:id/delete', async (request, reply) => {
    const t = await changeable(request.params.id, request.body, reply);
    if (!t) return reply;
    const r = await store.deleteTournament(t.id, Date.now());
    log.info({ tournament: t.id, records: r?.records ?? 0 }, 'tournament deleted from the dashboard');
    return reply.send({ id: t.id, records: r?.records ?? 0 });
  });
}
