import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../core/log.js';
import { checkRegisteredProgram, registeredProgramSchema, type RegisteredProgramSpec } from '../tournament/programs.js';
import { admitAdmin } from './exposure.js';

/**
 * Staff register a program for dashboard tournaments (`POST /api/tournaments/programs`, issue #33
 * item 4). It is a command line the server will run, so only a request with the admin token (the
 * dashboard token, `web.token`) may do it, even on loopback where nothing else needs a token;
 * without a token configured the route is closed. The program is checked as the settings are
 * (`tournaments.programs`: the same schema, placeholders of its game, the program found and
 * executable), added to the list the tournament form offers, and kept in
 * `<dataDir>/registered-programs.json` for the next start. `GET /api/tournaments/programs/registering`
 * says whether registering is open here and how to register in the settings instead.
 */

export interface ProgramRoutesOptions {
  /** The list the tournament routes offer (the settings' programs); registered ones are added to it. */
  programs: RegisteredProgramSpec[];
  /** The admin token, or null: registering from the dashboard is closed. */
  adminToken: string | null;
  /** Where registered programs are kept across restarts (none: only until the server stops). */
  dataDir?: string | undefined;
  log: Logger;
}

/** What the form shows beside the programs (`GET /api/tournaments/programs/registering`). */
export interface ProgramRegistering {
  /** Whether staff can register a program here (an admin token is set). */
  open: boolean;
  /** The settings key that registers programs without the dashboard. */
  settingsKey: 'tournaments.programs';
}

export const PROGRAMS_FILE = 'registered-programs.json';

/** Programs registered from the dashboard before (a bad file is logged and left alone). */
function load(file: string, log: Logger): RegisteredProgramSpec[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const list = registeredProgramSchema.array().parse(JSON.parse(text));
    return list;
  } catch (err) {
    log.error({ err, file }, 'registered programs: cannot read the file, none loaded from it');
    return [];
  }
}

export function registerProgramRoutes(app: FastifyInstance, o: ProgramRoutesOptions): void {
  const log = o.log.child({ component: 'programs' });
  const file = o.dataDir === undefined ? null : join(o.dataDir, PROGRAMS_FILE);
  /** The ones registered here (the settings' own are not written back). */
  const added: RegisteredProgramSpec[] = file === null ? [] : load(file, log);
  for (const p of added)
    if (!o.programs.some((q) => q.name === p.name && q.game === p.game)) o.programs.push(p);

  app.get('/api/tournaments/programs/registering', (): ProgramRegistering => ({
    open: o.adminToken !== null,
    settingsKey: 'tournaments.programs',
  }));

  app.post('/api/tournaments/programs', (request, reply) => {
    if (
      !admitAdmin(request, reply, o.adminToken, {
        closed:
          'registering programs from the dashboard needs an admin token: set web.token (SPIELHALLE_WEB_TOKEN) and open the dashboard with ?token=…, or register it in the settings (tournaments.programs)',
        missing: 'registering a program needs the admin token (web.token)',
      })
    )
      return reply;
    const checked = checkRegisteredProgram(request.body);
    if (!checked.ok)
      return reply.code(400).send({
        error: 'invalid program',
        errors: checked.problems.map((p) => ({ ...p, line: p.path === '' ? p.message : `${p.path}: ${p.message}` })),
      });
    const program = checked.program;
    if (o.programs.some((p) => p.name === program.name && p.game === program.game))
      return reply.code(409).send({ error: `a ${program.game} program ${program.name} is registered already` });
    if (file !== null && o.dataDir !== undefined) {
      mkdirSync(o.dataDir, { recursive: true });
      writeFileSync(`${file}.tmp`, JSON.stringify([...added, program], null, 2) + '\n', { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    }
    added.push(program);
    o.programs.push(program);
    log.info({ name: program.name, game: program.game }, 'program registered from the dashboard');
    return reply.code(201).send({ name: program.name, game: program.game });
  });
}
