import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { createOstseeschachServer, type OstseeschachServer } from '../../../src/games/ostseeschach/server.js';
import { Harness, layout, wire, type MemoryClient } from './wire-harness.js';

/**
 * The core acceptance test: fed the client side of each recording of the official 22.final
 * server, our server writes the server side byte for byte. Only the values the spec calls random
 * are fixed by injection: room ids, reservation codes and the start layout.
 */

const FULL_ROOM = '47860e3e-4f3f-49e7-8196-202962b40ad6';
const FULL_LAYOUT = 'RMRSHSMH';

const clientLines = (name: string): string[] =>
  wire(name)
    .split('\n')
    .filter((l) => l.length > 0);
/** The room id a recording shows; where none is visible, any id reproduces the bytes. */
const roomIdOf = (text: string): string =>
  /roomId="([0-9a-f-]{36})"/.exec(text)?.[1] ?? '00000000-0000-4000-8000-000000000000';

/** The recorder's sections: `label` + what that connection received, one section after another. */
function sections(text: string, labels: readonly string[]): string[] {
  const starts: number[] = [];
  let at = 0;
  for (const [i, label] of labels.entries()) {
    const found = i === 0 && text.startsWith(label) ? 0 : text.indexOf('\n' + label, at);
    if (found < 0) throw new Error(`label ${JSON.stringify(label)} not found`);
    const start = found === 0 && i === 0 ? label.length : found + 1 + label.length;
    starts.push(start);
    at = start;
  }
  return starts.map((start, i) => {
    const next = labels[i + 1];
    const end =
      next === undefined ? text.length - (text.endsWith('\n') ? 1 : 0) : text.indexOf('\n' + next, start);
    return text.slice(start, end);
  });
}

/** The recorder stripped the piece entries of the mementos in admin-pause-step-errors. */
const stripPieces = (xml: string): string => xml.replace(/\n {12}<entry>[\s\S]*?\n {12}<\/entry>/g, '');

describe('full game over TCP (fullgame-p1/p2)', () => {
  let server: OstseeschachServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  it('reproduces both server streams byte for byte', async () => {
    server = createOstseeschachServer({
      port: 0,
      seed: 'golden',
      log: silentLogger,
      store: null,
      roomIds: () => FULL_ROOM,
      startPosition: () => layout(FULL_LAYOUT),
    });
    await server.start();
    const port = server.port;

    interface Player {
      socket: Socket;
      received: string;
      lines: string[];
      answered: number;
    }
    const open = async (file: string): Promise<Player> => {
      const socket = connect({ host: '127.0.0.1', port });
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const p: Player = { socket, received: '', lines: clientLines(file), answered: 0 };
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        p.received += chunk;
        // Answer each moveRequest with the next recorded move, as the recorded client did.
        const requests = p.received.split('<data class="moveRequest"/>').length - 1;
        while (p.answered < requests) {
          p.answered++;
          socket.write(p.lines.shift()! + '\n');
        }
      });
      socket.write(p.lines.shift()! + '\n');
      return p;
    };
    const until = async (test: () => boolean, what: string): Promise<void> => {
      const deadline = Date.now() + 20_000;
      while (!test()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };

    const p1 = await open('fullgame-p1.client-to-server.txt');
    await until(() => p1.received.includes('<joined'), 'P1 to join');
    const p2 = await open('fullgame-p2.client-to-server.txt');
    const expected1 = wire('fullgame-p1.server-to-client.xml');
    const expected2 = wire('fullgame-p2.server-to-client.xml');
    await until(
      () => p1.received.length >= expected1.length && p2.received.length >= expected2.length,
      'the whole game',
    );
    // Nothing follows `<left>`: the connection stays open (spec §3.5, §4 #6).
    await new Promise((r) => setTimeout(r, 50));
    expect(p1.received).toBe(expected1);
    expect(p2.received).toBe(expected2);
    expect(p1.lines).toEqual([]);
    expect(p2.lines).toEqual([]);
    p1.socket.destroy();
    p2.socket.destroy();
  });
});

describe('full game in memory', () => {
  it('reproduces both streams, and the recorded client input fragmented at every 7th byte', () => {
    const h = new Harness({ rooms: [FULL_ROOM], layouts: [FULL_LAYOUT] });
    const p1 = h.connect('p1');
    const p2 = h.connect('p2');
    const c1 = clientLines('fullgame-p1.client-to-server.txt');
    const c2 = clientLines('fullgame-p2.client-to-server.txt');
    const sendSplit = (c: MemoryClient, text: string): void => {
      for (let i = 0; i < text.length; i += 7) c.send(text.slice(i, i + 7));
    };
    sendSplit(p1, c1.shift()! + '\n');
    sendSplit(p2, c2.shift()! + '\n');
    for (let turn = 0; turn < 60; turn++) {
      const [c, lines] = turn % 2 === 0 ? [p1, c1] : [p2, c2];
      sendSplit(c, lines.shift()! + '\n');
    }
    expect(p1.received).toBe(wire('fullgame-p1.server-to-client.xml'));
    expect(p2.received).toBe(wire('fullgame-p2.server-to-client.xml'));
    expect(h.server.lobby.gamesPlayed).toBe(1);
  });
});

interface Prepared {
  h: Harness;
  admin: MemoryClient;
  p1: MemoryClient;
  p2: MemoryClient;
  room: string;
}

/** What the recorder did before each prepared-* trigger: prepare Alice/Bob, observe, both join. */
function prepared(file: string, layoutName: string): Prepared {
  const room = roomIdOf(wire(`scenarios/${file}`));
  const h = new Harness({ rooms: [room], layouts: [layoutName] });
  const admin = h.connect('admin');
  admin.send('<protocol><authenticate password="examplepassword"/>');
  admin.send(
    '<prepare gameType="swc_2022_ostseeschach" pause="false"><slot displayName="Alice" canTimeout="true" reserved="true"/>' +
      '<slot displayName="Bob" canTimeout="true" reserved="true"/></prepare>',
  );
  const [c1, c2] = [...admin.received.matchAll(/<reservation>([^<]+)<\/reservation>/g)].map((m) => m[1]!);
  admin.send(`<observe roomId="${room}"/>`);
  const p1 = h.connect('p1').send(`<protocol><joinPrepared reservationCode="${c1!}"/>`);
  const p2 = h.connect('p2').send(`<protocol><joinPrepared reservationCode="${c2!}"/>`);
  p1.take();
  p2.take();
  return { h, admin, p1, p2, room };
}

/** A section that starts inside an element was cut by the recorder: compare the end only. */
function expectSection(actualAfterTrigger: string, actualAll: string, section: string): void {
  if (section === '' || section.startsWith('\n  <') || section.startsWith('<protocol>'))
    expect(actualAfterTrigger).toBe(section);
  else
    expect(
      actualAll.endsWith(section),
      `stream should end with\n${section.slice(0, 200)}…\nbut ends with\n${actualAll.slice(-300)}`,
    ).toBe(true);
}

const move = (room: string, fx: number, fy: number, tx: number, ty: number): string =>
  `<room roomId="${room}"><data class="move"><from x="${fx}" y="${fy}"/><to x="${tx}" y="${ty}"/></data></room>`;

/**
 * Layouts read off the recordings: the admin sections show TWO's line, and TWO's piece at
 * (7, 7−i) is ONE's piece i; where a square was cut off, any layout with two of each type that
 * fits the visible part reproduces the bytes.
 */
const SCENARIOS: readonly {
  file: string;
  layout: string;
  labels: readonly string[];
  trigger: (s: Prepared) => void;
}[] = [
  {
    file: 'prepared-bad.txt',
    layout: 'MRMHSHRS',
    labels: ['P1 -> ', 'P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.p1.send(move(s.room, 0, 0, 3, 3)),
  },
  {
    file: 'prepared-empty.txt',
    layout: 'SSHHRMRM',
    labels: ['P1 -> ', 'P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.p1.send(move(s.room, 3, 3, 4, 3)),
  },
  {
    file: 'prepared-notturn.txt',
    layout: 'MRSHMHRS',
    labels: ['P1 -> ', 'P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.p2.send(move(s.room, 7, 0, 6, 0)),
  },
  {
    file: 'prepared-noroom.txt',
    layout: 'SMSMHHRR',
    labels: ['P1 -> ', 'P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.p1.send(move('nope', 3, 3, 4, 3)),
  },
  {
    file: 'prepared-leave.txt',
    layout: 'SRMMRHSH',
    labels: ['P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.p1.close(),
  },
  {
    file: 'prepared-badxml.txt',
    layout: 'RSMSMHHR',
    labels: ['P1 -> ', 'P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.p1.send('<bogus/>'),
  },
  {
    file: 'prepared-hard.txt',
    layout: 'HMHRMRSS',
    labels: ['P1 -> ', 'P2 -> ', 'ADMIN -> '],
    trigger: (s) => s.h.clock.advance(10_500),
  },
];

describe('recorded scenarios of the official server', () => {
  for (const sc of SCENARIOS) {
    it(sc.file, () => {
      const s = prepared(sc.file, sc.layout);
      sc.trigger(s);
      const expected = sections(wire(`scenarios/${sc.file}`), sc.labels);
      const clients: Record<string, MemoryClient> = { 'P1 -> ': s.p1, 'P2 -> ': s.p2, 'ADMIN -> ': s.admin };
      sc.labels.forEach((label, i) => {
        const c = clients[label]!;
        const section = expected[i]!;
        if (section === '#EOF') {
          // Dropped for a protocol error: not one more byte, then the end of the stream.
          expect(c.take()).toBe('');
          expect(c.ended).toBe(true);
          return;
        }
        expectSection(c.take(), c.received, section);
      });
    });
  }

  it('admin-pause-step-errors.txt', () => {
    const text = wire('scenarios/admin-pause-step-errors.txt');
    const room = roomIdOf(text);
    const [
      a1,
      p1Joined,
      a2,
      p1Step,
      a3,
      aUnpause,
      p1Unpause,
      wrongPw,
      unauthObserve,
      joinRoomFull,
      badReservation,
    ] = sections(text, [
      'A1 ',
      'P1 ',
      'A2 ',
      'after step P1 ',
      'A3 ',
      'after unpause A ',
      'P1 ',
      'wrong pw ',
      'unauth observe ',
      'joinRoom full ',
      'bad reservation ',
    ]);
    const h = new Harness({ rooms: [room] });
    const admin = h.connect('admin');
    admin.send('<protocol><authenticate password="examplepassword"/>');
    admin.send(
      '<prepare gameType="swc_2022_ostseeschach" pause="true"><slot displayName="Alice" canTimeout="true" reserved="true"/>' +
        '<slot displayName="Bob" canTimeout="true" reserved="true"/></prepare>',
    );
    const [c1, c2] = [...admin.take().matchAll(/<reservation>([^<]+)<\/reservation>/g)].map((m) => m[1]!);
    admin.send(`<observe roomId="${room}"/>`);
    expect(admin.take()).toBe(a1);
    const p1 = h.connect('p1').send(`<protocol><joinPrepared reservationCode="${c1!}"/>`);
    const p2 = h.connect('p2').send(`<protocol><joinPrepared reservationCode="${c2!}"/>`);
    expect(p1.take()).toBe(p1Joined);
    expect(stripPieces(admin.take())).toBe(a2);
    expect(p2.take()).toContain('<data class="welcomeMessage" color="TWO"/>');

    admin.send(`<step roomId="${room}" forced="false"/>`);
    expect(stripPieces(p1.take())).toBe(p1Step);
    expect(stripPieces(admin.take())).toBe(a3);

    admin.send(`<pause roomId="${room}" pause="false"/>`);
    expect(admin.take()).toBe(aUnpause);
    expect(p1.take()).toBe(p1Unpause);

    admin.send('<authenticate password="wrong"/>');
    expect(admin.take()).toBe(wrongPw);
    expect(h.connect('observer').send(`<protocol><observe roomId="${room}"/>`).take()).toBe(unauthObserve);
    expect(h.connect('late').send(`<protocol><joinRoom roomId="${room}"/>`).take()).toBe(joinRoomFull);
    expect(h.connect('bogus').send('<protocol><joinPrepared reservationCode="bogus"/>').take()).toBe(
      badReservation,
    );
  });

  it('join-invalid-then-CloseConnection.txt', () => {
    const text = wire('scenarios/join-invalid-then-CloseConnection.txt');
    const room = roomIdOf(text);
    const firstLineEnd = text.indexOf('\n');
    const p1Start = text.slice(1, firstLineEnd - 1).replaceAll('\\n', '\n');
    const p1Tail = text.slice(firstLineEnd + 1, text.indexOf('\nP2 '));
    const p2Tail = text.slice(text.indexOf('\nP2 ') + 4, text.indexOf('\n--- now P1'));
    expect(text).toContain("--- now P1 sends </protocol>\n'\\n</protocol>#EOF'\n--- P2 idles 3s\n''");

    const h = new Harness({ rooms: [room] });
    const p1 = h.connect('p1').send('<protocol><join/>');
    expect(p1.received).toBe(p1Start);
    const p2 = h.connect('p2').send('<protocol><join/>');
    p1.send(move(room, 0, 0, 3, 3));
    expect(p1.received.endsWith(p1Tail)).toBe(true);
    expect(p2.received.endsWith(p2Tail)).toBe(true);
    p1.take();
    p2.take();
    p1.send('</protocol>');
    expect(p1.take()).toBe('\n</protocol>');
    expect(p1.ended).toBe(true);
    h.clock.advance(3000);
    expect(p2.take()).toBe('');
    expect(p2.ended).toBe(false);
  });
});
