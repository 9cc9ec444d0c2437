import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The heavy suites (`*.heavy.test.ts`): a CPU hog beside our clients (issue 40), a full-speed UDP
 * flood against serve (issue 36). They load the machine on purpose, so they run one file at a time
 * after the other suites (scripts/test.mjs), and nothing else runs beside them.
 */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/**/*.heavy.test.ts'],
    exclude: ['**/node_modules/**'],
    maxWorkers: 1,
    fileParallelism: false,
  },
});
