import { connect, type Socket } from 'node:net';

/** A scripted TCP client to 127.0.0.1 (from `localAddress`, default 127.0.0.1) that records every line it receives. */
export class RawClient {
  readonly lines: string[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number, localAddress?: string): Promise<RawClient> {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true, ...(localAddress === undefined ? {} : { localAddress }) });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(text: string | Buffer): void {
    this.socket.write(typeof text === 'string' ? text + '\n' : text);
  }

  /** Waits until `test` holds (checked after every chunk and at the close), or fails after `ms`. */
  async until(test: () => boolean, what: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got:\n${this.lines.slice(-12).join('\n')}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async count(n: number, ms = 5000): Promise<string[]> {
    await this.until(() => this.lines.length >= n, `${n} lines`, ms);
    return this.lines.slice(0, n);
  }

  /** The next line after `from` that matches, waiting for it. */
  async expect(pattern: RegExp | string, from = 0, ms = 5000): Promise<string> {
    const match = (l: string): boolean => (typeof pattern === 'string' ? l === pattern : pattern.test(l));
    await this.until(() => this.lines.slice(from).some(match), String(pattern), ms);
    return this.lines.slice(from).find(match)!;
  }

  async closedByServer(ms = 5000): Promise<void> {
    await this.until(() => this.closed, 'the server to close', ms);
  }

  close(): void {
    this.socket.destroy();
  }
}
