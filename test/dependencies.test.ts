// The README promises Node >= 20.19 (package.json `engines`). Every package `npm ci` installs must
// accept that Node, or `npm ci` warns EBADENGINE and the package may use APIs Node 20 lacks.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// semver comes with npm's own tool chain (eslint, vite); a test-only use, no types needed.
const semver = require('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };

interface LockPackage {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

describe('dependencies', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  const oldest = semver.minVersion(pkg.engines.node)?.version ?? '';

  it('states the oldest Node it supports', () => {
    expect(oldest).toBe('20.19.0');
  });

  it('installs no package that refuses the oldest supported Node', () => {
    const refusing: string[] = [];
    for (const [path, p] of Object.entries(lock.packages)) {
      const range = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined;
      if (path !== '' && range && !semver.satisfies(oldest, range)) refusing.push(`${path}@${p.version} wants node ${range}`);
    }
    expect(refusing).toEqual([]);
  });
});
