import type { Judgement, ScriptedWire } from '../../../core/conformance.js';
import { parseClient, type ClientMessage } from '../protocol.js';

/**
 * What the scripted Mia server reads from the client under test, judged as our server reads it
 * (protocol.ts parseClient): the answer to the question in play, and everything else on the way.
 * A datagram our server would ignore because its token is old (a repeat, a late answer) is
 * tolerated and noted, because the spec makes it harmless; a datagram no server could read, or
 * one with a token no server sent, fails the scenario.
 */

/** A message the client owes an answer to: ROUND STARTING (JOIN), YOUR TURN (ROLL/SEE), ROLLED (ANNOUNCE). */
export interface Question {
  kind: 'JOIN' | 'TURN' | 'ANNOUNCE';
  token: string;
  /** The datagram as sent. */
  line: string;
  /** When it was sent (wire time). */
  askedAt: number;
}

/** take(): no datagram came in time / the client's process has ended. */
export const TIMEOUT: unique symbol = Symbol('timeout');
export const ENDED: unique symbol = Symbol('ended');

export type Answer = Extract<ClientMessage, { type: 'JOIN' | 'ROLL' | 'SEE' | 'ANNOUNCE' }>;

const ANSWERS: Record<Question['kind'], readonly Answer['type'][]> = { JOIN: ['JOIN'], TURN: ['ROLL', 'SEE'], ANNOUNCE: ['ANNOUNCE'] };

export const expectedAnswer = (q: Question): string =>
  q.kind === 'JOIN' ? `JOIN;${q.token}` : q.kind === 'TURN' ? `ROLL;${q.token} or SEE;${q.token}` : `ANNOUNCE;<dice>;${q.token}`;

/** Our server's flood control for a registered client (docs/mia.md decision 9): burst 400, then 200 a second. */
export const FLOOD_BURST = 400;
export const FLOOD_PER_SECOND = 200;

export interface InboxJudgements {
  unasked: Judgement;
  register: Judgement;
  flood: Judgement;
}

export class ClientInbox {
  /** Every token the server has sent, with the kind of question it belonged to. */
  private readonly tokens = new Map<string, Question['kind']>();
  private budget = FLOOD_BURST;
  private budgetAt = 0;
  /** What the server ignored since the last question (for the message when no answer comes). */
  private ignored: string[] = [];
  /** Whether the server is there to answer REGISTER and ECHO (not while it is silent). */
  serverAlive = true;
  /** Datagrams received in all. */
  count = 0;

  constructor(
    private readonly wire: ScriptedWire,
    /** The client's registered name. */
    public name: string,
    private readonly judgements: InboxJudgements,
    private readonly reply: (line: string) => Promise<void>,
  ) {}

  asked(q: Question): void {
    this.tokens.set(q.token, q.kind);
    this.ignored = [];
  }

  /** The next datagram within `ms` (nominal), or why none came. */
  async take(ms: number): Promise<string | typeof TIMEOUT | typeof ENDED> {
    const line = await this.wire.next(Math.max(1, ms));
    if (line !== null) return this.counted(line);
    return this.wire.ended() ? ENDED : TIMEOUT;
  }

  private counted(line: string): string {
    this.count++;
    const now = this.wire.now();
    this.budget = Math.min(FLOOD_BURST, this.budget + ((now - this.budgetAt) * FLOOD_PER_SECOND) / 1000);
    this.budgetAt = now;
    this.budget -= 1;
    if (this.budget < 0)
      this.wire.fail(`sent more than ${FLOOD_BURST} datagrams at once and then more than ${FLOOD_PER_SECOND} a second: our server drops the rest, answers included`, this.judgements.flood);
    return line;
  }

  /** Fails with the client's exit in the message (the wire knows how it ended). */
  async gone(what: string, judgement: Judgement): Promise<never> {
    await this.wire.expect(/(?!)/, 1, what, judgement);
    return this.wire.fail(`stopped; the server expected ${what}`, judgement);
  }

  /**
   * Handles a datagram that is not the answer in play: REGISTER (answered as our server does),
   * ECHO, and what our server ignores (noted). Returns the message when it answers `q`.
   */
  async judge(line: string, q: Question | null): Promise<Answer | null> {
    const parsed = parseClient(line);
    if (!parsed.ok) {
      const why = parsed.error.code === 'empty' ? 'an empty datagram' : `"${line.slice(0, 80)}": not a Mia command`;
      return this.wire.fail(`sent ${why}; our server drops it`, this.judgements.unasked);
    }
    const m = parsed.message;
    switch (m.type) {
      case 'ECHO':
        if (this.serverAlive) await this.reply(`ECHOING;${m.text}`);
        return null;
      case 'REGISTER':
        if (m.name !== this.name)
          return this.wire.fail(`sent "${line}" in the middle of the game: registering another name gives up "${this.name}" (one registration per address)`, this.judgements.register);
        this.wire.note('the client registers again under its name (our server keeps its seat and score)');
        if (this.serverAlive) await this.reply('REGISTERED');
        return null;
      case 'REGISTER_SPECTATOR':
        return this.wire.fail(`sent "${line}": a spectator registration gives up the player "${this.name}"`, this.judgements.register);
      case 'UNREGISTER':
        return this.wire.fail('sent UNREGISTER in the middle of the game: the client left the table', this.judgements.register);
      default:
        break;
    }
    const token = m.token ?? '';
    if (q !== null && token === q.token && ANSWERS[q.kind].includes(m.type)) {
      if (m.type === 'ANNOUNCE' && m.dice === null) return this.ignore(line, `"${m.raw ?? ''}" is not two dice 1–6, so our server ignores the announcement`);
      return m;
    }
    const kind = this.tokens.get(token);
    if (kind === undefined) {
      // Cause first: a token of ours glued to the dice with "," is a separator mistake, not a strange token.
      const glued = line.split(';').some((field) => field.includes(',') && field.split(',').some((piece) => this.tokens.has(piece)));
      if (glued) return this.wire.fail(`sent "${line}": its token is separated with "," — every field of a message is separated by ";" (ANNOUNCE;<dice>;<token>, the dice as 6,6)`, this.judgements.unasked);
      return this.wire.fail(`sent "${line}" with a token the server never sent (our server ignores it)`, this.judgements.unasked);
    }
    if (q !== null && token === q.token) return this.ignore(line, `not an answer to ${q.line.split(';')[0] ?? ''}, so our server ignores it`);
    return this.ignore(line, 'the token of an earlier message: our server ignores it');
  }

  private ignore(line: string, why: string): null {
    this.wire.note(`ignored "${line}": ${why}`);
    this.ignored.push(`"${line}" (${why})`);
    return null;
  }

  /**
   * Waits for the answer to `q` until `deadline` (wire time). The first matching answer is dropped
   * when `lose` is set (a retry of it counts). 'timeout' when none came; fails when the client ends.
   */
  async answer(q: Question, deadline: number, what: string, judgement: Judgement, lose = false): Promise<Answer | 'timeout'> {
    let dropping = lose;
    for (;;) {
      const left = (deadline - this.wire.now()) / this.wire.scaled(1);
      if (left <= 0) return 'timeout';
      const got = await this.take(left);
      if (got === TIMEOUT) return 'timeout';
      if (got === ENDED) return this.gone(what, judgement);
      const m = await this.judge(got, q);
      if (m === null) continue;
      if (!dropping) return m;
      dropping = false;
      this.ignore(got, 'the scenario drops this datagram on the way (UDP may lose it)');
    }
  }

  /** What the server ignored while it waited, for a failure message. */
  ignoredText(): string {
    return this.ignored.length === 0 ? '' : `; it sent only ${this.ignored.join(', ')}`;
  }

  /** Reads until `until` (wire time): only tolerated datagrams may come. Returns 'ended' if the client ended. */
  async quietUntil(until: number): Promise<'ended' | 'quiet'> {
    for (;;) {
      const left = (until - this.wire.now()) / this.wire.scaled(1);
      if (left <= 0) return 'quiet';
      const got = await this.take(left);
      if (got === TIMEOUT) return 'quiet';
      if (got === ENDED) return 'ended';
      await this.judge(got, null);
    }
  }
}
