// `npx tsx bench/tournament.ts [--game dame|…|all] [--games-per-pairing N] [--move-time S]
// [--parallel N] [--rounds N]`: a round robin (Catan seatings, Mia tables) of 8 entrants per game —
// our bots at known, different strengths, some of them as external programs started through the
// sandbox as `node dist/cli.js bot …` — run by the real coordinator through the real servers over
// loopback. Prints per game: matches, wall time, matches per minute, the overhead per match beyond
// the game itself (the coordinator's time for a match minus the time the server's record spans:
// spawning, connecting, recording), crashes and timeouts, the standings and the Spearman
// correlation between the rating order and the bots' known strengths. Needs `node scripts/build.mjs`
// first (npm run bench does it).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { createTournament, runTournament, tournamentStandings } from '../src/tournament/coordinator.js';
import { GAME_NAMES, parseTournament, type GameName } from '../src/tournament/file.js';
import { spearman } from '../src/tournament/ratings.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `"${process.execPath}" "${join(root, 'dist', 'cli.js')}"`;

interface BenchEntrant {
  /** YAML fields of the entrant (without name). */
  yaml: string;
  /** Known strength: higher is stronger; equal for equal bots. */
  strength: number;
}

/** Eight entrants per game, strongest first; `prog-*` run as external programs in the sandbox. */
function entrants(game: GameName, moveTimeMs: number): [string, BenchEntrant][] {
  const think = Math.max(20, Math.round(moveTimeMs * 0.6));
  switch (game) {
    case 'dame':
      return [
        ['engine', { yaml: `bot: engine\n    options: { timeMs: ${think} }`, strength: 6 }],
        [
          'prog-engine',
          {
            yaml: `command: '${cli} bot dame --host {host} --port {port} -g {gameId} -p {player} --bot engine --margin ${Math.max(0, moveTimeMs - think)}'`,
            strength: 6,
          },
        ],
        ['depth4', { yaml: 'bot: depth4', strength: 4 }],
        [
          'prog-depth4',
          {
            yaml: `command: '${cli} bot dame --host {host} --port {port} -g {gameId} -p {player} --bot depth4'`,
            strength: 4,
          },
        ],
        ['depth2', { yaml: 'bot: depth2', strength: 3 }],
        ['greedy', { yaml: 'bot: greedy', strength: 2 }],
        [
          'prog-random',
          {
            yaml: `command: '${cli} bot dame --host {host} --port {port} -g {gameId} -p {player} --bot random'`,
            strength: 1,
          },
        ],
        ['random', { yaml: 'bot: random', strength: 1 }],
      ];
    case 'ostseeschach':
      return [
        ['engine', { yaml: `bot: engine`, strength: 4 }],
        [
          'prog-engine',
          {
            yaml: `command: '${cli} bot ostseeschach -h {host} -p {port} -r {reservation} --bot engine --time-ms ${think}'`,
            strength: 4,
          },
        ],
        ['depth2', { yaml: 'bot: depth2', strength: 2 }],
        [
          'prog-depth2',
          {
            yaml: `command: '${cli} bot ostseeschach -h {host} -p {port} -r {reservation} --bot depth2'`,
            strength: 2,
          },
        ],
        ['depth2-b', { yaml: 'bot: depth2', strength: 2 }],
        ['random', { yaml: 'bot: random', strength: 1 }],
        [
          'prog-random',
          {
            yaml: `command: '${cli} bot ostseeschach -h {host} -p {port} -r {reservation} --bot random'`,
            strength: 1,
          },
        ],
        ['random-b', { yaml: 'bot: random', strength: 1 }],
      ];
    case 'connect4':
      return [
        ['perfect', { yaml: 'bot: perfect', strength: 3 }],
        [
          'prog-perfect',
          {
            yaml: `command: '${cli} bot connect4 --port {port} --invite {invite} --once --move-time ${think} --level perfect'`,
            strength: 3,
          },
        ],
        ['perfect-b', { yaml: 'bot: perfect', strength: 3 }],
        ['strong', { yaml: 'bot: strong', strength: 2 }],
        [
          'prog-strong',
          {
            yaml: `command: '${cli} bot connect4 --port {port} --invite {invite} --once --move-time ${think} --level strong'`,
            strength: 2,
          },
        ],
        ['easy', { yaml: 'bot: easy', strength: 1 }],
        [
          'prog-easy',
          {
            yaml: `command: '${cli} bot connect4 --port {port} --invite {invite} --once --move-time ${think} --level easy'`,
            strength: 1,
          },
        ],
        ['easy-b', { yaml: 'bot: easy', strength: 1 }],
      ];
    case 'catan':
      return [
        ['search', { yaml: 'bot: search', strength: 4 }],
        [
          'prog-search',
          {
            yaml: `command: '${cli} bot catan --host {host} --port {port} --name {name} --strategy search'`,
            strength: 4,
          },
        ],
        ['weighted', { yaml: 'bot: weighted', strength: 3 }],
        [
          'prog-weighted',
          {
            yaml: `command: '${cli} bot catan --host {host} --port {port} --name {name} --strategy weighted'`,
            strength: 3,
          },
        ],
        ['weighted-b', { yaml: 'bot: weighted', strength: 3 }],
        ['random-b', { yaml: 'bot: random', strength: 1 }],
        ['random', { yaml: 'bot: random', strength: 1 }],
        [
          'prog-random',
          {
            yaml: `command: '${cli} bot catan --host {host} --port {port} --name {name} --strategy random'`,
            strength: 1,
          },
        ],
      ];
    case 'mia':
      return [
        ['adaptive', { yaml: 'bot: adaptive', strength: 3 }],
        [
          'prog-adaptive',
          {
            yaml: `command: '${cli} bot mia --host {host} --port {port} --name {name} --strategy adaptive'`,
            strength: 3,
          },
        ],
        ['probabilistic', { yaml: 'bot: probabilistic', strength: 3 }],
        [
          'prog-probabilistic',
          {
            yaml: `command: '${cli} bot mia --host {host} --port {port} --name {name} --strategy probabilistic'`,
            strength: 3,
          },
        ],
        ['honest', { yaml: 'bot: honest', strength: 2 }],
        ['honest-b', { yaml: 'bot: honest', strength: 2 }],
        ['random', { yaml: 'bot: random', strength: 1 }],
        [
          'prog-random',
          {
            yaml: `command: '${cli} bot mia --host {host} --port {port} --name {name} --strategy random'`,
            strength: 1,
          },
        ],
      ];
  }
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const which = arg('game', 'all');
const games: GameName[] = which === 'all' ? [...GAME_NAMES] : (which.split(',') as GameName[]);
const gamesPerPairing = Number(arg('games-per-pairing', '2'));
const parallel = Number(arg('parallel', String(Math.max(1, cpus().length - 1))));
const rounds = arg('rounds', '');
const defaultMoveTime: Record<GameName, number> = {
  dame: 0.1,
  ostseeschach: 0.2,
  connect4: 0.1,
  catan: 0.05,
  mia: 0.05,
};

function formatFor(game: GameName): string {
  if (game === 'catan') return `format: seatings\ntableSize: 4\nrounds: ${rounds === '' ? 4 : rounds}`;
  if (game === 'mia')
    return `format: tables\ntableSize: 4\nrounds: ${rounds === '' ? 12 : rounds}\ngamesPerTable: 50`;
  return `format: round-robin\ngamesPerPairing: ${gamesPerPairing}`;
}

interface Row {
  game: string;
  matches: number;
  wallS: number;
  perMinute: number;
  overheadMs: { median: number; p90: number };
  /** Median overhead of matches between in-process bots only (no program to start). */
  botOverheadMs: number;
  crashes: number;
  timeouts: number;
  order: string;
  spearman: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function benchGame(game: GameName): Promise<Row> {
  const moveTime = Number(arg('move-time', String(defaultMoveTime[game])));
  const list = entrants(game, moveTime * 1000);
  const text = [
    `name: bench-${game}`,
    `game: ${game}`,
    formatFor(game),
    `moveTime: ${moveTime}`,
    `seed: bench-${game}`,
    `parallel: ${parallel}`,
    'entrants:',
    ...list.map(([name, e]) => `  - name: ${name}\n    ${e.yaml}`),
  ].join('\n');
  const parsed = parseTournament(text, { file: `bench-${game}.yaml` });
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const dir = mkdtempSync(join(tmpdir(), `spielhalle-bench-tournament-${game}-`));
  const store = new RecordStore(join(dir, 'records.sqlite'));
  const log = createLogger({ level: 'warn' });
  try {
    const id = await createTournament(store, parsed.spec, text);
    const started = Date.now();
    let last = 0;
    const outcome = await runTournament(store, id, {
      log,
      workDir: dir,
      onProgress: (p) => {
        if (Date.now() - last > 15_000 || p.done === p.total) {
          last = Date.now();
          process.stderr.write(
            `  ${game}: ${p.done}/${p.total} (${p.perMinute.toFixed(1)}/min, leader ${p.leader ?? '-'})\n`,
          );
        }
      },
    });
    const wallS = (Date.now() - started) / 1000;
    if (outcome !== 'finished') throw new Error(`${game}: tournament ${outcome}`);
    store.flush();
    const matches = store.listTournamentMatches(id).filter((m) => !m.bye);
    const overheads: number[] = [];
    const botOnly: number[] = [];
    const programs = new Set(list.filter(([, e]) => e.yaml.startsWith('command:')).map(([name]) => name));
    for (const m of matches) {
      if (m.startedAt === null || m.endedAt === null) continue;
      const records = m.records.map((r) => store.getMatch(r)).filter((r) => r !== null);
      if (records.length === 0) continue;
      const first = Math.min(...records.map((r) => r.startedAt));
      const lastEnd = Math.max(...records.map((r) => r.endedAt ?? r.startedAt));
      const overhead = m.endedAt - m.startedAt - (lastEnd - first);
      overheads.push(overhead);
      if (!m.seats.some((s) => programs.has(s))) botOnly.push(overhead);
    }
    overheads.sort((a, b) => a - b);
    botOnly.sort((a, b) => a - b);
    for (const m of matches) {
      const result = m.result as {
        seats?: { name: string; crashed?: boolean; timedOut?: boolean; note?: string }[];
      } | null;
      for (const seat of result?.seats ?? []) {
        if (!seat.crashed && !seat.timedOut) continue;
        const out = m.output.find((o) => o.name === seat.name);
        const tail = out ? out.stderr.trim().split('\n').slice(-3).join(' | ') : '';
        process.stderr.write(
          `    ${m.id} ${seat.name}: ${seat.crashed ? 'crashed' : 'timed out'}: ${seat.note ?? ''}${tail ? ` — stderr: ${tail}` : ''}\n`,
        );
      }
    }
    const standings = await tournamentStandings(store, id);
    const strength = new Map(list.map(([name, e]) => [name, e.strength]));
    const rows = standings.rows;
    const rho = spearman(
      rows.map((r) => r.rating),
      rows.map((r) => strength.get(r.name) ?? 0),
    );
    process.stderr.write(
      rows
        .map(
          (r) =>
            `    ${r.rank}. ${r.name} ${r.rating.toFixed(0)} [${r.low.toFixed(0)}–${r.high.toFixed(0)}] games ${r.games} W/D/L ${r.wins}/${r.draws}/${r.losses} crashes ${r.crashes} timeouts ${r.timeouts}\n`,
        )
        .join(''),
    );
    return {
      game,
      matches: matches.length,
      wallS,
      perMinute: (matches.length / wallS) * 60,
      overheadMs: { median: quantile(overheads, 0.5), p90: quantile(overheads, 0.9) },
      botOverheadMs: quantile(botOnly, 0.5),
      crashes: rows.reduce((s, r) => s + r.crashes, 0),
      timeouts: rows.reduce((s, r) => s + r.timeouts, 0),
      order: rows.map((r) => r.name).join(' > '),
      spearman: rho,
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const out: Row[] = [];
for (const game of games) {
  process.stderr.write(`== tournament bench: ${game}\n`);
  out.push(await benchGame(game));
}
const cpu = cpus()[0]?.model ?? 'unknown CPU';
process.stdout.write(
  `\nTournament benchmark — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpu}, Node ${process.version}, parallel ${parallel}\n\n`,
);
process.stdout.write(
  '| game | matches | wall | matches/min | overhead/match median (p90) | bots only | crashes | timeouts | Spearman ρ | rating order |\n',
);
process.stdout.write('|---|---|---|---|---|---|---|---|---|---|\n');
for (const r of out) {
  process.stdout.write(
    `| ${r.game} | ${r.matches} | ${r.wallS.toFixed(0)} s | ${r.perMinute.toFixed(1)} | ${r.overheadMs.median.toFixed(0)} ms (${r.overheadMs.p90.toFixed(0)} ms) | ${r.botOverheadMs.toFixed(0)} ms | ${r.crashes} | ${r.timeouts} | ${r.spearman.toFixed(3)} | ${r.order} |\n`,
  );
}
