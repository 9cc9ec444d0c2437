import { fuzzServer } from './lib/server-test.js';

// Each attacker socket may stay registered (a name per address, as the protocol has it).
fuzzServer('mia', { minMessages: 1000, udpHeld: 4 });
