import { fuzzServer } from './lib/server-test.js';

fuzzServer('ostseeschach', { minMessages: 1000 });
