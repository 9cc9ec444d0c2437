import { describe, expect, it } from 'vitest';
import { censorEvent, type GameEvent } from '../../../src/games/catan/events.js';
import { newGame } from '../../../src/games/catan/rules/index.js';
import { view } from '../../../src/games/catan/view.js';
import { EXAMPLE_SETUP, KARTE_T1, boardT1, exampleGame, must } from './helpers.js';

/** catan.md §5: the 3-player start from the first placement to the first roll, as far as it is about rules. */

const counts = (r: Readonly<Record<string, number | undefined>>): string =>
  Object.entries(r)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}:${String(v)}`)
    .join(',');

/** One line per event, in the notation of §5 (B, E, SU). */
function line(e: GameEvent): string {
  switch (e.type) {
    case 'built':
      return `B(${e.player},${e.piece},${e.at})`;
    case 'gained':
      return `E(${e.player},${counts(e.resources)})`;
    case 'playerUpdated': {
      const p = e.player;
      const hand = counts(p.resources);
      return `SU(${p.id},${p.status},${p.points}${hand ? `,${hand}` : ''})`;
    }
    case 'rolled':
      return `Wuerfelwurf(${e.player},${e.dice.join('+')})`;
    default:
      return e.type;
  }
}

describe('the example start (§5)', () => {
  it('loads KARTE_T1 and shows it back as the Karte lists it', () => {
    const s = exampleGame();
    const v = view(s, 17);
    const felder = v.board.fields.map((f) => (f.number === null ? { Ort: f.at, Typ: f.type } : { Ort: f.at, Typ: f.type, Zahl: f.number }));
    expect(new Set(felder.map((f) => JSON.stringify(f)))).toEqual(new Set(KARTE_T1.Felder.map((f) => JSON.stringify(f))));
    expect(v.board.harbours.map((h) => ({ Ort: h.at, Typ: h.type }))).toEqual(KARTE_T1.Haefen);
    expect(v.board.robber).toBe('S');
    expect(v.buildings).toEqual([]);
  });

  it('starts with 42 placing and the others waiting, in the turn order 42, 63, 17', () => {
    const started = newGame({
      seed: 1,
      board: boardT1(),
      fixedOrder: true,
      players: [
        { id: 42, name: 'KI Alpha', colour: 'Blau' },
        { id: 63, name: 'KI Beta', colour: 'Weiss' },
        { id: 17, name: 'Anna', colour: 'Rot' },
      ],
    });
    if (!started.ok) throw new Error(started.error);
    expect(started.value.events.map((e) => (e.type === 'gameStarted' ? `order ${e.order.join(',')}` : line(e)))).toEqual([
      'order 42,63,17',
      'SU(42,Dorf bauen,0)',
      'SU(63,Warten,0)',
      'SU(17,Warten,0)',
    ]);
  });

  it('plays the placements and the first roll with the events and statuses of the transcript', () => {
    const expected: string[][] = [
      ['B(42,Dorf,FOP)', 'SU(42,Strasse bauen,1)'],
      ['B(42,Strasse,OP)', 'SU(42,Warten,1)', 'SU(63,Dorf bauen,0)'],
      ['B(63,Dorf,ALM)', 'SU(63,Strasse bauen,1)'],
      ['B(63,Strasse,AM)', 'SU(63,Warten,1)', 'SU(17,Dorf bauen,0)'],
      ['B(17,Dorf,KLR)', 'SU(17,Strasse bauen,1)'],
      ['B(17,Strasse,KR)', 'SU(17,Dorf bauen,1)'],
      ['B(17,Dorf,CDN)', 'E(17,Getreide:2,Erz:1)', 'SU(17,Strasse bauen,2,Getreide:2,Erz:1)'],
      ['B(17,Strasse,DN)', 'SU(17,Warten,2,Getreide:2,Erz:1)', 'SU(63,Dorf bauen,1)'],
      ['B(63,Dorf,GHP)', 'E(63,Wolle:1,Getreide:1,Erz:1)', 'SU(63,Strasse bauen,2,Wolle:1,Getreide:1,Erz:1)'],
      ['B(63,Strasse,HP)', 'SU(63,Warten,2,Wolle:1,Getreide:1,Erz:1)', 'SU(42,Dorf bauen,1)'],
      ['B(42,Dorf,DEO)', 'E(42,Holz:2,Erz:1)', 'SU(42,Strasse bauen,2,Holz:2,Erz:1)'],
      ['B(42,Strasse,EO)', 'SU(42,Wuerfeln,2,Holz:2,Erz:1)'],
    ];
    let s = exampleGame();
    EXAMPLE_SETUP.forEach(([player, action], i) => {
      const step = must(s, player, action);
      expect(step.events.map(line), JSON.stringify(action)).toEqual(expected[i]);
      s = step.state;
    });
    const roll = must(s, 42, { type: 'roll', dice: [2, 4] });
    expect(roll.events.map(line)).toEqual([
      'Wuerfelwurf(42,2+4)',
      'E(42,Erz:1)',
      'E(63,Erz:1)',
      'E(17,Getreide:1)',
      'SU(42,Handeln oder Bauen,2,Holz:2,Erz:2)',
      'SU(63,Warten,2,Wolle:1,Getreide:1,Erz:2)',
      'SU(17,Warten,2,Getreide:3,Erz:1)',
    ]);
    expect(roll.state.bank).toEqual({ Holz: 17, Lehm: 19, Wolle: 18, Getreide: 15, Erz: 14 });
  });

  it("censors 17's Statusupdate for the others exactly as the notation paragraph shows", () => {
    let s = exampleGame();
    let su: GameEvent | undefined;
    for (const [player, action] of EXAMPLE_SETUP.slice(0, 7)) {
      const step = must(s, player, action);
      s = step.state;
      su = step.events.at(-1);
    }
    if (su?.type !== 'playerUpdated') throw new Error('expected a Statusupdate');
    expect(censorEvent(su, 42)).toEqual({
      type: 'playerUpdated',
      player: { id: 17, name: 'Anna', colour: 'Rot', status: 'Strasse bauen', points: 2, resources: { Unbekannt: 3 }, knights: 0, devCards: { Unbekannt: 0 } },
    });
    expect(censorEvent(su, 17)).toEqual({
      type: 'playerUpdated',
      player: {
        id: 17,
        name: 'Anna',
        colour: 'Rot',
        status: 'Strasse bauen',
        points: 2,
        resources: { Holz: 0, Lehm: 0, Wolle: 0, Getreide: 2, Erz: 1 },
        knights: 0,
        devCards: { Ritter: 0, Strassenbau: 0, Monopol: 0, Erfindung: 0, Siegpunkt: 0 },
      },
    });
  });
});
