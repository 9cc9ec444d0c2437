import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_DICE, chanceToBeat, formatDice, isHigher, makeDice, nextHigher, parseDice, rank } from '../../../src/games/mia/dice.js';
import { formatClient, formatServer, isValidName, parseClient, parseServer, type ServerMessage } from '../../../src/games/mia/protocol.js';

describe('dice', () => {
  it('ranks Mia over doubles over the rest, high die first', () => {
    const order = ALL_DICE.map((e) => formatDice(e.dice));
    expect(order.slice(0, 3)).toEqual(['3,1', '3,2', '4,1']);
    expect(order.slice(-8)).toEqual(['6,5', '1,1', '2,2', '3,3', '4,4', '5,5', '6,6', '2,1']);
    expect(ALL_DICE.reduce((n, e) => n + e.ways, 0)).toBe(36);
    expect(isHigher(makeDice(1, 2), makeDice(6, 6))).toBe(true);
    expect(isHigher(makeDice(1, 1), makeDice(6, 5))).toBe(true);
    expect(rank(makeDice(3, 1))).toBe(31);
  });

  it('parses strictly: two dice 1–6 in either order', () => {
    expect(parseDice('1,3')).toEqual({ high: 3, low: 1 });
    for (const bad of ['7,1', '0,1', '3x,1', '3', '3,1,1', ' 3,1', '', '3;1', '-1,2', '1.0,2']) expect(parseDice(bad), bad).toBeNull();
  });

  it('knows the odds', () => {
    expect(chanceToBeat(null)).toBe(1);
    expect(chanceToBeat(makeDice(2, 1))).toBe(0);
    expect(chanceToBeat(makeDice(6, 6))).toBeCloseTo(2 / 36);
    expect(chanceToBeat(makeDice(3, 1))).toBeCloseTo(34 / 36);
    expect(nextHigher(makeDice(6, 5))).toEqual(makeDice(1, 1));
    expect(nextHigher(makeDice(2, 1))).toBeNull();
  });
});

describe('client messages', () => {
  it('parses every command', () => {
    expect(parseClient('REGISTER;bob')).toEqual({ ok: true, message: { type: 'REGISTER', name: 'bob' } });
    expect(parseClient('REGISTER_SPECTATOR;eve')).toEqual({ ok: true, message: { type: 'REGISTER_SPECTATOR', name: 'eve' } });
    expect(parseClient('UNREGISTER;x')).toEqual({ ok: true, message: { type: 'UNREGISTER' } });
    expect(parseClient('JOIN;t')).toEqual({ ok: true, message: { type: 'JOIN', token: 't' } });
    expect(parseClient('ANNOUNCE;1,3;t')).toEqual({ ok: true, message: { type: 'ANNOUNCE', dice: { high: 3, low: 1 }, raw: '1,3', token: 't' } });
    expect(parseClient('ECHO')).toEqual({ ok: true, message: { type: 'ECHO', text: '42' } });
  });

  it('is case-sensitive and rejects unknown or empty commands', () => {
    expect(parseClient('register;bob')).toEqual({ ok: false, error: { code: 'unknown-command', command: 'register' } });
    expect(parseClient('')).toEqual({ ok: false, error: { code: 'empty' } });
    expect(parseClient(Buffer.alloc(2000, 65))).toEqual({ ok: false, error: { code: 'too-long', bytes: 2000 } });
  });

  it('never throws on arbitrary bytes (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1500 }), (bytes) => {
        const r = parseClient(Buffer.from(bytes));
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom('REGISTER', 'JOIN', 'ANNOUNCE', ';', ',', '1', '7', 'x', '\n', '\r', ' ', 'é', '\u0000')), (parts) => {
        const r = parseClient(parts.join(''));
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 5000 },
    );
  });

  it('names: up to 20 characters without , ; : or whitespace', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (name) => {
        // Control characters are the point of this oracle: the name rule forbids them.
        // eslint-disable-next-line no-control-regex
        const expected = name.length > 0 && name.length <= 20 && !/[,;:\s\u0000-\u001f\u007f\ufffd]/u.test(name);
        expect(isValidName(name)).toBe(expected);
      }),
    );
  });
});

describe('server messages', () => {
  const samples: ServerMessage[] = [
    { type: 'REGISTERED' },
    { type: 'REJECTED', reason: 'NAME_ALREADY_TAKEN' },
    { type: 'HEARTBEAT' },
    { type: 'ROUND STARTING', token: 'abc' },
    { type: 'ROUND CANCELED', reason: 'ONLY_ONE_PLAYER' },
    { type: 'ROUND STARTED', round: 7, players: ['a', 'b'] },
    { type: 'YOUR TURN', token: 't' },
    { type: 'PLAYER ROLLS', name: 'a' },
    { type: 'ROLLED', dice: makeDice(1, 3), token: 't' },
    { type: 'ANNOUNCED', name: 'a', dice: makeDice(2, 1) },
    { type: 'PLAYER WANTS TO SEE', name: 'b' },
    { type: 'ACTUAL DICE', dice: makeDice(4, 4) },
    { type: 'PLAYER LOST', names: ['a', 'c'], reason: 'MIA' },
    { type: 'SCORE', scores: [['a', 3], ['b', 0]] },
  ];

  it('formats exactly as the protocol spells it', () => {
    expect(samples.map(formatServer)).toEqual([
      'REGISTERED',
      'REJECTED;NAME_ALREADY_TAKEN',
      'HEARTBEAT',
      'ROUND STARTING;abc',
      'ROUND CANCELED;ONLY_ONE_PLAYER',
      'ROUND STARTED;7;a,b',
      'YOUR TURN;t',
      'PLAYER ROLLS;a',
      'ROLLED;3,1;t',
      'ANNOUNCED;a;2,1',
      'PLAYER WANTS TO SEE;b',
      'ACTUAL DICE;4,4',
      'PLAYER LOST;a,c;MIA',
      'SCORE;a:3,b:0',
    ]);
  });

  it('parses back what it formats', () => {
    for (const m of samples) expect(formatServer(parseServer(formatServer(m)) as ServerMessage)).toBe(formatServer(m));
    expect(parseServer('ANNOUNCED;x;7,1')).toEqual({ type: 'ANNOUNCED', name: 'x', dice: null });
    expect(parseServer('WHATEVER')).toBeNull();
    expect(formatClient({ type: 'ANNOUNCE', dice: makeDice(1, 2), token: 't' })).toBe('ANNOUNCE;2,1;t');
  });
});
