import type { Clock, Timer } from '../../../core/clock.js';
import type { OutgoingMessage } from '../protocol.js';
import { Repeater } from './repeater.js';
import type { Address, PeerTiming } from './types.js';

/**
 * What still goes to a former opponent after a game (specs §3.6, §3.7): the end window (stage 5 at
 * most 5 times, our final move alongside), the aborting side's 99s (until acknowledged, at most 30)
 * or the acknowledging side's 99s (exactly 10). At most one of them runs; a new game stops it.
 */
export class Trailing {
  private endWindow: { gameId: string; gameOver: Repeater; finalMove: Repeater | null; close: Timer } | null =
    null;
  private aborting: { key: string; sender: Repeater } | null = null;
  private acknowledging: Repeater | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly timing: PeerTiming,
    private readonly send: (to: Address, message: OutgoingMessage) => void,
  ) {}

  /** Stage 5 now and every 2 s, at most `endRepeats` times; `onClose` when the window is over. */
  startEndWindow(gameId: string, to: Address, finalMove: Repeater | null, onClose: () => void): void {
    this.stop();
    const repeats = this.timing.endRepeats;
    const gameOver = new Repeater(
      this.clock,
      this.timing.resendMs,
      () => this.send(to, { kind: 'game-over' }),
      repeats,
    );
    const close = this.clock.setTimeout(() => {
      if (this.endWindow?.gameId !== gameId) return;
      this.stop();
      onClose();
    }, repeats * this.timing.resendMs);
    this.endWindow = { gameId, gameOver, finalMove, close };
    gameOver.start();
  }

  /** We abort: 99 every 2 s until `acknowledged`, at most `abortMaxSends` times. */
  startAbort(key: string, to: Address): void {
    this.stop();
    this.aborting = { key, sender: this.abortSender(to, this.timing.abortMaxSends) };
    this.aborting.sender.start();
  }

  /** The opponent aborted: 99 back every 2 s, exactly `ackSends` times; more 99s do not restart it. */
  startAcknowledgement(to: Address): void {
    this.stop();
    this.acknowledging = this.abortSender(to, this.timing.ackSends).start();
  }

  /** A 99 arrived from `key`: if we are aborting towards it, that is the acknowledgement. */
  acknowledged(key: string): void {
    if (this.aborting?.key !== key) return;
    this.aborting.sender.stop();
    this.aborting = null;
  }

  stop(): void {
    const w = this.endWindow;
    if (w) {
      w.gameOver.stop();
      w.finalMove?.stop();
      w.close.cancel();
      this.endWindow = null;
    }
    this.aborting?.sender.stop();
    this.aborting = null;
    this.acknowledging?.stop();
    this.acknowledging = null;
  }

  private abortSender(to: Address, limit: number): Repeater {
    return new Repeater(this.clock, this.timing.resendMs, () => this.send(to, { kind: 'abort' }), limit);
  }
}
