import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

/**
 * A scripted raw TCP client for the Dame server tests: it keeps every chunk it receives, so a
 * test can check not only the lines but also how they were grouped into writes (spec §2.6).
 */

export interface Chunk {
  at: number;
  lines: string[];
}

export class RawClient {
  readonly chunks: Chunk[] = [];
  /** Every line received, in order. */
  readonly lines: string[] = [];
  /** Every line sent. */
  readonly sent: string[] = [];
  private partial = '';
  private chunkIndex = 0;
  private lineIndex = 0;
  private waiters: (() => void)[] = [];
  ended = false;
  readonly openedAt = Date.now();
  /** Answer every `+ WAIT` with OKWAIT at once. */
  autoOkWait = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      const text = this.partial + data.toString('latin1');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      if (parts.length > 0) {
        this.chunks.push({ at: Date.now(), lines: parts });
        this.lines.push(...parts);
        if (this.autoOkWait && parts.includes('+ WAIT') && !this.socket.destroyed) this.send('OKWAIT');
      }
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => {
      this.ended = true;
      this.wake();
    });
  }

  /** `localAddress`: the client's own address, e.g. 127.0.0.2 for an attacker the server can tell apart. */
  static open(port: number, localAddress?: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, noDelay: true, ...(localAddress === undefined ? {} : { localAddress }) });
      socket.once('connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private async until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got so far:\n${this.lines.join('\n')}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  send(line: string): void {
    this.sent.push(line);
    this.socket.write(line + '\n');
  }

  sendRaw(data: Buffer | string): void {
    this.socket.write(data);
  }

  /** The next chunk (one server write, if the server grouped correctly). */
  async nextGroup(timeoutMs = 5000): Promise<string[]> {
    await this.until(() => this.chunkIndex < this.chunks.length, timeoutMs, 'a group');
    const chunk = this.chunks[this.chunkIndex++]!;
    this.lineIndex = this.chunks.slice(0, this.chunkIndex).reduce((n, c) => n + c.lines.length, 0);
    return chunk.lines;
  }

  /** The next group's first line without taking it, or null at the end of the connection. */
  async peekGroup(timeoutMs = 5000): Promise<string[] | null> {
    await this.until(() => this.chunkIndex < this.chunks.length || this.ended, timeoutMs, 'a group or the end');
    return this.chunks[this.chunkIndex]?.lines ?? null;
  }

  /** The next line, whatever chunk it came in. */
  async next(timeoutMs = 5000): Promise<string> {
    await this.until(() => this.lineIndex < this.lines.length, timeoutMs, 'a line');
    const line = this.lines[this.lineIndex++]!;
    // Keep chunk reading in step with line reading.
    let seen = 0;
    for (let i = 0; i < this.chunks.length; i++) {
      seen += this.chunks[i]!.lines.length;
      if (seen >= this.lineIndex) {
        this.chunkIndex = seen === this.lineIndex ? i + 1 : i;
        break;
      }
    }
    return line;
  }

  /** Reads lines until one matches; returns it. */
  async waitFor(match: string | RegExp, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = await this.next(Math.max(1, deadline - Date.now()));
      if (typeof match === 'string' ? line === match : match.test(line)) return line;
    }
  }

  async closed(timeoutMs = 5000): Promise<void> {
    await this.until(() => this.ended, timeoutMs, 'the server to close the connection');
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Runs the prolog up to ENDPLAYERS (v2: no MOTD); returns the lines of the player group. */
export async function join(
  port: number,
  gameId: string,
  player = 'PLAYER',
  version = '2.1',
  localAddress?: string,
): Promise<{ client: RawClient; players: string[] }> {
  const client = await RawClient.open(port, localAddress);
  await client.waitFor(/^\+ MNM Gameserver/);
  client.send(`VERSION ${version}`);
  await client.waitFor('+ Client version accepted - please send Game-ID to join');
  client.send(`ID ${gameId}`);
  const playing = await client.waitFor(/^(\+ PLAYING Checkers|-)/);
  if (playing.startsWith('-')) return { client, players: [playing] };
  await client.next();
  client.send(player);
  const players = [await client.next()];
  while (players[players.length - 1] !== '+ ENDPLAYERS' && !players[players.length - 1]!.startsWith('-')) players.push(await client.next());
  return { client, players };
}

/** Reads a MOVE block (MOVE … ENDBOARD) and returns its lines. */
export async function readMove(client: RawClient, timeoutMs = 5000): Promise<string[]> {
  const lines = [await client.waitFor(/^\+ MOVE \d+$/, timeoutMs)];
  while (lines[lines.length - 1] !== '+ ENDBOARD') lines.push(await client.next());
  return lines;
}

// ---- transcripts ---------------------------------------------------------------------------------

/**
 * A transcript file: `S: <line>` server lines (consecutive ones are one write; `--` splits two
 * writes), `C: <line>` client lines, `{+` / `{*` … `}` a block repeated one/zero or more times,
 * `@signal <name>` / `@await <name>` to order two clients, `@closed` the server closes here.
 * `#` starts a comment line.
 */
export type Step =
  | { kind: 'group'; lines: string[] }
  | { kind: 'client'; line: string }
  | { kind: 'repeat'; min: 0 | 1; body: Step[] }
  | { kind: 'signal'; name: string }
  | { kind: 'await'; name: string }
  | { kind: 'closed' };

export function parseTranscript(path: string): Step[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  let i = 0;
  const block = (): Step[] => {
    const steps: Step[] = [];
    let group: string[] | null = null;
    const endGroup = (): void => {
      if (group) steps.push({ kind: 'group', lines: group });
      group = null;
    };
    while (i < lines.length) {
      const line = lines[i++]!;
      if (line.trim() === '' || line.startsWith('#')) continue;
      if (line.startsWith('S: ')) (group ??= []).push(line.slice(3));
      else {
        endGroup();
        if (line === '--') continue;
        if (line.startsWith('C: ')) steps.push({ kind: 'client', line: line.slice(3) });
        else if (line === '{+' || line === '{*') steps.push({ kind: 'repeat', min: line === '{+' ? 1 : 0, body: block() });
        else if (line === '}') return steps;
        else if (line.startsWith('@signal ')) steps.push({ kind: 'signal', name: line.slice(8) });
        else if (line.startsWith('@await ')) steps.push({ kind: 'await', name: line.slice(7) });
        else if (line === '@closed') steps.push({ kind: 'closed' });
        else throw new Error(`bad transcript line ${i}: ${line}`);
      }
    }
    endGroup();
    return steps;
  };
  return block();
}

export class Signals {
  private readonly fired = new Map<string, () => void>();
  private readonly promises = new Map<string, Promise<void>>();

  private entry(name: string): Promise<void> {
    let p = this.promises.get(name);
    if (!p) {
      p = new Promise<void>((resolve) => this.fired.set(name, resolve));
      this.promises.set(name, p);
    }
    return p;
  }

  signal(name: string): void {
    void this.entry(name);
    this.fired.get(name)!();
  }

  wait(name: string): Promise<void> {
    return this.entry(name);
  }
}

/**
 * Plays a transcript against a connected client: every server group must arrive as exactly one
 * chunk with exactly these lines; client lines are sent as written.
 */
export async function runTranscript(client: RawClient, steps: readonly Step[], signals: Signals, timeoutMs = 6000): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case 'group': {
        const got = await client.nextGroup(timeoutMs);
        if (got.join('\n') !== step.lines.join('\n')) {
          throw new Error(`expected the group\n${step.lines.join('\n')}\nbut got\n${got.join('\n')}`);
        }
        break;
      }
      case 'client':
        client.send(step.line);
        break;
      case 'repeat': {
        const first = step.body.find((s) => s.kind === 'group');
        if (first?.kind !== 'group') throw new Error('a repeat block needs a server group');
        let n = 0;
        for (;;) {
          const next = await client.peekGroup(timeoutMs);
          if (next?.[0] !== first.lines[0]) break;
          await runTranscript(client, step.body, signals, timeoutMs);
          n++;
        }
        if (n < step.min) throw new Error(`expected the block starting with ${first.lines[0] ?? ''} at least ${step.min} time(s)`);
        break;
      }
      case 'signal':
        signals.signal(step.name);
        break;
      case 'await':
        await signals.wait(step.name);
        break;
      case 'closed': {
        const next = await client.peekGroup(timeoutMs);
        if (next !== null) throw new Error(`expected the connection to close, got\n${next.join('\n')}`);
        break;
      }
    }
  }
}
