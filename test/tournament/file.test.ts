import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GAMES } from '../../src/games/registry.js';
import {
  FORMATS_BY_GAME,
  GAME_NAMES,
  commandArgv,
  formatError,
  parseTournament,
  splitCommandLine,
  type ParseResult,
  type TournamentSpec,
} from '../../src/tournament/file.js';

function spec(result: ParseResult): TournamentSpec {
  if (!result.ok) throw new Error(result.errors.map(formatError).join('\n'));
  return result.spec;
}

function errors(result: ParseResult): string[] {
  if (result.ok) throw new Error('expected errors');
  return result.errors.map(formatError);
}

const DAME = `name: Kurs Dame
game: dame
format: round-robin
gamesPerPairing: 4
moveTime: 1
seed: 42
entrants:
  - name: engine
    bot: engine
    options: { depth: 6 }
  - name: greedy
    bot: greedy
  - name: anna
    command: ./client -h {host} -p {port} -g {gameId} -p {player}
    cwd: /srv/anna
    limits: { cpuSeconds: 60, memoryMb: 512, wallSeconds: 300 }
`;

describe('parseTournament', () => {
  it('reads a valid YAML file into a spec with defaults', () => {
    const s = spec(parseTournament(DAME, { cores: 4 }));
    expect(s).toMatchObject({
      name: 'Kurs Dame',
      game: 'dame',
      format: 'round-robin',
      gamesPerPairing: 4,
      moveTime: 1,
      seed: 42,
      parallel: 3,
      tableSize: 2,
    });
    expect(s.entrants[0]).toEqual({ name: 'engine', kind: 'bot', bot: 'engine', options: { depth: 6 } });
    expect(s.entrants[1]).toEqual({ name: 'greedy', kind: 'bot', bot: 'greedy', options: {} });
    expect(s.entrants[2]).toEqual({
      name: 'anna',
      kind: 'command',
      command: './client -h {host} -p {port} -g {gameId} -p {player}',
      cwd: '/srv/anna',
      limits: { cpuSeconds: 60, memoryMb: 512, wallSeconds: 300 },
    });
  });

  it('reads the same file written as JSON', () => {
    const json = JSON.stringify(
      {
        name: 'c4',
        game: 'connect4',
        format: 'swiss',
        entrants: [
          { name: 'a', bot: 'random' },
          { name: 'b', command: 'peer {port}' },
        ],
      },
      null,
      2,
    );
    const s = spec(parseTournament(json, { cores: 1 }));
    expect(s.parallel).toBe(1);
    expect(s.seed).toBe('c4');
    expect(s.gamesPerPairing).toBe(2);
    expect(s.rounds).toBe(1);
  });

  it('names lines in JSON too', () => {
    const json = JSON.stringify(
      {
        name: 'c4',
        game: 'connect4',
        format: 'round-robin',
        entrants: [
          { name: 'a', bot: 'random' },
          { name: 'b', command: 'peer {name}' },
        ],
      },
      null,
      2,
    );
    expect(errors(parseTournament(json, { file: 't.json' }))).toEqual([
      't.json:12:18: entrants[1].command: unknown placeholder {name} for connect4 (allowed: {port} {invite} {host})',
    ]);
  });

  it('names the line and column of an unknown placeholder, as the issue spells it', () => {
    const text = DAME.replace('-g {gameId}', '-g {gameid}');
    expect(errors(parseTournament(text))).toEqual([
      'tournament.yaml:14:14: entrants[2].command: unknown placeholder {gameid} for dame (allowed: {host} {port} {gameId} {player})',
    ]);
  });

  it('reports every problem once, each at its own line', () => {
    const text = `name: x
game: mia
format: round-robin
gamesPerPairing: 3
entrants:
  - name: a
    bot: random
  - name: a
    command: mia {host} {port} {name} {reservation}
  - name: c
  - name: d
    bot: x
    command: y
`;
    const e = errors(parseTournament(text, { file: 't.yaml' }));
    expect(e).toEqual([
      't.yaml:3:9: format: mia cannot be played as round-robin (allowed: tables)',
      't.yaml:4:18: gamesPerPairing: must be even: every seed is played from both sides',
      't.yaml:8:11: entrants[1].name: duplicate name a (also entrants[0])',
      't.yaml:9:14: entrants[1].command: unknown placeholder {reservation} for mia (allowed: {host} {port} {name})',
      't.yaml:10:5: entrants[2]: needs exactly one of bot or command',
      't.yaml:11:5: entrants[3]: needs exactly one of bot or command',
    ]);
  });

  it('rejects an odd gamesPerPairing for 2-player games', () => {
    expect(errors(parseTournament(DAME.replace('gamesPerPairing: 4', 'gamesPerPairing: 3')))).toEqual([
      'tournament.yaml:4:18: gamesPerPairing: must be even: every seed is played from both sides',
    ]);
  });

  it('checks table sizes per game', () => {
    const catan = (size: number, n = 5) =>
      `name: c\ngame: catan\nformat: seatings\ntableSize: ${size}\nentrants:\n${Array.from({ length: n }, (_, i) => `  - { name: p${i}, bot: random }`).join('\n')}\n`;
    expect(spec(parseTournament(catan(3))).tableSize).toBe(3);
    expect(errors(parseTournament(catan(5)))).toEqual([
      'tournament.yaml:4:12: tableSize: catan tables seat 3–4',
    ]);
    expect(errors(parseTournament(catan(2)))).toEqual([
      'tournament.yaml:4:12: tableSize: catan tables seat 3–4',
    ]);
    expect(errors(parseTournament(catan(4, 3)))).toEqual([
      'tournament.yaml:4:12: tableSize: larger than the field of 3',
    ]);
    expect(errors(parseTournament(DAME.replace('moveTime: 1', 'tableSize: 2')))).toEqual([
      'tournament.yaml:5:12: tableSize: dame is a 2-player game',
    ]);
  });

  it('reports unknown keys, wrong types and YAML syntax errors with their lines', () => {
    expect(errors(parseTournament(DAME.replace('moveTime: 1', 'movetime: 1')))).toEqual([
      'tournament.yaml:5:11: movetime: unknown key',
    ]);
    const wrongType = errors(parseTournament(DAME.replace('gamesPerPairing: 4', 'gamesPerPairing: four')));
    expect(wrongType).toHaveLength(1);
    expect(wrongType[0]).toMatch(/^tournament\.yaml:4:18: gamesPerPairing: /);
    const bad = errors(parseTournament('name: x\ngame: [dame\n'));
    expect(bad.length).toBeGreaterThan(0);
    expect(bad[0]).toMatch(/^tournament\.yaml:\d+:\d+: /);
    expect(errors(parseTournament(DAME.replace('game: dame', 'game: chess')))[0]).toMatch(
      /^tournament\.yaml:2:7: game: /,
    );
    expect(errors(parseTournament(''))).toHaveLength(1);
  });

  it('knows exactly the games of the registry', () => {
    expect([...GAME_NAMES].sort()).toEqual(GAMES.map((g) => g.name).sort());
  });

  it('accepts exactly the formats each game can use', () => {
    for (const game of GAME_NAMES) {
      for (const format of ['round-robin', 'swiss', 'seatings', 'tables']) {
        const text = `name: t\ngame: ${game}\nformat: ${format}\nentrants:\n${[1, 2, 3, 4].map((i) => `  - { name: e${i}, bot: random }`).join('\n')}\n`;
        expect(parseTournament(text).ok).toBe(FORMATS_BY_GAME[game].includes(format as never));
      }
    }
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const r = parseTournament(text);
        if (!r.ok) for (const e of r.errors) expect(e.line).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});

describe('command lines', () => {
  it('splits like a POSIX shell for quotes and backslashes', () => {
    expect(splitCommandLine(`java -jar 'my client.jar' "a \\"b\\" c" d\\ e  ''`)).toEqual({
      ok: true,
      words: ['java', '-jar', 'my client.jar', 'a "b" c', 'd e', ''],
    });
    expect(splitCommandLine(`"a\\nb" 'x\\y'`)).toEqual({ ok: true, words: ['a\\nb', 'x\\y'] });
    expect(splitCommandLine(`a'b'"c"`)).toEqual({ ok: true, words: ['abc'] });
    expect(splitCommandLine(`'open`).ok).toBe(false);
    expect(splitCommandLine(`"open`).ok).toBe(false);
    expect(splitCommandLine(`end\\`).ok).toBe(false);
  });

  it('fills placeholders inside words without splitting values', () => {
    expect(
      commandArgv('./client -h {host} -p {port} -r {reservation}', {
        host: '127.0.0.1',
        port: 13050,
        reservation: 'a b',
      }),
    ).toEqual(['./client', '-h', '127.0.0.1', '-p', '13050', '-r', 'a b']);
    expect(
      commandArgv(`python "bot.py" --addr={host}:{port} '{name}'`, { host: 'h', port: 1, name: 'anna' }),
    ).toEqual(['python', 'bot.py', '--addr=h:1', 'anna']);
    expect(() => commandArgv('x {port}', {})).toThrow(/\{port\}/);
  });

  it('round-trips any words quoted with single quotes', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1 }), (words) => {
        const line = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ');
        expect(splitCommandLine(line)).toEqual({ ok: true, words });
      }),
    );
  });
});

describe('the example tournament file', () => {
  it('parses, and its bots and placeholders fit the game', async () => {
    const { readFileSync } = await import('node:fs');
    const { checkEntrants, tournamentSupport } = await import('../../src/tournament/coordinator.js');
    const text = readFileSync(new URL('../../examples/tournament-dame.yaml', import.meta.url), 'utf8');
    const s = spec(parseTournament(text, { file: 'examples/tournament-dame.yaml' }));
    expect(s.game).toBe('dame');
    expect(s.entrants.filter((e) => e.kind === 'command')).toHaveLength(1);
    expect(checkEntrants(s, tournamentSupport(s.game))).toEqual([]);
  });
});
