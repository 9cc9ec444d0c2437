import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { HouseLineup } from '../../../src/games/mia/house.js';
import { mia } from '../../../src/games/mia/index.js';
import { UdpPeer } from '../../support/udp.js';

/** The house bots' line-up changes from round to round, the same way for the same seed (docs/mia.md). */

const HOUSE = ['house-adaptive', 'house-probabilistic', 'house-honest', 'house-random'];

function lineups(seed: string, rounds: number, names = HOUSE, maxMissed = 10): string[] {
  const l = new HouseLineup(names, seed, maxMissed);
  return Array.from({ length: rounds }, () => l.next().join(','));
}

describe('Mia house line-up', () => {
  it('varies the table, head-to-heads included, and repeats exactly for the same seed', () => {
    const a = lineups('lesson', 40);
    expect(lineups('lesson', 40)).toEqual(a);
    expect(lineups('another lesson', 40)).not.toEqual(a);
    expect(new Set(a).size).toBeGreaterThanOrEqual(6);
    expect(a.some((l) => l.split(',').length === 2)).toBe(true);
    expect(a).toContain(HOUSE.join(','));
  });

  it('seats at least two, never keeps a bot out two rounds running, and sits nobody out when that is unsafe', () => {
    const a = lineups('rules', 200).map((l) => new Set(l.split(',')));
    for (const [i, playing] of a.entries()) {
      expect(playing.size).toBeGreaterThanOrEqual(2);
      const before = a[i - 1];
      if (before)
        for (const name of HOUSE)
          expect(playing.has(name) || before.has(name), `${name} in rounds ${i} and ${i + 1}`).toBe(true);
    }
    // the server expires a player after one missed round: everybody plays
    expect(new Set(lineups('rules', 20, HOUSE, 1))).toEqual(new Set([HOUSE.join(',')]));
    expect(new Set(lineups('rules', 20, HOUSE.slice(0, 2)))).toEqual(new Set([HOUSE.slice(0, 2).join(',')]));
  });

  it('groups invitations into rounds: a bot invited again opens the next round', () => {
    const l = new HouseLineup(HOUSE, 'groups');
    const expected = lineups('groups', 3).map((s) => s.split(','));
    for (const round of expected) {
      for (const name of HOUSE)
        expect(l.joins(name), `${name} in ${round.join(',')}`).toBe(round.includes(name));
    }
    expect(l.rounds).toBe(3);
  });

  it('shows a spectator other line-ups from round to round on a served table', async () => {
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      seed: 'house-test',
      games: {
        ...DEFAULT_SETTINGS.games,
        mia: { ...DEFAULT_SETTINGS.games.mia, port: 0, startEarly: true, waitRecheckMs: 50, houseBots: 4 },
      },
    };
    const store = new RecordStore(':memory:');
    const ctx = { settings, log: silentLogger, store };
    const server = mia.createServer(ctx);
    await server.start();
    const bots = await mia.startHouseBots!(ctx, server);
    const spectator = await UdpPeer.open(server.info().port);
    try {
      const started: string[] = [];
      spectator.socket.on('message', (m) => {
        const line = m.toString();
        if (line.startsWith('ROUND STARTED;')) started.push(line.split(';')[2]!);
      });
      spectator.send('REGISTER_SPECTATOR;watcher');
      const deadline = Date.now() + 60_000;
      while (started.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(started.length).toBeGreaterThanOrEqual(6);
      // The server deals the turn order; who sits at the table is the house's line-up.
      const tables = started.map((players) => players.split(',').sort().join(','));
      expect(new Set(tables).size).toBeGreaterThan(1);
      // The same seed draws the same line-ups (the spectator may have come in after the first rounds).
      const planned = lineups('house-test', 200).map((l) => l.split(',').sort().join(','));
      const at = planned.findIndex((_, i) => tables.every((t, j) => planned[i + j] === t));
      expect(at, `${tables.join(' | ')} within ${planned.slice(0, 12).join(' | ')}`).toBeGreaterThanOrEqual(
        0,
      );

      // The house bots' rounds alone are house games (retention takes them first); a round a
      // student's client sat in is a played game (issue 37).
      const student = await UdpPeer.open(server.info().port);
      try {
        student.socket.on('message', (m) => {
          const [cmd, token] = m.toString().split(';');
          if (cmd === 'ROUND STARTING') student.send(`JOIN;${token}`);
        });
        student.send('REGISTER;student');
        const withStudent = () => store.listMatches({ game: 'mia', player: 'student', limit: 5 });
        const until = Date.now() + 30_000;
        while (withStudent().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        expect(withStudent().length).toBeGreaterThan(0);
        for (const m of withStudent()) expect(store.keepOf(m.id)).toEqual({ keep: 'played', tournamentId: null });
        const houseOnly = store.listMatches({ game: 'mia', limit: 100 }).filter((m) => m.seats.every((s) => s.name.startsWith('house-')));
        expect(houseOnly.length).toBeGreaterThan(5);
        for (const m of houseOnly) expect(store.keepOf(m.id)).toEqual({ keep: 'house', tournamentId: null });
      } finally {
        await student.close();
      }
    } finally {
      await spectator.close();
      for (const b of bots) await b.stop();
      await server.stop();
      store.close();
    }
  }, 90_000);
});
