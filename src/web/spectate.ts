import type { WebSocket } from 'ws';
import type { GameServer, SpectatorEvent } from '../core/game-server.js';
import type { Logger } from '../core/log.js';

/**
 * One spectator socket: a snapshot on open, then every public event, and a fresh snapshot at
 * most every `throttleMs` while events keep coming (trailing edge, so the last state always
 * arrives). Nothing here may throw into the game server: sends are guarded, and a socket whose
 * send buffer is full is skipped until it drains (the next snapshot repairs what it missed).
 */

export const UNKNOWN_GAME_CLOSE_CODE = 4404;

export interface SpectateOptions {
  throttleMs?: number;
  /** Above this many buffered bytes messages are dropped. */
  maxBufferedBytes?: number;
}

const OPEN = 1;

export function spectate(
  socket: WebSocket,
  server: GameServer | undefined,
  game: string,
  log: Logger,
  options: SpectateOptions = {},
): void {
  if (!server) {
    socket.close(UNKNOWN_GAME_CLOSE_CODE, 'unknown game');
    return;
  }
  const throttleMs = options.throttleMs ?? 100;
  const maxBuffered = options.maxBufferedBytes ?? 1 << 20;
  let timer: NodeJS.Timeout | null = null;
  let lastSnapshotAt = 0;
  let closed = false;

  const send = (message: unknown): boolean => {
    if (closed || socket.readyState !== OPEN) return false;
    if (socket.bufferedAmount > maxBuffered) return false;
    try {
      socket.send(JSON.stringify(message));
      return true;
    } catch (err) {
      log.debug({ err, game }, 'spectator send failed');
      return false;
    }
  };

  const sendSnapshot = (): void => {
    timer = null;
    let data: unknown;
    try {
      data = server.snapshot();
    } catch (err) {
      log.error({ err, game }, 'snapshot failed');
      return;
    }
    if (send({ type: 'snapshot', game, data })) lastSnapshotAt = Date.now();
  };

  const onEvent = (event: SpectatorEvent): void => {
    send({ type: 'event', game, event });
    if (timer === null && !closed) {
      const wait = Math.max(0, lastSnapshotAt + throttleMs - Date.now());
      timer = setTimeout(sendSnapshot, wait);
    }
  };

  let unsubscribe: () => void = () => undefined;
  const cleanUp = (): void => {
    if (closed) return;
    closed = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    unsubscribe();
  };
  socket.on('close', cleanUp);
  socket.on('error', (err) => {
    log.debug({ err, game }, 'spectator socket error');
    cleanUp();
  });
  // Spectators only listen; anything they send is ignored.

  sendSnapshot();
  try {
    unsubscribe = server.subscribe(onEvent);
  } catch (err) {
    log.error({ err, game }, 'subscribe failed');
    socket.close(1011, 'internal error');
  }
}
