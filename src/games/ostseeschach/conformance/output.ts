import type { ScriptedWire } from '../../../core/conformance.js';
import { STREAM_CLOSE, STREAM_OPEN, formatServer, type ServerPacket } from '../protocol.js';

/** One write per packet (the server's way), cut in pieces, several packets in one, or slow pieces. */
export type WriteMode = 'packets' | 'split' | 'coalesced' | 'slow';

/** How packets go out: the write modes, and `<protocol>` before the first one (spec §3.1). */
export class Output {
  private opened = false;
  private held: string[] = [];

  constructor(
    private readonly wire: ScriptedWire,
    private readonly mode: WriteMode,
  ) {}

  /** `cut`: in the server's way (one packet a write), this packet cut into writes at these byte offsets. */
  async packet(p: ServerPacket, cut: { splitAt?: readonly number[]; gapMs?: number } = {}): Promise<void> {
    let text = formatServer(p);
    if (!this.opened) {
      text = STREAM_OPEN + text;
      this.opened = true;
    }
    switch (this.mode) {
      case 'packets':
        return this.wire.sendRaw(text, cut);
      case 'coalesced':
        this.held.push(text);
        return;
      case 'split': {
        // After the first character, in the middle, before the last: no read holds a whole packet.
        const cuts = [0, 1, Math.floor(text.length / 2), text.length - 1, text.length];
        for (let i = 0; i + 1 < cuts.length; i++) {
          if (i > 0) await this.wire.delay(15);
          await this.wire.sendRaw(text.slice(cuts[i], cuts[i + 1]));
        }
        return;
      }
      case 'slow':
        await this.wire.delay(100);
        for (let i = 0; i < text.length; i += 256) {
          if (i > 0) await this.wire.delay(20);
          await this.wire.sendRaw(text.slice(i, i + 256));
        }
        return;
    }
  }

  /** Coalesced packets go out in one write before the server waits. */
  async flush(): Promise<void> {
    if (this.held.length === 0) return;
    const text = this.held.join('');
    this.held = [];
    await this.wire.sendRaw(text);
  }

  /** The end of the server's stream (`</protocol>`, also when nothing was sent before). */
  async close(): Promise<void> {
    await this.flush();
    await this.wire.sendRaw(this.opened ? STREAM_CLOSE : '<protocol/>');
  }
}
