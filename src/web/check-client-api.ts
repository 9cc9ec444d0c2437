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
  /** The game's page in the docs, relative to the repository. */
  docs: string;
  scenarios: CheckClientScenarioView[];
}

export function checkClientView(game: string, conformance: GameConformance): CheckClientView {
  return {
    game,
    transport: conformance.transport ?? 'tcp',
    placeholders: [...conformance.placeholders],
    usageArgs: `check-client ${game} -- ./my-client ${conformance.placeholders.map((p) => `{${p}}`).join(' ')}`,
    example: conformance.example === undefined ? null : `spielhalle check-client ${game} -- ${conformance.example}`,
    docs: `docs/check-client/${game}.md`,
    scenarios: conformance.scenarios.map(({ id, title, rule, section, hint }) => ({ id, title, rule, section, hint })),
  };
}
