import { useTranslation } from 'react-i18next';

/** A tournament's matches done of all scheduled, as a bar with the numbers on it. */
export function ProgressBar({ done, total, testId }: { done: number; total: number; testId?: string }) {
  const { t } = useTranslation();
  const share = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div
      className="progress"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-label={t('tournaments.progress')}
      data-testid={testId}
      data-done={done}
      data-total={total}
    >
      <div className="progress-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      <span className="progress-text">
        {done} / {total}
      </span>
    </div>
  );
}
