import { z } from 'zod';

/** `games.connect4.*` in the settings (docs/operations.md): the schema and the defaults. */

const port = z.number().int().min(0).max(65535);
const level = z.enum(['perfect', 'strong', 'easy']);

export const connect4SettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The house bot's UDP port: the protocol's 32442. */
    port,
    /** Play on the LAN: bind 0.0.0.0 and broadcast stage 1 (only when a user asks for it). */
    lan: z.boolean(),
    broadcastAddress: z.string().min(1),
    /**
     * Stage 1 also goes to 127.0.0.1 at these ports, so several peers on one machine find each
     * other without a broadcast (specs decision 11).
     */
    peerPorts: z.array(port).max(64),
    /** 0: none; 1: the perfect house bot on `port`; 2: and a sparring bot that keeps inviting it. */
    houseBots: z.number().int().min(0).max(2),
    sparringLevel: level,
    /** Pause between two house games, so a person can watch the end and invite the bot too. */
    sparringPauseMs: z.number().int().min(0).max(600_000),
    /** Browser-facing peers (the dashboard's "play a peer") at most at once. */
    maxBrowserPeers: z.number().int().min(0).max(64),
    /** Datagrams one remote IP may send to each of our peers per second (burst: twice); 0: no budget. */
    datagramsPerSecondPerHost: z.number().int().min(0).max(1_000_000),
    /** Lobby entries (ports announcing themselves) one remote IP may hold in each peer's lobby. */
    lobbyEntriesPerHost: z.number().int().min(1).max(256),
    /** Valid invitations one remote IP may hold at once in each peer. */
    invitationsPerHost: z.number().int().min(1).max(64),
    /** Games (and acceptances) the house bots together hold with one remote IP at once; 0: no cap. */
    maxGamesPerHost: z.number().int().min(0).max(64),
    /** After a game with an IP, the house bots accept it again only this much later (others go first). */
    hostPauseMs: z.number().int().min(0).max(600_000),
    /** The Liga peer's UDP port when the ladder has Connect Four (docs/connect4.md "Die Liga"); 0: any free one. */
    ladderPort: port,
  })
  .strict();

export type Connect4Settings = z.infer<typeof connect4SettingsSchema>;

export const CONNECT4_SETTINGS: Connect4Settings = {
  enabled: true,
  port: 32442,
  lan: false,
  broadcastAddress: '255.255.255.255',
  peerPorts: [32442, 32443, 32444, 32445, 32446, 32447, 32448, 32449],
  houseBots: 2,
  sparringLevel: 'strong',
  sparringPauseMs: 5000,
  maxBrowserPeers: 8,
  datagramsPerSecondPerHost: 100,
  lobbyEntriesPerHost: 16,
  invitationsPerHost: 8,
  maxGamesPerHost: 1,
  hostPauseMs: 7000,
  ladderPort: 32450,
};
