import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time: most suites wait on sockets, timers and child processes, not the CPU
    // (serially the suite took 15 min on 2 cores with both mostly idle).
    maxWorkers: 2,
    reporters: ['default'],
  },
});
