import { readFileSync } from 'node:fs';

/** One of Pons' test sets copied into test/fixtures/connect4/: [moves, score] per line. */
export const fixture = (name: string): [string, number][] =>
  readFileSync(new URL(`../../fixtures/connect4/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [moves = '', score = ''] = line.split(' ');
      return [moves, Number(score)];
    });
