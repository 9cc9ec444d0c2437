/** A mistake of the user's (bad flag, bad value): reported as one stderr line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A service the command needs is not there right now (PostgreSQL refused or is starting up):
 * exit code 75 (EX_TEMPFAIL), so a supervisor tells it from a usage error (2) and tries again.
 */
export class UnavailableError extends Error {
  override readonly name = 'UnavailableError';
}

/** EX_TEMPFAIL (sysexits.h): try again later. */
export const EXIT_UNAVAILABLE = 75;
