import { createSocket, type Socket } from 'node:dgram';

/** A raw UDP peer on 127.0.0.1 for integration tests: send datagrams, await received lines. */
export class UdpPeer {
  readonly lines: string[] = [];
  private waiters: (() => void)[] = [];
  private constructor(
    readonly socket: Socket,
    private readonly server: number,
  ) {
    socket.on('message', (msg) => {
      this.lines.push(msg.toString('utf8'));
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    });
  }

  static async open(serverPort: number, address = '127.0.0.1'): Promise<UdpPeer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, address, resolve));
    return new UdpPeer(socket, serverPort);
  }

  get port(): number {
    return this.socket.address().port;
  }

  send(data: string | Buffer): void {
    this.socket.send(data, this.server, '127.0.0.1');
  }

  /** Waits for the first line (from index `from` on) that matches, and returns it. */
  async expect(match: RegExp | string, timeoutMs = 2000, from = 0): Promise<string> {
    const test = (l: string) => (typeof match === 'string' ? l === match : match.test(l));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find(test);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${String(match)}; got:\n${this.lines.slice(-15).join('\n')}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Like expect, but only lines that arrive after this call. */
  next(match: RegExp | string, timeoutMs = 2000): Promise<string> {
    return this.expect(match, timeoutMs, this.lines.length);
  }

  token(line: string): string {
    return line.slice(line.lastIndexOf(';') + 1);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
