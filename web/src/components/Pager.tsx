import { useTranslation } from 'react-i18next';

/** Newer/older buttons for a list shown `size` rows at a time; `offset` is the first row shown. */
export function Pager({
  offset,
  size,
  total,
  onChange,
  testId,
}: {
  offset: number;
  size: number;
  total: number;
  onChange: (offset: number) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  if (total <= size) return null;
  const last = Math.floor((total - 1) / size) * size;
  return (
    <nav className="pager" aria-label={t('common.pages')} data-testid={testId}>
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => onChange(0)}
        data-testid={`${testId}-first`}
      >
        «
      </button>
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => onChange(Math.max(0, offset - size))}
        data-testid={`${testId}-prev`}
      >
        ‹
      </button>
      <span data-testid={`${testId}-range`}>
        {t('common.range', { from: offset + 1, to: Math.min(total, offset + size), total })}
      </span>
      <button
        type="button"
        disabled={offset >= last}
        onClick={() => onChange(offset + size)}
        data-testid={`${testId}-next`}
      >
        ›
      </button>
      <button
        type="button"
        disabled={offset >= last}
        onClick={() => onChange(last)}
        data-testid={`${testId}-last`}
      >
        »
      </button>
    </nav>
  );
}
