import { fuzzServer } from './lib/server-test.js';

fuzzServer('catan', { minMessages: 1000 });
