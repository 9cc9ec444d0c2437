import { describe, expect, it } from 'vitest';
import { censorEvent, type GameEvent, type SeenEvent, type Viewer } from '../../../src/games/catan/events.js';
import { playWireGames, wireLeaks } from './wire-leaks.js';

/**
 * The leak oracle over real TCP: seeded 4-player games through the server, every line each client
 * and the spectator stream received, judged against the full history. It finds nothing in what our
 * server sends, and it catches a censor broken on purpose. (bench/catan-server.ts --leak-games 1000
 * runs the acceptance count.)
 */

const GAMES = 8;

describe('no leaks on the wire', () => {
  it(`finds nothing in ${GAMES} seeded games, for every player and the spectator`, async () => {
    let checked = 0;
    let messages = 0;
    await playWireGames({ seed: 'leak-wire', games: GAMES, parallel: 4 }, (g) => {
      const { findings, problems } = wireLeaks(g);
      expect(problems, g.matchId).toEqual([]);
      expect(findings, g.matchId).toEqual([]);
      expect(g.history.at(-1)!.events.some((e) => e.type === 'gameWon')).toBe(true);
      checked++;
      for (const lines of g.lines.values()) messages += lines.length;
    });
    expect(checked).toBe(GAMES);
    expect(messages).toBeGreaterThan(GAMES * 5 * 2000);
  });

  it('catches a censor that shows steals in clear, and one that shows hands', async () => {
    const stealsInClear = (e: GameEvent, v: Viewer): SeenEvent => ((e.type === 'gained' || e.type === 'paid') && e.cause === 'steal' ? e : censorEvent(e, v));
    const handsInClear = (e: GameEvent, v: Viewer): SeenEvent => (e.type === 'playerUpdated' ? { type: 'playerUpdated', player: e.player } : censorEvent(e, v));
    for (const [censor, what] of [
      [stealsInClear, /shows card types|shows \d+ \w+, which is not public/],
      [handsInClear, /Statusupdate: shows \d+ \w+, which is not public|points, but/],
    ] as const) {
      const [game] = await playWireGames({ seed: 'leak-wire-broken', games: 1, parallel: 1, censor });
      expect(game!.history.some((h) => h.events.some((e) => e.type === 'gained' && e.cause === 'steal'))).toBe(true);
      const { findings, problems } = wireLeaks(game!);
      expect(problems).toEqual([]);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.some((f) => what.test(f.what))).toBe(true);
    }
  });
});
