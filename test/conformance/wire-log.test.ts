import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LineFramer } from '../../src/core/framing.js';
import type { ClientProcess } from '../../src/conformance/launch.js';
import { formatEntries, formatFailure, formatJUnit, formatJson, formatText, groupMarks } from '../../src/conformance/report.js';
import type { ScenarioResult } from '../../src/conformance/runner.js';
import { FRAGMENT_MS, ScriptedConnection, WireLog, tcpEndpoint, type Endpoint, type WireLogEntry } from '../../src/conformance/wire.js';
import { formatServer, STREAM_CLOSE, STREAM_OPEN } from '../../src/games/ostseeschach/protocol.js';

/**
 * Issue 32: every byte that arrived is in the wire log (a packet's last line without a newline
 * too, blank lines not as evidence), and the wire view shows which lines went in one write (or
 * came in one read).
 */

const noClient = { exit: () => null, exited: new Promise(() => undefined) } as unknown as ClientProcess;

function scripted(kind: 'tcp' | 'udp' = 'tcp'): { log: WireLog; conn: ScriptedConnection; writes: Buffer[] } {
  const log = new WireLog();
  const writes: Buffer[] = [];
  const endpoint: Endpoint = {
    kind,
    write: (data) => {
      writes.push(data);
      return Promise.resolve();
    },
    halfClose: () => Promise.resolve(),
    close: () => undefined,
  };
  const conn = new ScriptedConnection(endpoint, log, noClient, { scale: 1, maxLineBytes: 1000, addresses: { host: '127.0.0.1', port: 1, clientPort: 0 } });
  return { log, conn, writes };
}

const shown = (log: WireLog, dir: WireLogEntry['dir'] = 'sent'): string[] => log.entries.filter((e) => e.dir === dir).map((e) => e.text);
/** The non-blank lines of what went out, as the client reads them. */
const linesOf = (writes: readonly Buffer[]): string[] =>
  Buffer.concat(writes)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

afterEach(() => {
  vi.useRealTimers();
});

describe('the wire log', () => {
  it('logs every line of Ostseeschach packets, which start with a line break and end without one, and no blank lines', async () => {
    const { log, conn, writes } = scripted();
    const room = 'aaaa';
    const packets = [
      STREAM_OPEN + formatServer({ type: 'joined', roomId: room }),
      formatServer({ type: 'room', roomId: room, data: { class: 'moveRequest' } }),
      formatServer({ type: 'left', roomId: room }),
      formatServer({ type: 'closeConnection' }),
      STREAM_CLOSE,
    ];
    for (const p of packets) await conn.sendRaw(p);
    expect(packets.every((p) => !p.endsWith('\n'))).toBe(true);
    expect(shown(log)).toEqual(linesOf(writes));
    expect(shown(log)).toEqual([
      '<protocol>',
      `  <joined roomId="${room}"/>`,
      `  <room roomId="${room}">`,
      '    <data class="moveRequest"/>',
      '  </room>',
      `  <left roomId="${room}"/>`,
      '  <sc.protocol.CloseConnection/>',
      '</protocol>',
    ]);
    expect(shown(log)).not.toContain('');
  });

  it('continues a line whose rest comes within FRAGMENT_MS, starts a new entry after a pause, and counts the writes of a line', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { log, conn } = scripted();
    await conn.sendRaw('+ MO');
    vi.advanceTimersByTime(FRAGMENT_MS - 1);
    await conn.sendRaw('VE 3000\n+ TH');
    vi.advanceTimersByTime(FRAGMENT_MS + 1);
    await conn.sendRaw('INK\n\n\n');
    expect(log.entries.map((e) => [e.text, e.pieces ?? 1])).toEqual([
      ['+ MOVE 3000', 2],
      ['+ TH', 1],
      ['INK', 1],
    ]);
    // A line is logged with its first byte, so a last line that never gets its newline is there too.
    await conn.sendRaw('+ QUIT');
    expect(shown(log).at(-1)).toBe('+ QUIT');
  });

  it('logs lines sent in pieces whole (also a UTF-8 character cut in two), with the note of the cuts', async () => {
    const { log, conn, writes } = scripted();
    const line = 'PLAYER Ärger';
    await conn.send([line, 'OK'], { splitAt: [8, 12], gapMs: FRAGMENT_MS + 50 });
    expect(writes).toHaveLength(3);
    expect(shown(log)).toEqual([line, 'OK']);
    expect(log.entries.find((e) => e.text === line)?.pieces).toBe(3);
    expect(log.entries.at(-2)).toMatchObject({ dir: 'note', text: '(the 2 line(s) above in 3 writes, cut at bytes 8, 12)' });
    // Issue 32: the character a cut splits is named, and kept for a headline.
    expect(log.entries.at(-1)).toMatchObject({ dir: 'note', text: '(a write of the server ends inside "Ä" (U+00C4, 2 bytes) at byte 8: the character comes in two writes)' });
    const cuts = conn.cutBefore(log.now());
    expect(cuts?.map((c) => [c.char, c.offset, c.by])).toEqual([['Ä', 8, 'write']]);
    expect(conn.afterSent(log.now())).toMatch(/^\d+ ms after the server's 13-byte line "PLAYER Ärger", whose "Ä" \(U\+00C4, 2 bytes\) came in two writes, cut at byte 8 of the write$/);
  });

  it('names a character that lies across a usual read size of a long line or datagram only where the kit cut it', async () => {
    const { log, conn } = scripted();
    // Sent whole: no cut (a client that reads the stream gets it whole), and the long line is named by its length.
    const long = `+ ${'x'.repeat(998)}€${'y'.repeat(300)}`;
    await conn.send([long]);
    expect(conn.cutBefore(log.now())).toBeNull();
    expect(conn.afterSent(log.now())).toMatch(/^\d+ ms after the server's 1303-byte line "\+ x{38}…"$/);
  });

  it('gives the lines of one write and of one read the same group, and each datagram its own', async () => {
    const { log, conn } = scripted();
    await conn.send(['+ YOU 0 White', '+ TOTAL 2', '+ ENDPLAYERS']);
    await conn.send(['+ MOVE 3000']);
    conn.receive([
      { kind: 'line', line: 'THINKING' },
      { kind: 'line', line: 'PLAY A3:B4' },
    ]);
    conn.receive([{ kind: 'line', line: 'OKWAIT' }]);
    const group = (text: string): number | undefined => log.entries.find((e) => e.text === text)?.write;
    expect(new Set(['+ YOU 0 White', '+ TOTAL 2', '+ ENDPLAYERS'].map(group)).size).toBe(1);
    expect(group('+ MOVE 3000')).not.toBe(group('+ ENDPLAYERS'));
    expect(group('THINKING')).toBe(group('PLAY A3:B4'));
    expect(group('OKWAIT')).not.toBe(group('PLAY A3:B4'));
    expect(groupMarks(log.entries)).toEqual(['first', 'middle', 'last', 'single', 'first', 'last', 'single']);

    const udp = scripted('udp');
    await udp.conn.send(['ROUND STARTING;t', 'HEARTBEAT']);
    udp.conn.receive([{ kind: 'line', line: 'JOIN;t' }]);
    expect(new Set(udp.log.entries.map((e) => e.write)).size).toBe(3);
    expect(groupMarks(udp.log.entries)).toEqual(['single', 'single', 'single']);
  });

  it('logs a client line that never got its newline when the connection ends', async () => {
    const log = new WireLog();
    const server: Server = createServer({ allowHalfOpen: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect({ host: '127.0.0.1', port });
    const socket = await accepted;
    const { endpoint, attach } = tcpEndpoint(socket, log, new LineFramer(100));
    const conn = new ScriptedConnection(endpoint, log, noClient, { scale: 1, maxLineBytes: 100, addresses: { host: '127.0.0.1', port, clientPort: 0 } });
    attach(conn);
    client.end('PLAYER 0\nQUIT');
    await conn.expect(/^PLAYER 0$/, 2000, 'PLAYER');
    await conn.expectClose(2000, 'after QUIT');
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(shown(log, 'received')).toEqual(['PLAYER 0', 'QUIT']);
    expect(log.entries.some((e) => e.dir === 'note' && /without a newline/.test(e.text))).toBe(true);
  });
});

describe('the wire view of the report', () => {
  const wire: WireLogEntry[] = [
    { atMs: 10, dir: 'received', text: 'PLAYER 0', write: 1 },
    { atMs: 12, dir: 'sent', text: '+ YOU 0 White', write: 2 },
    { atMs: 12, dir: 'sent', text: '+ TOTAL 2', write: 2 },
    { atMs: 12, dir: 'sent', text: '+ ENDPLAYERS', write: 2 },
    { atMs: 12, dir: 'sent', text: '+ MOVE 3000', write: 2 },
    { atMs: 20, dir: 'sent', text: '  </room>', write: 3, pieces: 2 },
    { atMs: 3300, dir: 'note', text: 'FAIL: sent nothing where the server expected THINKING' },
  ];
  const result: ScenarioResult = {
    game: 'dame',
    warnings: [],
    id: 'coalesced-reads',
    title: 'groups in one write',
    scriptedSide: 'server',
    status: 'fail',
    durationMs: 3300,
    message: 'sent nothing where the server expected THINKING within 3200 ms of + MOVE 3000 (waited 3200 ms)',
    judgement: { rule: 'TCP is a byte stream', section: 'spec §2.1', hint: 'Split every read into lines.' },
    excerpt: wire.slice(2),
    wire,
    stdout: '',
    stderr: '',
    exit: null,
    stopped: true,
  };

  it('marks the lines of one write in the text, in JUnit and in JSON, also a group cut by the excerpt', () => {
    const text = formatText('dame', [result]);
    expect(text).toContain('┌│└ lines that went in one write (S:) or came in one read (C:)');
    // The excerpt starts inside the write of four lines: the group goes on (│) up to its last (└).
    expect(text).toContain('+    12ms │S: + TOTAL 2\n');
    expect(text).toContain('+    12ms │S: + ENDPLAYERS\n');
    expect(text).toContain('+    12ms └S: + MOVE 3000\n');
    expect(text).toContain('+    20ms  S:   </room>  [this line in 2 writes]\n');
    expect(text).toContain('+  3300ms  .. FAIL: sent nothing where the server expected THINKING\n');
    expect(formatJUnit('dame', [result])).toContain('+    12ms └S: + MOVE 3000');
    const json = JSON.parse(formatJson('dame', [result])) as { scenarios: { excerpt: WireLogEntry[] }[] };
    expect(json.scenarios[0]!.excerpt.map((e) => e.write)).toEqual([2, 2, 2, 3, undefined]);
    // Without the whole log (e.g. an excerpt read back from JSON) the excerpt's own groups count.
    expect(formatEntries(wire.slice(2).map((e) => ({ ...e })), [])[0]).toMatch(/^\+ {4}12ms ┌S:/);
    expect(formatEntries(wire)[0]).toMatch(/^\+ {4}10ms {2}C: PLAYER 0$/);
  });

  it('shows no marks and no legend when every line went alone', () => {
    const alone = { ...result, excerpt: [wire[0]!, wire[4]!, wire[6]!], wire: [wire[0]!, wire[4]!, wire[6]!] };
    const text = formatFailure(alone);
    expect(text).not.toMatch(/[┌│└]/);
    expect(text).toContain('+    12ms  S: + MOVE 3000');
  });
});
