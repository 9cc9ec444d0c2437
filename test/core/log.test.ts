import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { houseLogger, prettyLogs } from '../../src/core/log.js';

/** core/log.ts: the house games' logger and when stderr logs are readable (docs/operations.md, "Logs"). */

function capture(level: string): { log: pino.Logger; lines: () => { level: number; msg: string; [k: string]: unknown }[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk.toString());
      done();
    },
  });
  const log = pino({ level, base: null }, stream);
  return { log, lines: () => out.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

describe('houseLogger', () => {
  it('logs info at debug, in its children too, and keeps warnings and errors', () => {
    const { log, lines } = capture('debug');
    const house = houseLogger(log.child({ game: 'dame' }));
    house.info({ gameId: 'x' }, 'game created');
    house.child({ match: 'm1' }).info('game over');
    house.child({ a: 1 }).child({ b: 2 }).info('deep');
    house.warn('slow');
    house.error('failed');
    log.info('real player');
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      [20, 'game created'],
      [20, 'game over'],
      [20, 'deep'],
      [40, 'slow'],
      [50, 'failed'],
      [30, 'real player'],
    ]);
    expect(lines()[1]).toMatchObject({ game: 'dame', match: 'm1' });
  });

  it('says nothing at the info level, and answers isLevelEnabled as debug', () => {
    const { log, lines } = capture('info');
    const house = houseLogger(log);
    house.info('routine');
    expect(house.isLevelEnabled('info')).toBe(false);
    expect(house.isLevelEnabled('warn')).toBe(true);
    expect(house.level).toBe('info');
    expect(lines()).toEqual([]);
  });
});

describe('prettyLogs', () => {
  it('is readable on a terminal (auto) or when asked, never with a log file', () => {
    expect(prettyLogs('auto', undefined, true)).toBe(true);
    expect(prettyLogs('auto', undefined, false)).toBe(false);
    expect(prettyLogs('pretty', undefined, false)).toBe(true);
    expect(prettyLogs('json', undefined, true)).toBe(false);
    expect(prettyLogs('pretty', 'serve.log', true)).toBe(false);
    expect(prettyLogs('auto', 'serve.log', true)).toBe(false);
    expect(prettyLogs(undefined, undefined, true)).toBe(false);
  });
});
