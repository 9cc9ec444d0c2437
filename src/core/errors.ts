/** A mistake of the user's (bad flag, bad value): reported as one stderr line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
