/**
 * The conformance kit's interface between a game and the runner (`spielhalle check-client`,
 * src/conformance): a game describes its scenarios as data, the runner plays them over real TCP
 * against the client under test and judges what it sends. Games import only this file, never
 * src/conformance.
 */
import type { FramedItem } from './framing.js';

/** What the kit tells a student when a scenario fails: the rule, where it is written, what to do. */
export interface Judgement {
  /** The rule in one sentence, e.g. "Answer every + WAIT with OKWAIT within 3000 ms". */
  rule: string;
  /** The spec, seed or docs section, e.g. "spec §2.3; docs/dame.md decision 8". */
  section: string;
  /** One sentence that points at the typical cause. */
  hint: string;
}

/** One line on the wire (or an event on it), with its time relative to the scenario's start. */
export interface WireEntry {
  atMs: number;
  /** `sent`: by the scripted server; `received`: from the client; `note`: a connection or process event. */
  dir: 'sent' | 'received' | 'note';
  text: string;
  /** Lines of one write, read or datagram share this id (the wire view groups them). */
  write?: number;
  /** A line that came in several writes: how many. */
  pieces?: number;
}

/**
 * The scripted server's side of one connection, as scripts use it. Every `withinMs` is nominal:
 * the runner multiplies it by `--timeout-scale`. A judgement fails by throwing ConformanceFailure
 * (the methods below do so themselves).
 *
 * Over UDP (GameConformance.transport) a "line" is one datagram: `send` writes each line as one
 * datagram, exactly as given (no newline added; `splitAt` is not possible), `sendRaw` one datagram,
 * to where the client's last datagram came from (before the first, to 127.0.0.1:{clientPort}).
 * The connection "ends" when the client's process exits; `halfClose` only notes, `close` stops the
 * scripted socket, and `expectClose` is not available (use `expectExit`).
 */
export interface ScriptedWire {
  /** One write of these lines (each ends in `\n`); `splitAt` cuts the bytes into several writes `gapMs` apart. */
  send(lines: readonly string[], options?: { splitAt?: readonly number[]; gapMs?: number }): Promise<void>;
  /** Raw bytes in one write (for tests of the framing); `splitAt` cuts them into several writes `gapMs` apart, as `send` does. */
  sendRaw(text: string, options?: { splitAt?: readonly number[]; gapMs?: number }): Promise<void>;
  /**
   * The client's next line; fails when none comes within `withinMs`, when the connection ends
   * first, when the line does not match, or when it was sent before the last `send` was complete
   * (an answer to something the server had not asked yet).
   */
  expect(pattern: RegExp, withinMs: number, what: string, judgement?: Partial<Judgement>): Promise<string>;
  /** The client's next line within `withinMs`, or null when none came (no judgement). */
  next(withinMs: number): Promise<string | null>;
  /** Fails when the client sends any line within `ms`. */
  expectSilence(ms: number, what: string, judgement?: Partial<Judgement>): Promise<void>;
  delay(ms: number): Promise<void>;
  /** Sends FIN (the client reads end-of-file) but keeps reading what the client still sends. */
  halfClose(): Promise<void>;
  /** Closes the connection at once. */
  close(): void;
  /** Fails unless the client closes its side within `withinMs`; any line before that fails too. */
  expectClose(withinMs: number, what: string, judgement?: Partial<Judgement>): Promise<void>;
  /** Fails unless the client's process exits within `withinMs` (with `code`, or any code when omitted; a signal fails). */
  expectExit(withinMs: number, what: string, options?: { code?: number; judgement?: Partial<Judgement> }): Promise<void>;
  /**
   * Takes the lines that arrived before the last `send` was complete: they crossed it on the wire
   * (e.g. a PLAY written while the server wrote GAMEOVER), so no rule can blame them.
   */
  takeCrossed(): string[];
  /**
   * takeCrossed, and also the lines that arrive up to `graceMs` after the last send was complete:
   * a client process that was not scheduled for a moment cannot have read it yet.
   */
  takeCrossedWithin(graceMs: number): Promise<string[]>;
  /** Ends the scenario as failed. */
  fail(message: string, judgement?: Partial<Judgement>): never;
  /** A note in the wire log (what the script decided, e.g. the opponent's move). */
  note(text: string): void;
  /**
   * A deviation the spec tells the other side to tolerate (e.g. Connect Four's `"version":"2"` as a
   * string): reported and counted as a warning, in the wire log too; the scenario goes on and
   * judges the rest. The same text is kept once.
   */
  warn(text: string): void;
  /** Milliseconds since the scenario started. */
  now(): number;
  /**
   * When the last line `next` or `expect` returned was read (ms since the scenario started): a kit
   * slowed by a busy machine may take a line at its deadline that came well after it.
   */
  readonly lastTakenAt: number;
  /** The nominal time scaled by --timeout-scale (for deadlines a script computes itself). */
  scaled(ms: number): number;
  /**
   * Whether the client is gone: TCP, its side of the connection closed; UDP, its process exited.
   * (`next` returns null both on a timeout and at the end; this tells them apart.)
   */
  ended(): boolean;
  /** Where the scripted side listens, and the port the client was told to bind (UDP; 0 over TCP). */
  addresses(): { host: string; port: number; clientPort: number };
  /** How the client's process exited, or null while it runs. */
  exited(): { code: number | null; signal: string | null } | null;
}

/** A step of a scenario's script: data the runner interprets, or a function for game logic. */
export type ConformanceStep =
  | { kind: 'send'; lines: readonly string[]; splitAt?: readonly number[]; gapMs?: number }
  | { kind: 'expect'; pattern: RegExp; withinMs: number; what: string; judgement?: Partial<Judgement> }
  | { kind: 'expectSilence'; ms: number; what: string; judgement?: Partial<Judgement> }
  | { kind: 'delay'; ms: number }
  | { kind: 'halfClose' }
  | { kind: 'close' }
  | { kind: 'expectClose'; withinMs: number; what: string; judgement?: Partial<Judgement> }
  | { kind: 'expectExit'; withinMs: number; what: string; code?: number; judgement?: Partial<Judgement> }
  /** Game logic over the wire (e.g. a whole game under the real rules). */
  | { kind: 'script'; title: string; run: (wire: ScriptedWire) => Promise<void> };

export interface ConformanceScenario extends Judgement {
  /** Stable, kebab-case; `--scenario <id>` selects it. */
  id: string;
  title: string;
  /** Placeholder values this scenario needs on top of the runner's (`host`, `port`), e.g. `player`. */
  placeholders: Readonly<Record<string, string>>;
  /** Built fresh for each run (scripts keep their game state in the closure). */
  steps: () => readonly ConformanceStep[];
}

/**
 * A scenario that one script plays (the usual shape): the scenario's id, title and judgement, its
 * placeholder values, and `script`, which builds a fresh script for each run.
 */
export function scriptedScenario(
  s: Judgement & { id: string; title: string },
  placeholders: Readonly<Record<string, string>>,
  title: string,
  script: () => (wire: ScriptedWire) => Promise<void>,
): ConformanceScenario {
  return { id: s.id, title: s.title, rule: s.rule, section: s.section, hint: s.hint, placeholders, steps: () => [{ kind: 'script', title, run: script() }] };
}

/** What a game offers the kit (GameModule.conformance). */
export interface GameConformance {
  /** The placeholders its client commands use, for the usage text. */
  placeholders: readonly string[];
  /** Our own client's command line with placeholders (after `--`), shown as a working example. */
  example?: string;
  /** What the kit plays against the client: a server (default) or, peer to peer, another peer. */
  scriptedSide?: 'server' | 'peer';
  /** TCP (default): the client connects to `{host}:{port}`. UDP: the scripted side's socket is `{host}:{port}`. */
  transport?: 'tcp' | 'udp';
  /** A client line (UDP: datagram) longer than this is a protocol violation of its own (the runner reports it). */
  maxLineBytes: number;
  /**
   * TCP: how the client's bytes are cut into messages (each one is a "line" for expect/next), e.g.
   * XML elements; default: `\n`-terminated lines of at most `maxLineBytes`.
   */
  framer?: () => { push(chunk: Buffer): FramedItem[] };
  /**
   * Placeholder values that depend on the addresses of a run: `port` is the scripted side's port,
   * `clientPort` a free port on 127.0.0.1 the client may bind (e.g. Connect Four: `{port}` where
   * the client listens, `{invite}` whom it invites). Overrides the defaults and the scenario's.
   */
  placeholdersFor?: (addresses: { host: string; port: number; clientPort: number }) => Readonly<Record<string, string>>;
  /** The line as the server reads it (e.g. `\r`, NULs and trailing blanks removed); null: ignored. */
  normalize?: (line: string) => string | null;
  scenarios: readonly ConformanceScenario[];
}

/** Thrown by the runner's wire (or by a script) when the client broke a rule. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
  constructor(
    message: string,
    readonly judgement: Partial<Judgement> = {},
  ) {
    super(message);
  }
}

/** How often a cut while the client thinks that the kit looked at too late is tried again at a later request. */
export const THINKING_CUT_TRIES = 8;

/**
 * A scenario's cut that ends the game while the client thinks, a fixed window after a request. A
 * kit slowed by a busy machine looks late, and then the client may have acted already: a client
 * that reads nothing while it thinks would pass. `late(took)` says whether the look `took` ms after
 * the request came after the window and `slackMs` (kept below the fixture clients' think time);
 * then the wire log says so and the caller moves the cut to a later request. After
 * THINKING_CUT_TRIES late looks the scenario is an error of the kit, never a pass or a fail.
 */
export class ThinkingCut {
  private missed = 0;

  constructor(
    private readonly wire: Pick<ScriptedWire, 'note'>,
    private readonly o: {
      windowMs: number;
      slackMs: number;
      /** What the window counts from: `the moveRequest`, `+ OKTHINK`. */
      after: string;
      /** The window in words: `50 ms`, `its 50 ms window`. */
      window: string;
      /** Where the cut goes instead, for the wire log. */
      then: string;
    },
  ) {}

  late(took: number): boolean {
    if (took <= this.o.windowMs + this.o.slackMs) return false;
    // Late every time: the scenario could not be played, which says nothing about the client.
    if (this.missed >= THINKING_CUT_TRIES)
      throw new Error(
        `the kit could not end the game while the client thought: ${THINKING_CUT_TRIES + 1} times it looked later than ${this.o.window} after ${this.o.after} (${took} ms the last time), so this machine is too busy for this scenario; run it again`,
      );
    this.missed++;
    this.wire.note(`the kit looked ${took} ms after ${this.o.after}, later than ${this.o.window} (a busy machine): ${this.o.then}`);
    return true;
  }
}
