import { describe, expect, it } from 'vitest';
import { RecordStore } from '../../../src/core/records.js';
import { Harness } from './harness.js';

/** Transcript tests: every rule and loss reason, as the lines each client receives. */

const A = Harness.addr(1001);
const B = Harness.addr(1002);
const C = Harness.addr(1003);
const SPEC = Harness.addr(1009);

function twoPlayers(options: ConstructorParameters<typeof Harness>[0] = {}) {
  const h = new Harness(options);
  h.table.start();
  h.say(A, 'REGISTER;alice');
  h.say(B, 'REGISTER;bob');
  h.take(A);
  h.take(B);
  return h;
}

/** Runs the join window with everyone joining, in a fixed turn order. */
function startRound(h: Harness, order: string[], who: { addr: typeof A }[]) {
  h.clock.advance(500); // the waiting table looks for players every 500 ms
  for (const p of who) h.say(p.addr, `JOIN;${h.lastToken(p.addr)}`);
  h.orders.push(order);
  h.clock.advance(250);
}

describe('registration', () => {
  it('accepts a valid name and rejects invalid ones', () => {
    const h = new Harness();
    h.table.start();
    const cases: [string, string][] = [
      ['REGISTER;abcdefghijklmnopqrst', 'REGISTERED'], // 20 characters
      ['REGISTER;abcdefghijklmnopqrstu', 'REJECTED;INVALID_NAME'], // 21
      ['REGISTER;', 'REJECTED;INVALID_NAME'],
      ['REGISTER', 'REJECTED;INVALID_NAME'],
      ['REGISTER;a,b', 'REJECTED;INVALID_NAME'],
      ['REGISTER;a:b', 'REJECTED;INVALID_NAME'],
      ['REGISTER;a b', 'REJECTED;INVALID_NAME'],
      ['REGISTER;a\tb', 'REJECTED;INVALID_NAME'],
      ['REGISTER;a\u0001b', 'REJECTED;INVALID_NAME'],
      ['REGISTER_SPECTATOR;', 'REJECTED;INVALID_NAME'],
    ];
    let port = 2000;
    for (const [datagram, answer] of cases) {
      const who = Harness.addr(port++);
      h.say(who, datagram);
      expect(h.take(who), datagram).toEqual([answer]);
    }
  });

  it('takes only the part before the second semicolon as the name', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'REGISTER;alice;extra');
    expect(h.take(A)).toEqual(['REGISTERED']);
    expect(h.table.scoreTable()).toEqual([['alice', 0]]);
  });

  it('strips one trailing newline (decision 4)', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'REGISTER;alice\r\n');
    h.say(B, 'REGISTER;bob\n');
    expect(h.take(A)).toEqual(['REGISTERED']);
    expect(h.take(B)).toEqual(['REGISTERED']);
    expect(h.table.scoreTable().map(([n]) => n)).toEqual(['alice', 'bob']);
  });

  it('rejects a taken name from another IP, lets the same IP take it over with its score', () => {
    const h = twoPlayers();
    h.fixDice('3,1');
    startRound(h, ['alice', 'bob'], [{ addr: A }, { addr: B }]);
    h.say(A, `ROLL;${h.lastToken(A)}`);
    h.clock.advance(250); // alice does not announce: bob gets a point, round 2 is offered
    expect(h.table.scoreOf('bob')).toBe(1);

    const otherIp = Harness.addr(1002, '127.0.0.2');
    h.say(otherIp, 'REGISTER;bob');
    expect(h.take(otherIp)).toEqual(['REJECTED;NAME_ALREADY_TAKEN']);

    const newPort = Harness.addr(1102);
    h.take(B);
    h.say(newPort, 'REGISTER;bob');
    expect(h.take(newPort)).toEqual(['REGISTERED']);
    expect(h.table.scoreOf('bob')).toBe(1);
    // Round 2 was offered to the old address; from the next round on the new one gets bob's messages.
    h.clock.advance(250);
    expect(h.take(newPort)).toEqual(['ROUND CANCELED;NO_PLAYERS', 'SCORE;alice:0,bob:1', 'ROUND STARTING;tok-8']);
    expect(h.take(B)).toEqual([]);
  });

  it('tells spectators the new score table before answering REGISTERED', () => {
    const h = new Harness();
    h.table.start();
    h.say(SPEC, 'REGISTER_SPECTATOR;spec');
    expect(h.take(SPEC)).toEqual(['REGISTERED']);
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    expect(h.take(SPEC)).toEqual(['SCORE;alice:0', 'SCORE;alice:0,bob:0']);
    expect(h.take(A)).toEqual(['REGISTERED']);
  });

  it('a spectator and a player cannot share a name', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.say(Harness.addr(1, '127.0.0.9'), 'REGISTER_SPECTATOR;alice');
    expect(h.take(Harness.addr(1, '127.0.0.9'))).toEqual(['REJECTED;NAME_ALREADY_TAKEN']);
  });

  it('UNREGISTER is answered only for a registered address', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'UNREGISTER');
    expect(h.take(A)).toEqual([]);
    h.say(A, 'REGISTER;alice');
    h.take(A);
    h.say(A, 'UNREGISTER;whatever');
    expect(h.take(A)).toEqual(['UNREGISTERED']);
  });

  it('answers ECHO from anyone', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'ECHO');
    h.say(A, 'ECHO;a;b');
    expect(h.take(A)).toEqual(['ECHOING;42', 'ECHOING;ab']);
  });
});

describe('rounds', () => {
  it('waits silently with one player', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.take(A);
    h.clock.advance(5000);
    expect(h.take(A)).toEqual([]);
  });

  it('cancels with NO_PLAYERS when nobody joins, again and again', () => {
    const h = twoPlayers();
    h.say(SPEC, 'REGISTER_SPECTATOR;spec');
    h.take(SPEC);
    h.clock.advance(500 + 250 + 250);
    expect(h.take(SPEC)).toEqual(['ROUND CANCELED;NO_PLAYERS', 'SCORE;alice:0,bob:0', 'ROUND CANCELED;NO_PLAYERS', 'SCORE;alice:0,bob:0']);
    expect(h.take(A)).toEqual([
      'ROUND STARTING;tok-1',
      'ROUND CANCELED;NO_PLAYERS',
      'SCORE;alice:0,bob:0',
      'ROUND STARTING;tok-3',
      'ROUND CANCELED;NO_PLAYERS',
      'SCORE;alice:0,bob:0',
      'ROUND STARTING;tok-5',
    ]);
  });

  it('cancels with ONLY_ONE_PLAYER after ROUND STARTED; spectators are never invited', () => {
    const h = twoPlayers();
    h.say(SPEC, 'REGISTER_SPECTATOR;spec');
    h.take(SPEC);
    h.clock.advance(500);
    h.say(A, `JOIN;${h.lastToken(A)}`);
    h.clock.advance(250);
    expect(h.take(SPEC)).toEqual(['ROUND STARTED;1;alice', 'ROUND CANCELED;ONLY_ONE_PLAYER', 'SCORE;alice:0,bob:0']);
    expect(h.take(A)).toEqual(['ROUND STARTING;tok-1', 'ROUND STARTED;1;alice', 'ROUND CANCELED;ONLY_ONE_PLAYER', 'SCORE;alice:0,bob:0', 'ROUND STARTING;tok-3']);
  });

  it('ignores late and wrong-token JOINs', () => {
    const h = twoPlayers();
    h.clock.advance(500);
    const ta = h.lastToken(A);
    const tb = h.lastToken(B);
    h.say(A, `JOIN;${ta}`);
    h.say(B, `JOIN;${ta}`); // someone else's token
    h.clock.advance(250);
    h.say(B, `JOIN;${tb}`); // too late
    expect(h.take(B)).toContain('ROUND STARTED;1;alice');
  });

  it('does not cut the join window short unless start-early is on', () => {
    const slow = twoPlayers();
    slow.clock.advance(500);
    slow.say(A, `JOIN;${slow.lastToken(A)}`);
    slow.say(B, `JOIN;${slow.lastToken(B)}`);
    expect(slow.take(A).some((l) => l.startsWith('ROUND STARTED'))).toBe(false);
    slow.clock.advance(250);
    expect(slow.take(A).some((l) => l.startsWith('ROUND STARTED'))).toBe(true);

    const fast = twoPlayers({ startEarly: true });
    fast.clock.advance(500);
    fast.say(A, `JOIN;${fast.lastToken(A)}`);
    fast.say(B, `JOIN;${fast.lastToken(B)}`);
    expect(fast.take(A).some((l) => l.startsWith('ROUND STARTED'))).toBe(true);
  });

  it('sends HEARTBEAT every 2 s to players and spectators', () => {
    const h = new Harness();
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.say(SPEC, 'REGISTER_SPECTATOR;spec');
    h.clock.advance(4000);
    expect(h.inbox(A).filter((l) => l === 'HEARTBEAT')).toHaveLength(2);
    expect(h.inbox(SPEC).filter((l) => l === 'HEARTBEAT')).toHaveLength(2);
  });
});

describe('loss reasons', () => {
  function played(moves: (h: Harness) => void, dice: string[] = []) {
    const h = twoPlayers();
    h.say(SPEC, 'REGISTER_SPECTATOR;spec');
    h.take(SPEC);
    h.fixDice(...dice);
    startRound(h, ['alice', 'bob'], [{ addr: A }, { addr: B }]);
    moves(h);
    return h;
  }
  const act = (h: Harness, who: typeof A, command: string) => h.say(who, command.replace('$', h.lastToken(who)));

  it('SEE_BEFORE_FIRST_ROLL', () => {
    const h = played((h) => act(h, A, 'SEE;$'));
    expect(h.take(SPEC)).toEqual([
      'ROUND STARTED;1;alice,bob',
      'PLAYER WANTS TO SEE;alice',
      'PLAYER LOST;alice;SEE_BEFORE_FIRST_ROLL',
      'SCORE;alice:0,bob:1',
    ]);
  });

  it('SEE_FAILED when the claim was true, also when it was lower than the truth', () => {
    const h = played(
      (h) => {
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;4,2;$');
        act(h, B, 'SEE;$');
      },
      ['5,2'],
    );
    expect(h.take(A)).toEqual([
      'ROUND STARTING;tok-1',
      'ROUND STARTED;1;alice,bob',
      'YOUR TURN;tok-3',
      'PLAYER ROLLS;alice',
      'ROLLED;5,2;tok-4',
      'ANNOUNCED;alice;4,2',
      'PLAYER WANTS TO SEE;bob',
      'ACTUAL DICE;5,2',
      'PLAYER LOST;bob;SEE_FAILED',
      'SCORE;alice:1,bob:0',
      'ROUND STARTING;tok-6',
    ]);
  });

  it('SEE_FAILED on equal dice', () => {
    const h = played(
      (h) => {
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;5,2;$');
        act(h, B, 'SEE;$');
      },
      ['2,5'],
    );
    expect(h.take(SPEC).slice(-2)).toEqual(['PLAYER LOST;bob;SEE_FAILED', 'SCORE;alice:1,bob:0']);
  });

  it('CAUGHT_BLUFFING', () => {
    const h = played(
      (h) => {
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;6,6;$');
        act(h, B, 'SEE;$');
      },
      ['3,1'],
    );
    expect(h.take(SPEC).slice(-4)).toEqual([
      'PLAYER WANTS TO SEE;bob',
      'ACTUAL DICE;3,1',
      'PLAYER LOST;alice;CAUGHT_BLUFFING',
      'SCORE;alice:0,bob:1',
    ]);
  });

  it('ANNOUNCED_LOSING_DICE for an equal announcement, after ANNOUNCED', () => {
    const h = played(
      (h) => {
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;1,3;$');
        act(h, B, 'ROLL;$');
        act(h, B, 'ANNOUNCE;3,1;$');
      },
      ['3,1', '6,6'],
    );
    expect(h.take(SPEC)).toEqual([
      'ROUND STARTED;1;alice,bob',
      'PLAYER ROLLS;alice',
      'ANNOUNCED;alice;3,1',
      'PLAYER ROLLS;bob',
      'ANNOUNCED;bob;3,1',
      'PLAYER LOST;bob;ANNOUNCED_LOSING_DICE',
      'SCORE;alice:1,bob:0',
    ]);
  });

  it('MIA: a true Mia makes every other participant lose (names sorted)', () => {
    const h = new Harness();
    h.table.start();
    h.say(C, 'REGISTER;carol');
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    h.fixDice('1,2');
    startRound(h, ['carol', 'bob', 'alice'], [{ addr: A }, { addr: B }, { addr: C }]);
    act(h, C, 'ROLL;$');
    act(h, C, 'ANNOUNCE;1,2;$');
    expect(h.take(A).slice(-5, -1)).toEqual([
      'ANNOUNCED;carol;2,1',
      'ACTUAL DICE;2,1',
      'PLAYER LOST;alice,bob;MIA',
      'SCORE;alice:0,bob:0,carol:1',
    ]);
  });

  it('LIED_ABOUT_MIA', () => {
    const h = played(
      (h) => {
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;2,1;$');
      },
      ['3,2'],
    );
    expect(h.take(SPEC).slice(-4)).toEqual(['ANNOUNCED;alice;2,1', 'ACTUAL DICE;3,2', 'PLAYER LOST;alice;LIED_ABOUT_MIA', 'SCORE;alice:0,bob:1']);
  });

  it('DID_NOT_TAKE_TURN after 250 ms, and garbage or a wrong token does not count as an answer', () => {
    const h = played((h) => {
      h.say(A, `FOO;${h.lastToken(A)}`);
      h.say(A, 'ROLL;not-the-token');
      h.say(B, `ROLL;${h.lastToken(B)}`); // not bob's turn
      h.clock.advance(249);
    });
    expect(h.take(SPEC)).toEqual(['ROUND STARTED;1;alice,bob']);
    h.clock.advance(1);
    expect(h.take(SPEC)).toEqual(['PLAYER LOST;alice;DID_NOT_TAKE_TURN', 'SCORE;alice:0,bob:1']);
  });

  it('DID_NOT_ANNOUNCE, also for invalid dice such as 7,1 (decision 2)', () => {
    for (const bad of ['ANNOUNCE;7,1;$', 'ANNOUNCE;0;$', 'ANNOUNCE;3x,1;$', 'ANNOUNCE;$', 'ANNOUNCE']) {
      const h = played(
        (h) => {
          act(h, A, 'ROLL;$');
          act(h, A, bad);
          h.clock.advance(250);
        },
        ['4,4'],
      );
      expect(h.take(SPEC), bad).toEqual(['ROUND STARTED;1;alice,bob', 'PLAYER ROLLS;alice', 'PLAYER LOST;alice;DID_NOT_ANNOUNCE', 'SCORE;alice:0,bob:1']);
    }
  });

  it('turn order wraps around', () => {
    const h = played(
      (h) => {
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;3,1;$');
        act(h, B, 'ROLL;$');
        act(h, B, 'ANNOUNCE;3,2;$');
        act(h, A, 'ROLL;$');
        act(h, A, 'ANNOUNCE;4,1;$');
        act(h, B, 'SEE;$');
      },
      ['3,1', '3,2', '6,5'],
    );
    expect(h.take(SPEC).slice(-2)).toEqual(['PLAYER LOST;bob;SEE_FAILED', 'SCORE;alice:1,bob:0']);
  });

  it('a player who unregisters mid-round stays in it and loses by DID_NOT_TAKE_TURN', () => {
    const h = played((h) => {
      act(h, A, 'ROLL;$');
      act(h, A, 'ANNOUNCE;4,1;$');
      h.say(B, 'UNREGISTER');
      act(h, B, 'ROLL;$'); // ignored: bob is gone
      h.clock.advance(250);
    }, ['4,1']);
    const lines = h.take(SPEC);
    expect(lines.slice(-2)).toEqual(['PLAYER LOST;bob;DID_NOT_TAKE_TURN', 'SCORE;alice:1,bob:0']);
    expect(h.take(B)).toContain('UNREGISTERED');
    // bob's score stays in the table; bob gets no more messages.
    h.clock.advance(2000);
    expect(h.take(B)).toEqual([]);
  });
});

describe('records', () => {
  it('records each round with its result and wire log, and keeps scores across a restart', () => {
    const store = new RecordStore(':memory:');
    const h = twoPlayers({ store });
    h.fixDice('6,5');
    startRound(h, ['alice', 'bob'], [{ addr: A }, { addr: B }]);
    h.say(A, `ROLL;${h.lastToken(A)}`);
    h.say(A, `ANNOUNCE;6,6;${h.lastToken(A)}`);
    h.say(B, `SEE;${h.lastToken(B)}`);
    h.table.stop();
    store.flush();

    const finished = store.listMatches({ game: 'mia', status: 'finished' });
    expect(finished).toHaveLength(1);
    const detail = store.getMatch(finished[0]!.id)!;
    expect(detail.result).toMatchObject({ round: 1, order: ['alice', 'bob'], losers: ['alice'], reason: 'CAUGHT_BLUFFING', points: { bob: 1 } });
    expect(detail.seats.map((s) => s.name)).toEqual(['alice', 'bob']);
    // The moves are in the result (the compact record: no event rows), the roll with its dice.
    expect(detail.result).toMatchObject({ moves: [[0, 'roll', '6,5'], [0, 'announce', '6,6'], [1, 'see']] });
    expect(detail.events).toEqual([]);
    // The wire log of the round, in order, as sent and received (stored as one batch).
    const wire = detail.wire.map((w) => `${w.conn} ${w.dir} ${w.data}`);
    expect(wire).toEqual([
      '127.0.0.1:1001 out ROUND STARTING;tok-1',
      '127.0.0.1:1002 out ROUND STARTING;tok-2',
      '127.0.0.1:1001 in JOIN;tok-1',
      '127.0.0.1:1002 in JOIN;tok-2',
      '* out ROUND STARTED;1;alice,bob',
      '127.0.0.1:1001 out YOUR TURN;tok-3',
      '127.0.0.1:1001 in ROLL;tok-3',
      '* out PLAYER ROLLS;alice',
      '127.0.0.1:1001 out ROLLED;6,5;tok-4',
      '127.0.0.1:1001 in ANNOUNCE;6,6;tok-4',
      '* out ANNOUNCED;alice;6,6',
      '127.0.0.1:1002 out YOUR TURN;tok-5',
      '127.0.0.1:1002 in SEE;tok-5',
      '* out PLAYER WANTS TO SEE;bob',
      '* out ACTUAL DICE;6,5',
      '* out PLAYER LOST;alice;CAUGHT_BLUFFING',
      '* out SCORE;alice:0,bob:1',
    ]);
    expect(detail.wire.map((w) => w.at - detail.startedAt)).toEqual([0, 0, 0, 0, 250, 250, 250, 250, 250, 250, 250, 250, 250, 250, 250, 250, 250]);

    // the round that was open when the table stopped is recorded as aborted
    expect(store.listMatches({ game: 'mia', status: 'aborted' })).toHaveLength(1);

    const again = new Harness({ store });
    expect(again.table.scoreTable()).toEqual([
      ['alice', 0],
      ['bob', 1],
    ]);
    store.close();
  });
});

describe('replay', () => {
  it('replays recorded rounds through the rules and finds a tampered record', async () => {
    const { verifyRound } = await import('../../../src/games/mia/replay.js');
    const store = new RecordStore(':memory:');
    const h = twoPlayers({ store });
    h.fixDice('6,5', '4,1');
    startRound(h, ['bob', 'alice'], [{ addr: A }, { addr: B }]);
    h.say(B, `ROLL;${h.lastToken(B)}`);
    h.say(B, `ANNOUNCE;6,5;${h.lastToken(B)}`);
    h.say(A, `ROLL;${h.lastToken(A)}`);
    h.say(A, `ANNOUNCE;1,1;${h.lastToken(A)}`);
    h.say(B, `SEE;${h.lastToken(B)}`);
    h.table.stop();
    const id = store.listMatches({ game: 'mia', status: 'finished' })[0]!.id;
    const detail = store.getMatch(id)!;
    expect(verifyRound(detail)).toEqual({ checked: true, problems: [] });
    const tampered = { ...detail, result: { ...(detail.result as object), losers: ['bob'] } };
    expect(verifyRound(tampered).problems).toEqual(['losers: recorded bob, replayed alice']);
    store.close();
  });
});

describe('a tournament table after its last round (issue 36)', () => {
  it('unregisters its seats and rejects every registration after that, so a bot that registers again ends', () => {
    let done = 0;
    const h = new Harness({ minPlayers: 0, tournament: { names: ['alice', 'bob'], rounds: 1, meta: {}, onDone: () => done++ } });
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    expect(h.take(A)).toEqual(['REGISTERED']);
    h.take(B);
    h.table.start();
    for (let i = 0; i < 2000 && done === 0; i++) h.clock.advance(1);
    expect(done).toBe(1);
    expect(h.take(A).at(-1)).toBe('UNREGISTERED');
    h.say(A, 'REGISTER;alice');
    expect(h.take(A)).toEqual(['REJECTED;INVALID_NAME']);
  });
});

describe('a tournament table whose names belong to their entrants (issue 30)', () => {
  it('rejects a seat name from any address but its owner’s, before the owner comes too', () => {
    const thief = Harness.addr(1009);
    const h = new Harness({
      minPlayers: 0,
      tournament: { names: ['alice', 'bob'], rounds: 1, meta: {}, onDone: () => undefined, nameOwner: (name, from) => (name === 'alice' ? from.port === 1001 : from.port === 1002) },
    });
    h.say(thief, 'REGISTER;alice');
    expect(h.take(thief)).toEqual(['REJECTED;NAME_ALREADY_TAKEN']);
    h.say(A, 'REGISTER;alice');
    expect(h.take(A)).toEqual(['REGISTERED']);
    h.say(B, 'REGISTER;bob');
    expect(h.take(B)).toEqual(['REGISTERED']);
  });
});
