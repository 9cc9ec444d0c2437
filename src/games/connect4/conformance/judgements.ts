import type { Judgement } from '../../../core/conformance.js';

/** The rules the Connect Four scenarios judge, each with its spec section and a hint (specs/connect4.md). */
export const J = {
  format: {
    rule: 'Send one compact JSON object per datagram with "version":2 and integers as JSON numbers',
    section: 'spec §3.1, §3.2, §5 decision 1',
    hint: 'Write e.g. {"version":2,"clienttype":0,"stage":4,"turn":6,"column":4} — numbers, not strings, and nothing around the object.',
  },
  invite: {
    rule: 'Invite the peer given as {invite} (stage 2 with clientname) at once and every 2 s',
    section: 'spec §3.2, §3.3; docs/connect4.md "Tournaments" ({invite})',
    hint: 'The inviter moves first: a tournament program sends its invitation to {invite} as soon as its socket is bound.',
  },
  repeatInvitation: {
    rule: 'Repeat the invitation every 2 s until an acceptance comes (or 10 s pass)',
    section: 'spec §3.2, §3.3',
    hint: 'UDP loses datagrams and a peer may answer late: every message repeats every 2 s, an invitation included.',
  },
  crossed: {
    rule: 'An invitation from the peer you invite is not an acceptance: accept it (stage 2 without clientname), then play second',
    section: 'spec §3.3, §5 decision 2; docs/connect4.md "Tournaments"',
    hint: 'Only a stage 2 WITHOUT clientname (or a stage 3) from the invitee accepts; when both invite, accept the other’s invitation, as a tournament’s seat 1 must.',
  },
  ready: {
    rule: 'Both send stage 3 at board start; the first player moves only after a stage 3 (or a stage 4) of the opponent has arrived',
    section: 'spec §3.2, §3.4',
    hint: 'After the acceptance, send stage 3 and wait for the opponent’s stage 3 before the first move.',
  },
  repeat: {
    rule: 'A repeated stage 4 is a keepalive, not a move: a new move needs a greater turn, and only the side to move moves',
    section: 'spec §3.4, §3.8 (duplicates)',
    hint: 'Keep the last accepted turn of the opponent (−1 at the start); a stage 4 with a turn not greater than it only shows the peer is alive.',
  },
  turn: {
    rule: 'turn is the game-wide move index: the number of stones on the board before the move',
    section: 'spec §3.4, §5 decision 4',
    hint: 'The first player sends 0, 2, 4, …, the second 1, 3, 5, …',
  },
  turnPerPlayer: {
    rule: 'Accept any turn greater than the opponent’s last one: A and C count their own moves (0, 1, 2, …)',
    section: 'spec §3.4 ("greater than" also accepts the own-move count), §3.9, §5 decision 4',
    hint: 'Do not require turn == stones on the board on input; require only that it grows.',
  },
  legal: {
    rule: 'Play only legal columns (1–7, not full)',
    section: 'spec §2, §3.4',
    hint: 'Track the board from every accepted move of both sides.',
  },
  end: {
    rule: 'Judge the end on your own board: after a four or a full board send stage 5 (every 2 s, at most 5 times), and nothing of the game before it',
    section: 'spec §3.6, §5 decision 8',
    hint: 'Check for a four after every move, yours and the opponent’s; after the end send no move, no stage 3 and no 99.',
  },
  endWindow: {
    rule: 'Stage 5 goes out every 2 s and at most 5 times',
    section: 'spec §3.2, §3.6',
    hint: 'Send stage 5 from a 2 s repeat timer with a counter, not from a loop or on every datagram.',
  },
  unexpectedAbort: {
    rule: 'Abort only after 10 s of silence, the 30 s move timeout or a user’s quit',
    section: 'spec §3.5, §3.7',
    hint: 'Any datagram of the opponent resets the silence timer; the move timeout starts at your own move.',
  },
  abort: {
    rule: 'On a 99 from the opponent in a running game, leave the game and send 99 back (at once, then every 2 s, 10 in all)',
    section: 'spec §3.7',
    hint: 'A 99 can come at any time, also together with a move: stop playing, acknowledge and go back to the lobby.',
  },
  lobbyAbort: {
    rule: 'A 99 before the board has started is not an acceptance and not a running game: start nothing and do not acknowledge it',
    section: 'spec §3.3 (acceptance), §3.7 (acknowledging side: "in a running game")',
    hint: 'Only a stage 2 without clientname (or a stage 3) from the invitee starts the game; a 99 is acknowledged only during a game.',
  },
  ignoreAfterEnd: {
    rule: 'After the game’s end, stage 4, 5 and 99 from the former opponent go unanswered',
    section: 'spec §3.6 ("Afterwards")',
    hint: 'A 99 acknowledges only a running game; after the end it is left unanswered.',
  },
  silence: {
    rule: 'Abort (99) after 10 s without any datagram from the opponent — not earlier, and without hanging',
    section: 'spec §3.5, §3.7',
    hint: 'Restart a 10 s timer on every datagram of the opponent; when it fires send 99 every 2 s until a 99 comes back.',
  },
  stall: {
    rule: 'Abort (99) when the opponent’s move has not come 30 s after your own move, even while it sends keepalives',
    section: 'spec §3.5, §5 decision 6',
    hint: 'Keepalives keep the silence timer alive but not the move timer: start a 30 s timer at your own move.',
  },
  slow: {
    rule: 'A peer may think long: keepalives every 2 s keep the game alive, and its move may come up to 30 s after yours',
    section: 'spec §3.2, §3.4, §3.5',
    hint: 'Count every datagram as life; do not give up on a peer after a few seconds without a move.',
  },
  stage5: {
    rule: 'A received stage 5 never decides the game: the game goes on when the opponent’s next move does not end it',
    section: 'spec §3.6',
    hint: 'A stage 5 without the final move only starts a 10 s wait for that move.',
  },
  noFinalMove: {
    rule: 'A stage 5 without the final move: wait up to 10 s for it; if it never comes, end the game without a result and without 99',
    section: 'spec §3.6',
    hint: 'Start a 10 s timer on the first stage 5; stop the silence and move timers meanwhile; no 99 at its end.',
  },
  ignore: {
    rule: 'Drop datagrams with another version, a bad or unknown stage, bad JSON or a bad clientname; stage 4 without integer turn/column is a keepalive; only the opponent’s address:port affects the game',
    section: 'spec §3.8',
    hint: 'Check version == 2 and the source address:port of every datagram before you look at its stage.',
  },
  thirdParty: {
    rule: 'During a game, datagrams from anyone but the opponent go unanswered',
    section: 'spec §3.8 ("Third parties during a game")',
    hint: 'Compare the source address and port with the opponent’s before answering anything.',
  },
  dialects: {
    rule: 'Accept every valid spelling: integers as strings, pretty-printed JSON, escaped "/", unknown keys, no clienttype, NULs and blanks around',
    section: 'spec §3.8, §3.9',
    hint: 'Read integers with a helper that takes a number or a string of digits; ignore keys you do not know.',
  },
  largest: {
    rule: 'Read whole datagrams up to 4096 bytes (our peer’s limit); an unknown key may make a valid message that long',
    section: 'spec §3.8; docs/connect4.md "What we accept"',
    hint: 'Receive into a buffer of at least 4096 bytes (64 KiB is the UDP maximum) and ignore unknown keys.',
  },
  full: {
    rule: 'Play a whole game by the protocol: the invitation, stage 3, moves with keepalives, and stage 5 at the end',
    section: 'spec §3.2–§3.6',
    hint: 'Walk the stages in order and judge the end on your own board.',
  },
} satisfies Record<string, Judgement>;
