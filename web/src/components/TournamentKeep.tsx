import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { postJson } from '../api.js';
import { formatTime } from '../format.js';
import { href } from '../router.js';

/**
 * A tournament's archive and deletion (issue 37): the archive as a download, and on purpose
 * (the tournament's id typed back) archiving it (retention may then take its records, the file
 * keeps them) or deleting it with every record.
 */
export function TournamentKeep({ id, archivedAt, running, onChanged }: { id: string; archivedAt: number | null; running: boolean; onChanged: () => void }) {
  const { t } = useTranslation();
  const base = `/api/tournaments/${encodeURIComponent(id)}`;
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (action: 'archive' | 'delete') => {
    const typed = window.prompt(t(action === 'archive' ? 'keep.confirmArchive' : 'keep.confirmDelete', { id }));
    if (typed === null) return;
    if (typed.trim() !== id) {
      setError(t('keep.notConfirmed'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await postJson<{ records: number; file?: string }>(`${base}/${action}`, { confirm: id });
      if (action === 'delete') {
        window.location.hash = href.tournaments();
        return;
      }
      setMessage(t('keep.archived', { records: r.records, file: r.file ?? '' }));
      onChanged();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="panel" data-testid="tournament-keep">
      <h2>{t('keep.title')}</h2>
      <p className="muted" data-testid="tournament-kept">
        {archivedAt === null ? t('keep.keptByRetention') : t('keep.archivedOn', { date: formatTime(archivedAt) })}
      </p>
      <div className="form-actions">
        <a href={`${base}/archive`} download data-testid="archive-download">
          {t('keep.download')}
        </a>
        {archivedAt === null && (
          <button type="button" disabled={busy || running} data-testid="tournament-archive" onClick={() => void act('archive')}>
            {t('keep.archive')}
          </button>
        )}
        <button type="button" className="danger" disabled={busy || running} data-testid="tournament-delete" onClick={() => void act('delete')}>
          {t('keep.delete')}
        </button>
      </div>
      {message !== null && <p data-testid="tournament-keep-message">{message}</p>}
      {error !== null && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
