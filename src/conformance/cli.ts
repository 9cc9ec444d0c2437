import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { GAMES, findGame } from '../games/registry.js';
import { splitCommandLine } from '../tournament/file.js';
import { formatFailure, formatJUnit, formatJson, formatResultLine, formatSummaryLine, summarize } from './report.js';
import { runScenarios } from './runner.js';

/**
 * `spielhalle check-client <game> [--scenario X]... [--junit FILE] [--json] [--timeout-scale N]
 * -- <client command with placeholders>`. Exit 0 when every scenario passes, 1 when one fails or
 * cannot run, 2 on a usage error.
 */

interface CheckFlags {
  scenario: string[];
  junit?: string;
  json?: boolean;
  timeoutScale: string;
  parallel: string;
  list?: boolean;
}

/** The client command: words as given after `--`; a single word with spaces is split like a shell would. */
export function clientCommand(words: readonly string[]): string[] {
  if (words.length !== 1) return [...words];
  const split = splitCommandLine(words[0]!);
  if (!split.ok) throw new UsageError(`the client command: ${split.message}`);
  return split.words;
}

export function registerCheckClientCommand(program: Command): void {
  const withConformance = GAMES.filter((g) => g.conformance !== undefined);
  program
    .command('check-client')
    .description('test your client against scripted servers that play tricky but legal situations; reports every protocol mistake')
    .argument('<game>', `the game (${withConformance.map((g) => g.name).join(', ')})`)
    .argument('[command...]', "after --: your client's command line with placeholders ({host} {port}, and the game's own: see --list)")
    .option('--scenario <id>', 'run only this scenario (repeatable)', (v: string, prev: string[]) => [...prev, v], [])
    .option('--junit <file>', 'also write the report as JUnit XML to this file')
    .option('--json', 'print the report as JSON instead of text')
    .option('--timeout-scale <n>', 'multiply every time window (a slow machine, a JVM)', '1')
    .option('--parallel <n>', 'scenarios at a time', '1')
    .option('--list', 'list the scenarios and exit')
    .addHelpText(
      'after',
      '\nExample:\n  spielhalle check-client dame -- ./client -h {host} -p {port} -g {gameId} -n {player}\n\nSee docs/check-client.md for every scenario.',
    )
    .action(async (gameName: string, words: string[], flags: CheckFlags) => {
      const game = findGame(gameName);
      if (!game) throw new UsageError(`unknown game "${gameName}" (one of ${GAMES.map((g) => g.name).join(', ')})`);
      const conformance = game.conformance;
      if (!conformance) throw new UsageError(`check-client has no scenarios for ${gameName} yet (it has: ${withConformance.map((g) => g.name).join(', ')})`);
      if (flags.list) {
        for (const s of conformance.scenarios) process.stdout.write(`${s.id.padEnd(34)} ${s.title}\n`);
        process.stderr.write(`\nplaceholders: ${conformance.placeholders.map((p) => `{${p}}`).join(' ')}\n`);
        if (conformance.example !== undefined) process.stderr.write(`our own client: spielhalle check-client ${game.name} -- ${conformance.example}\n`);
        return;
      }
      const scale = Number(flags.timeoutScale);
      if (!Number.isFinite(scale) || scale <= 0 || scale > 100) throw new UsageError(`--timeout-scale must be a number above 0 (up to 100), got "${flags.timeoutScale}"`);
      const parallel = Number(flags.parallel);
      if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32) throw new UsageError(`--parallel must be a whole number from 1 to 32, got "${flags.parallel}"`);
      const unknown = flags.scenario.filter((id) => !conformance.scenarios.some((s) => s.id === id));
      if (unknown.length > 0) throw new UsageError(`unknown scenario ${unknown.join(', ')} (see --list)`);
      const command = clientCommand(words);
      if (command.length === 0) throw new UsageError(`give the client's command after --, e.g. -- ./client {host} {port} (placeholders: ${conformance.placeholders.map((p) => `{${p}}`).join(' ')})`);
      const known = [...new Set(['host', 'port', 'gameId', 'player', 'reservation', 'name', ...conformance.placeholders])];
      const unknownPlaceholders = command.flatMap((w) => [...w.matchAll(/\{([^{}\s]*)\}/g)].map((m) => m[1]!)).filter((p) => !known.includes(p));
      if (unknownPlaceholders.length > 0) throw new UsageError(`unknown placeholder {${unknownPlaceholders[0]!}} (there are ${known.map((p) => `{${p}}`).join(' ')})`);
      const chosen = flags.scenario.length === 0 ? conformance.scenarios : conformance.scenarios.filter((s) => flags.scenario.includes(s.id));
      const results = await runScenarios(game.name, conformance, chosen, {
        command,
        timeoutScale: scale,
        parallel,
        onResult: (r) => {
          if (!flags.json) process.stdout.write(formatResultLine(r) + '\n');
        },
      });
      if (flags.json) process.stdout.write(formatJson(game.name, results));
      else {
        const bad = results.filter((r) => r.status !== 'pass');
        if (bad.length > 0) process.stdout.write('\n' + bad.map((r) => formatFailure(r) + '\n').join('\n'));
        process.stdout.write(formatSummaryLine(summarize(game.name, results)) + '\n');
      }
      if (flags.junit !== undefined) writeFileSync(flags.junit, formatJUnit(game.name, results));
      if (results.some((r) => r.status !== 'pass')) process.exitCode = 1;
    });
}
