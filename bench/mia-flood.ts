// Issue 36's soak: one host (127.0.0.2) floods `serve`'s Mia table from 1000 ports for 20 s at up to
// 20,000 datagrams a second, as REGISTER;x<n> and as a mix, with the attacker at the server's
// priority and niced; finished rounds in the quiet window before, during and after.
//   npx tsx bench/mia-flood.ts [--seconds 20]
import { buildServer, ServeProcess } from '../test/hardening/serve.js';
import { describeFlood, measureFlood } from '../test/games/mia/flood-run.js';

const i = process.argv.indexOf('--seconds');
const seconds = i >= 0 ? Number(process.argv[i + 1]) : 20;
buildServer();
const serve = await ServeProcess.start({ logLevel: 'info', env: { SPIELHALLE_MIA_ANSWER_TIMEOUT_MS: '250', SPIELHALLE_MIA_HOUSE_BOTS: '3' } });
let failed = false;
try {
  for (const [mix, niced] of [['register', false], ['register', true], ['mixed', false]] as const) {
    const r = await measureFlood(serve, seconds, mix, niced);
    console.log(describeFlood(r, seconds));
    if (r.during < r.quiet * 0.8 || r.after < r.quiet * 0.9 || r.expired.length > 0) failed = true;
  }
} finally {
  await serve.stop();
}
process.exit(failed ? 1 : 0);
