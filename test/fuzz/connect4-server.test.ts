import { fuzzServer } from './lib/server-test.js';

fuzzServer('connect4', { minMessages: 1000 });
