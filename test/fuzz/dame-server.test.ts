import { fuzzServer } from './lib/server-test.js';

fuzzServer('dame', { minMessages: 1000 });
