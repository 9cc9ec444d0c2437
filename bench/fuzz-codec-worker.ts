// A codec job of bench/fuzz.ts in a worker thread. It posts progress now and then and keeps the
// message it is feeding in a shared buffer, so the main thread can tell a hang from slow progress
// and name the input that hung.
import { parentPort, workerData } from 'node:worker_threads';
import { runCodecCampaign, type CampaignStats } from '../test/fuzz/lib/campaign.js';
import { CODECS } from '../test/fuzz/lib/codecs.js';

export interface CodecJob {
  readonly name: string;
  readonly seed: string;
  readonly messages: number;
  /** [length, bytes…] of the message being fed. */
  readonly current: SharedArrayBuffer;
}

export type CodecReport =
  | { readonly type: 'progress'; readonly messages: number; readonly ms: number }
  | { readonly type: 'done'; readonly stats: CampaignStats };

const job = workerData as CodecJob;
const post = (r: CodecReport): void => parentPort!.postMessage(r);
const length = new Int32Array(job.current, 0, 1);
const bytes = new Uint8Array(job.current, 4);
let lastPost = performance.now();
const stats = runCodecCampaign(CODECS[job.name]!(), {
  seed: job.seed,
  maxMessages: job.messages,
  slowMs: 2000,
  beforeFeed: (input) => {
    const n = Math.min(input.length, bytes.length);
    bytes.set(input.subarray(0, n));
    Atomics.store(length, 0, n);
  },
  progressEvery: 5000,
  onProgress: (s) => {
    if (performance.now() - lastPost < 1000) return;
    lastPost = performance.now();
    post({ type: 'progress', messages: s.messages, ms: s.ms });
  },
});
post({ type: 'done', stats });
