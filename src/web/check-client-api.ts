/**
 * The JSON of `/api/games/:game/check-client`: what the dashboard's "test your client" page shows
 * of a game's check-client scenarios (src/core/conformance.ts). Types and one pure function only,
 * so the browser app imports this file too.
 */
import type { GameConformance } from '../core/conformance.js';

export interface CheckClientScenarioView {
  id: string;
  title: string;
  rule: string;
  section: string;
  hint: string;
}

export interface CheckClientView {
  game: string;
  transport: 'tcp' | 'udp';
  /** The placeholders a client command may use, without braces. */
  placeholders: string[];
  /** The `spielhalle` arguments for a student's client, e.g. `check-client dame -- ./my-client {host} …`. */
  usageArgs: string;
  /** `spielhalle check-client …` for our own client (a working example), or null. */
  example: string | null;
  /** The same as `spielhalle` arguments (`check-client dame -- spielhalle bot dame …`), for components/Command.tsx, or null. */
  exampleArgs: string | null;
  /** A client that reads host and port from a file: `check-client <game> --config-file client.conf=client.conf.in -- ./my-client`. */
  configFileArgs: string;
  /**
   * The port range of this server's settings (`tournaments.ports`, e.g. "20000-20999"), which every
   * command above passes on as `--ports`, or null when the settings name none.
   */
  ports: string | null;
  /** The game's page in the docs, relative to the repository. */
  docs: string;
  scenarios: CheckClientScenarioView[];
}

/**
 * Our own clients as check-client runs them, for games whose conformance has no `example` (the
 * Catan bot: `bot catan` passes every scenario, test/games/catan/conformance.test.ts).
 */
const OWN_CLIENTS: Readonly<Record<string, string>> = {
  catan: 'spielhalle bot catan --host {host} --port {port} --name {name} --strategy weighted',
};

/** Our own client's command line with placeholders (after `--`), or null: what `--list` and the dashboard show. */
export function ownClientExample(game: string, conformance: GameConformance): string | null {
  return conformance.example ?? OWN_CLIENTS[game] ?? null;
}

/**
 * What the "test your client" page shows. With a port range in the settings (`tournaments.ports`,
 * firewalled labs, issue #33; `ports` as core/ports.ts formats it) every command carries it as
 * `--ports`, so the scripted servers of a student's run listen where the lab lets them, as the
 * tournament arenas do.
 */
export function checkClientView(game: string, conformance: GameConformance, options: { ports?: string | null } = {}): CheckClientView {
  const example = ownClientExample(game, conformance);
  const ports = options.ports ?? null;
  const head = `check-client ${game}${ports === null ? '' : ` --ports ${ports}`}`;
  return {
    game,
    transport: conformance.transport ?? 'tcp',
    placeholders: [...conformance.placeholders],
    usageArgs: `${head} -- ./my-client ${conformance.placeholders.map((p) => `{${p}}`).join(' ')}`,
    example: example === null ? null : `spielhalle ${head} -- ${example}`,
    exampleArgs: example === null ? null : `${head} -- ${example}`,
    configFileArgs: `${head} --config-file client.conf=client.conf.in -- ./my-client${conformance.placeholders
      .filter((p) => p !== 'host' && p !== 'port')
      .map((p) => ` {${p}}`)
      .join('')}`,
    ports,
    docs: `docs/check-client/${game}.md`,
    scenarios: conformance.scenarios.map(({ id, title, rule, section, hint }) => ({ id, title, rule, section, hint })),
  };
}
