import type { Judgement } from '../../../core/conformance.js';

/** The rules an Ostseeschach client is judged by, each with its spec section and a hint (session.ts). */

export const OSTSEESCHACH_JUDGEMENTS = {
  stream: {
    rule: 'Open the stream with <protocol>, then send only well-formed packets our server knows',
    section: 'spec §3.1, §3.5',
    hint: 'Write <protocol> once, then each request as one complete element; never close </protocol> while you play.',
  },
  join: {
    rule: 'Join with the request the command line asks for: <joinPrepared reservationCode="{reservation}"/> when given a reservation',
    section: 'spec §3.2, §3.10 (the TestClient starts players with --reservation)',
    hint: 'Pass the reservation code through unchanged; use <join/> only when no code was given.',
  },
  move: {
    rule: 'Answer every moveRequest with one move <room roomId="R"><data class="move"><from x y/><to x y/></data></room>',
    section: 'spec §3.4',
    hint: 'Send the move to the room id of <joined>, with class="move", after the moveRequest and only then.',
  },
  legal: {
    rule: 'Send only legal moves of the position in the last memento',
    section: 'spec §2 (moves, captures, ambers), §3.3',
    hint: 'Rebuild the board from every memento (towers have count 2; a stack that scored an amber is gone) and generate the moves of §2.',
  },
  time: {
    rule: 'Send each move within 2000 ms of the moveRequest, or the server discards it and you lose (SOFT_TIMEOUT)',
    section: 'spec §3.7',
    hint: 'Measure the time from the moveRequest’s arrival and stop thinking well before 2000 ms (our bot uses 1700).',
  },
  end: {
    rule: 'After <left roomId="R"/> end the connection (<sc.protocol.CloseConnection/>, then exit on </protocol> or EOF) and exit with code 0',
    section: 'spec §3.5, §6 (client robustness)',
    hint: 'The server keeps the connection open after <left>: say goodbye yourself; a result may come at any time, also without <winner>.',
  },
  closed: {
    rule: 'When the server ends the stream or closes the connection, stop and exit (any exit code, no hang)',
    section: 'spec §3.1, §3.5',
    hint: 'A read of 0 bytes or </protocol> means the server is gone: stop reading and exit.',
  },
  refused: {
    rule: 'After an errorpacket for the join request, do not wait forever: end the connection and exit (or try another join)',
    section: 'spec §3.2, §3.9',
    hint: 'The server keeps the connection open after an errorpacket: without a room there is nothing to wait for.',
  },
} satisfies Record<string, Judgement>;
