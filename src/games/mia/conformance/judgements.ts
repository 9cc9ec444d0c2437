import type { Judgement } from '../../../core/conformance.js';

/** The rules the Mia scenarios judge, each with where it is written and a hint for the student. */
export const MIA_JUDGEMENTS = {
  register: {
    rule: 'Register as a player with REGISTER;<the name from the command line> and wait for REGISTERED; stay registered under that name',
    section: 'spec §Messages, §Names; seed "REGISTER;name"',
    hint: 'Send "REGISTER;" plus the {name} argument (not REGISTER_SPECTATOR), from the one socket that then plays.',
  },
  rejected: {
    rule: 'REJECTED is final for that name: send nothing as a player, do not register that name again, and exit (any code) or register under another valid name within 8000 ms',
    section: 'spec §Messages (REJECTED;INVALID_NAME, REJECTED;NAME_ALREADY_TAKEN), §Names',
    hint: 'Read the answer to REGISTER: on REJECTED report the reason and stop (a retry gets the same answer).',
  },
  join: {
    rule: 'Answer ROUND STARTING;<token> with JOIN;<token> within the answer time',
    section: 'spec §Rounds; seed "ROUND STARTING;token"',
    hint: 'Answer every invitation with its own token; a round that was canceled or that you missed changes nothing.',
  },
  turn: {
    rule: 'Answer YOUR TURN;<token> with ROLL;<token> or SEE;<token>, and ROLLED;<dice>;<token> with ANNOUNCE;<d1,d2>;<token>, within the answer time and with the token of that message',
    section: 'spec §Turn, §Dice (dice 1–6), Tokens',
    hint: 'Take the token from the message you answer (the last field) and reply at once.',
  },
  answerTime: {
    rule: 'Every answer (JOIN, ROLL/SEE, ANNOUNCE) within 250 ms of the message: later, our server has moved on and the player loses (DID_NOT_TAKE_TURN, DID_NOT_ANNOUNCE) or misses the round',
    section: 'spec §Rounds, §Turn; seed "enges Zeitfenster (250 ms)"',
    hint: 'Decide in a few milliseconds: no sleeps, no slow I/O or DNS lookups before answering.',
  },
  unasked: {
    rule: 'Send only the protocol’s commands, each in answer to a message that carried its token (a repeat with an old token is ignored, so it is tolerated)',
    section: 'spec §Messages, Tokens',
    hint: 'Never send a token you did not receive, and spell commands exactly (case-sensitive, fields separated by ;).',
  },
  flood: {
    rule: 'Do not flood: our server drops a registered client’s datagrams beyond a burst of 400 and 200 a second',
    section: 'docs/mia.md decision 9',
    hint: 'Send one answer per message; do not retry in a loop.',
  },
  alive: {
    rule: 'A player plays round after round until it is stopped: after any message it keeps reading and joins the next round',
    section: 'spec §Rounds (after every round the next ROUND STARTING follows at once)',
    hint: 'Handle every message in every state, and never exit while the server is there.',
  },
  silent: {
    rule: 'When the server falls silent, do not crash and do not flood: wait, register again now and then (at most 2 datagrams a second), or exit',
    section: 'spec §Messages (HEARTBEAT every 2000 ms), §Reference bots (they exit after 5 s without HEARTBEAT)',
    hint: 'Use the HEARTBEAT to notice a server that is gone, and wait at least a second between retries.',
  },
  unregistered: {
    rule: 'After an unasked UNREGISTERED (the end of a tournament table, or a registration that expired) the client is no longer a player: it answers nothing and exits with code 0, or registers again',
    section: 'docs/mia.md decision 13 and "Tournaments"; spec §Messages (UNREGISTERED)',
    hint: 'Treat UNREGISTERED as the end of play at any time, not only after your own UNREGISTER.',
  },
} satisfies Record<string, Judgement>;
