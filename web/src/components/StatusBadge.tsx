import type { ConnectionState } from '../useSpectator.js';

const connectionText: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  open: 'live',
  reconnecting: 'reconnecting…',
  'unknown-game': 'unknown game',
};

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`badge badge-${status}`} data-testid={testId}>
      {status}
    </span>
  );
}

export function ConnectionBadge({ state, retryInMs }: { state: ConnectionState; retryInMs: number | null }) {
  const retry =
    state === 'reconnecting' && retryInMs !== null ? ` (retry in ${(retryInMs / 1000).toFixed(1)} s)` : '';
  return (
    <span className={`badge badge-conn-${state}`} data-testid="ws-state" data-state={state}>
      {connectionText[state]}
      {retry}
    </span>
  );
}
