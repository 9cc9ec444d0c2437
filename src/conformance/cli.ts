import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { ConformanceScenario, GameConformance } from '../core/conformance.js';
import { UsageError } from '../core/errors.js';
import { parsePortRange, setDefaultPortRange } from '../core/ports.js';
import { GAMES, findGame } from '../games/registry.js';
import { splitCommandLine } from '../tournament/file.js';
import { ownClientExample } from '../web/check-client-api.js';
import { CONFIG_PLACEHOLDER, badConfigName, configPlaceholders, findProgram, templatePlaceholders, type ConfigFile } from './launch.js';
import { formatFailure, formatJUnit, formatJson, formatResultLine, formatSummaryLine, summarize } from './report.js';
import { runScenarios, skippedResult, type ScenarioResult } from './runner.js';

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
  keepGoing?: boolean;
  list?: boolean;
  configFile: string[];
  ports?: string;
}

/** `--config-file NAME=TEMPLATE`: the template read once (from the current directory), its name checked. */
export function readConfigFile(spec: string, cwd = process.cwd()): ConfigFile {
  const eq = spec.indexOf('=');
  if (eq <= 0 || eq === spec.length - 1)
    throw new UsageError(`--config-file wants NAME=TEMPLATE, e.g. --config-file client.conf=client.conf.in (the file your client reads = a file with {host} and {port} in it), got "${spec}"`);
  const name = spec.slice(0, eq);
  const from = spec.slice(eq + 1);
  const bad = badConfigName(name);
  if (bad !== null) throw new UsageError(`--config-file ${spec}: ${bad}`);
  let template: string;
  try {
    template = readFileSync(resolve(cwd, from), 'utf8');
  } catch (e) {
    throw new UsageError(`--config-file ${spec}: cannot read the template ${from} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return { name, template, from };
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
    .option('--keep-going', 'run every scenario even when the first ones all fail the same way')
    .option(
      '--config-file <name=template>',
      'write this file for each scenario from a template with placeholders, e.g. client.conf=client.conf.in: into the client\'s working directory, or where {config} on the command line says (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .option('--list', 'list the scenarios and exit')
    .option('--ports <range>', 'the scripted servers listen only on ports in this range, e.g. 20000-20999 (firewalled labs)')
    .addHelpText(
      'after',
      '\nExamples:\n  spielhalle check-client dame -- ./client -h {host} -p {port} -g {gameId} -n {player}\n  spielhalle check-client dame --config-file client.conf=client.conf.in -- ./sysprak-client -g {gameId} -p {player}\n    (client.conf.in: hostname = {host}, portnumber = {port}, gamekindname = Checkers; add -c {config} for a client that takes the path)\n\nSee docs/check-client.md for every scenario.',
    )
    .action(async (gameName: string, words: string[], flags: CheckFlags) => {
      const game = findGame(gameName);
      if (!game) throw new UsageError(`unknown game "${gameName}" (one of ${GAMES.map((g) => g.name).join(', ')})`);
      const conformance = game.conformance;
      if (!conformance) throw new UsageError(`check-client has no scenarios for ${gameName} yet (it has: ${withConformance.map((g) => g.name).join(', ')})`);
      if (flags.list) {
        for (const s of conformance.scenarios) process.stdout.write(`${s.id.padEnd(34)} ${s.title}\n`);
        process.stderr.write(`\nplaceholders: ${conformance.placeholders.map((p) => `{${p}}`).join(' ')}\n`);
        const example = ownClientExample(game.name, conformance);
        if (example !== null) process.stderr.write(`our own client: spielhalle check-client ${game.name} -- ${example}\n`);
        return;
      }
      const scale = Number(flags.timeoutScale);
      if (!Number.isFinite(scale) || scale <= 0 || scale > 100) throw new UsageError(`--timeout-scale must be a number above 0 (up to 100), got "${flags.timeoutScale}"`);
      const parallel = Number(flags.parallel);
      if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32) throw new UsageError(`--parallel must be a whole number from 1 to 32, got "${flags.parallel}"`);
      const unknown = flags.scenario.filter((id) => !conformance.scenarios.some((s) => s.id === id));
      if (unknown.length > 0) throw new UsageError(`unknown scenario ${unknown.join(', ')} (see --list)`);
      if (flags.ports !== undefined) {
        const range = parsePortRange(flags.ports);
        if (typeof range === 'string') throw new UsageError(`--ports ${range}`);
        setDefaultPortRange(range);
      }
      const command = clientCommand(words);
      if (command.length === 0) throw new UsageError(`give the client's command after --, e.g. -- ./client {host} {port} (placeholders: ${conformance.placeholders.map((p) => `{${p}}`).join(' ')})`);
      const configFiles = flags.configFile.map((spec) => readConfigFile(spec));
      const names = configFiles.map((f) => f.name);
      if (new Set(names).size !== names.length) throw new UsageError(`--config-file: ${names.find((n, i) => names.indexOf(n) !== i)!} is given twice`);
      const base = [...new Set(['host', 'port', 'gameId', 'player', 'reservation', 'name', ...conformance.placeholders])];
      const known = [...base, ...configPlaceholders(configFiles)];
      const unknownPlaceholders = command.flatMap((w) => [...w.matchAll(/\{([^{}\s]*)\}/g)].map((m) => m[1]!)).filter((p) => !known.includes(p));
      if (unknownPlaceholders.length > 0) {
        const p = unknownPlaceholders[0]!;
        if (p === CONFIG_PLACEHOLDER || p.startsWith(`${CONFIG_PLACEHOLDER}:`))
          throw new UsageError(`{${p}} is the path of a file given with --config-file${configFiles.length === 0 ? ', and there is none: add e.g. --config-file client.conf=client.conf.in' : ` (there are ${configPlaceholders(configFiles).map((c) => `{${c}}`).join(' ')})`}`);
        throw new UsageError(`unknown placeholder {${p}} (there are ${known.map((k) => `{${k}}`).join(' ')})`);
      }
      for (const f of configFiles) {
        const used = templatePlaceholders(f.template);
        const unknownInFile = used.filter((p) => !known.includes(p));
        if (unknownInFile.length > 0) throw new UsageError(`unknown placeholder {${unknownInFile[0]!}} in ${f.from} (there are ${known.map((k) => `{${k}}`).join(' ')})`);
        if (used.length === 0) process.stderr.write(`note: ${f.from} has no placeholder: your client gets the same ${f.name} in every scenario (the port changes: write {port} where it reads the port)\n`);
      }
      const chosen = flags.scenario.length === 0 ? conformance.scenarios : conformance.scenarios.filter((s) => flags.scenario.includes(s.id));
      // A program that cannot start fails every scenario alike: say it once, before any of them.
      const program = command[0]!;
      const check = /\{[^{}\s]*\}/.test(program) || flags.keepGoing === true ? null : findProgram([program], process.cwd());
      if (check !== null && !check.ok) {
        const results = notStarted(game.name, conformance, chosen, `the client could not be started: ${check.message}`);
        if (flags.json) process.stdout.write(formatJson(game.name, results));
        else {
          process.stdout.write(formatResultLine(results[0]!) + '\n');
          if (results.length > 1) process.stdout.write(`skip   the other ${results.length - 1} scenarios: not run, the client could not be started\n`);
          process.stdout.write(formatSummaryLine(summarize(game.name, results)) + '\n');
        }
        if (flags.junit !== undefined) writeFileSync(flags.junit, formatJUnit(game.name, results));
        process.exitCode = 1;
        return;
      }
      if (parallel === 1 && chosen.length > 10 && !flags.json)
        process.stderr.write(`${chosen.length} scenarios, one at a time: this takes a while; --parallel 4 runs four at once\n`);
      const results = await runScenarios(game.name, conformance, chosen, {
        command,
        configFiles,
        timeoutScale: scale,
        parallel,
        keepGoing: flags.keepGoing === true,
        onResult: (r) => {
          if (!flags.json) process.stdout.write(formatResultLine(r) + '\n');
        },
      });
      if (flags.json) process.stdout.write(formatJson(game.name, results));
      else {
        const bad = results.filter((r) => r.status === 'fail' || r.status === 'error');
        if (bad.length > 0) process.stdout.write('\n' + bad.map((r) => formatFailure(r) + '\n').join('\n'));
        process.stdout.write(formatSummaryLine(summarize(game.name, results)) + '\n');
      }
      if (flags.junit !== undefined) writeFileSync(flags.junit, formatJUnit(game.name, results));
      if (results.some((r) => r.status !== 'pass')) process.exitCode = 1;
    });
}

/** The results of a run whose client cannot start: the first scenario an error with the reason, the rest not run. */
function notStarted(game: string, conformance: GameConformance, scenarios: readonly ConformanceScenario[], message: string): ScenarioResult[] {
  return scenarios.map((s, i) =>
    i === 0
      ? { ...skippedResult(game, conformance, s, message), status: 'error' }
      : skippedResult(game, conformance, s, `not run: the client could not be started (see ${scenarios[0]!.id})`),
  );
}
