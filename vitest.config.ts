import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The heavy suites load the machine on purpose (a CPU hog, a full-speed flood): they run after
    // these, alone (vitest.heavy.config.ts), so they disturb no other suite's timing.
    exclude: ['test/**/*.heavy.test.ts', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time: most suites wait on sockets, timers and child processes, not the CPU
    // (serially the suite took 15 min on 2 cores with both mostly idle).
    maxWorkers: 2,
    reporters: ['default'],
    // expect.poll waits up to 1 s by default: on a busy 2-core CI machine a browser page's fetch and
    // render (with a record store write and other suites beside it) can take longer. A poll that
    // succeeds returns at once, so only a failing one waits the full time.
    expect: { poll: { timeout: 10_000 } },
  },
});
