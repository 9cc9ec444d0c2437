/**
 * The part of `ws` (a dependency of @fastify/websocket, shipped without types) that the web layer
 * and its tests use. @fastify/websocket's own declarations resolve `ws` to this module, so the
 * socket handed to a route handler is typed too. Replace with @types/ws once it is a dev dependency.
 */
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';

  export type RawData = Buffer | ArrayBuffer | Buffer[];

  export interface ClientOptions {
    headers?: Record<string, string>;
    handshakeTimeout?: number;
    maxPayload?: number;
  }

  export class WebSocket extends EventEmitter {
    static readonly CONNECTING: 0;
    static readonly OPEN: 1;
    static readonly CLOSING: 2;
    static readonly CLOSED: 3;
    readonly CONNECTING: 0;
    readonly OPEN: 1;
    readonly CLOSING: 2;
    readonly CLOSED: 3;
    readonly readyState: 0 | 1 | 2 | 3;
    readonly bufferedAmount: number;
    readonly url: string;
    constructor(address: string | URL, options?: ClientOptions);
    send(data: string | Buffer, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string | Buffer): void;
    terminate(): void;
    ping(data?: unknown, mask?: boolean, cb?: (err: Error) => void): void;

    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'open', listener: () => void): this;
    on(event: 'unexpected-response', listener: (req: unknown, res: IncomingMessage) => void): this;
    on(event: string | symbol, listener: (...args: unknown[]) => void): this;
    once(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    once(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    once(event: 'error', listener: (err: Error) => void): this;
    once(event: 'open', listener: () => void): this;
    once(event: string | symbol, listener: (...args: unknown[]) => void): this;
  }

  export interface ServerOptions {
    host?: string;
    port?: number;
    maxPayload?: number;
    clientTracking?: boolean;
    perMessageDeflate?: boolean;
    noServer?: boolean;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options?: ServerOptions, callback?: () => void);
    readonly clients: Set<WebSocket>;
    close(cb?: (err?: Error) => void): void;
  }
  export { WebSocketServer as Server };

  export default WebSocket;
}
