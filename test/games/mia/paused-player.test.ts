import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { MIA_DEFAULTS, MiaServer } from '../../../src/games/mia/server.js';
import { UdpPeer } from '../../support/udp.js';

/**
 * Issue #33, item 14 (decision 13 of docs/mia.md, issue #36): a registered player that is merely
 * paused — here a real client process stopped with SIGSTOP, as a debugger or a loaded machine would
 * — on a table where nobody joins (every round is an empty 250 ms round) is not unregistered after
 * ten missed rounds: expiry also needs `expireSilenceMs` (60 s) of silence. Once it runs again it is
 * invited and plays. The server runs with the defaults `serve` uses.
 */

/** A Mia client in its own process: registers, then plays honestly; says on stdout what it sees. */
const CLIENT = `
const dgram = require('node:dgram');
const [port, name] = process.argv.slice(1);
const s = dgram.createSocket('udp4');
const send = (line) => s.send(line, Number(port), '127.0.0.1');
s.on('message', (msg) => {
  const line = msg.toString();
  const [kind, a, b] = line.split(';');
  if (line === 'REGISTERED' || line === 'UNREGISTERED') console.log(line);
  else if (kind === 'ROUND STARTING') send('JOIN;' + a);
  else if (kind === 'YOUR TURN') { console.log('MY TURN'); send('ROLL;' + a); }
  else if (kind === 'ROLLED') send('ANNOUNCE;' + a + ';' + b);
});
s.bind(0, '127.0.0.1', () => send('REGISTER;' + name));
`;

let server: MiaServer | null = null;
let child: ChildProcess | null = null;
const peers: UdpPeer[] = [];

afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  child = null;
  await Promise.all(peers.splice(0).map((p) => p.close()));
  await server?.stop();
  server = null;
});

const invitations = (p: UdpPeer): number => p.lines.filter((l) => l.startsWith('ROUND STARTING;')).length;

async function until(test: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a paused Mia player (issue #33, item 14)', () => {
  it('stays registered through more than ten empty 250 ms rounds while stopped, then is invited and plays', async () => {
    server = new MiaServer({ ...MIA_DEFAULTS, host: '127.0.0.1', port: 0, seed: 'paused', log: silentLogger, store: null });
    await server.start();
    expect(MIA_DEFAULTS).toMatchObject({ answerTimeoutMs: 250, maxMissedRounds: 10 });

    const proc = spawn(process.execPath, ['-e', CLIENT, String(server.port), 'paused'], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = proc;
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await until(() => out.includes('REGISTERED'), 'the client to register', 10_000);
    proc.kill('SIGSTOP');

    // The only other player: a socket that registers and then says nothing, so no round has a player.
    const other = await UdpPeer.open(server.port);
    peers.push(other);
    other.send('REGISTER;other');
    await other.expect('REGISTERED');

    // Both are invited round after round (every 4th once dormant, decision 13) and join none. By the
    // time `other` has let 11 invitations pass, the stopped client (registered first) has too.
    await until(() => invitations(other) >= 11 || other.lines.includes('UNREGISTERED'), 'eleven invitations to the silent player', 20_000);
    expect(other.lines).not.toContain('UNREGISTERED');
    expect(invitations(other)).toBeGreaterThanOrEqual(11);
    const registered = (name: string): boolean => server!.snapshot().players.some((p) => p.name === name && p.registered);
    expect(registered('paused')).toBe(true);
    expect(registered('other')).toBe(true);

    // It runs again; the other player starts answering too: a round with both is played.
    proc.kill('SIGCONT');
    other.socket.on('message', (msg) => {
      const line = msg.toString();
      const [kind, a, b] = line.split(';');
      if (kind === 'ROUND STARTING') other.send(`JOIN;${a!}`);
      else if (kind === 'YOUR TURN') other.send(`ROLL;${a!}`);
      else if (kind === 'ROLLED') other.send(`ANNOUNCE;${a!};${b!}`);
    });
    await until(() => other.lines.some((l) => /^ROUND STARTED;\d+;(paused,other|other,paused)$/.test(l)), 'a round of both', 10_000);
    await until(() => out.includes('MY TURN'), 'the resumed client to have its turn', 10_000);
    expect(out).not.toContain('UNREGISTERED');
    expect(registered('paused')).toBe(true);
  }, 40_000);
});
