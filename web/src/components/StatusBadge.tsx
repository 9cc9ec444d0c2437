import { useTranslation } from 'react-i18next';
import type { ConnectionState } from '../useSpectator.js';

const STATUSES = new Set(['starting', 'running', 'stopped', 'failed', 'finished', 'aborted', 'superseded']);

/** A server's or a match's status; one the dashboard does not know is shown as it came. */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  const { t } = useTranslation();
  return (
    <span className={`badge badge-${status}`} data-testid={testId} data-status={status}>
      {STATUSES.has(status) ? t(`status.${status}`) : status}
    </span>
  );
}

export function ConnectionBadge({ state, retryInMs }: { state: ConnectionState; retryInMs: number | null }) {
  const { t } = useTranslation();
  return (
    <span className={`badge badge-conn-${state}`} data-testid="ws-state" data-state={state}>
      {t(`connection.${state}`)}
      {state === 'reconnecting' &&
        retryInMs !== null &&
        ` ${t('connection.retryIn', { seconds: (retryInMs / 1000).toFixed(1) })}`}
    </span>
  );
}
