import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PrettyJson } from '../components/Json.js';
import { ConnectionBadge } from '../components/StatusBadge.js';
import type { SpectatorEvent } from '../types.js';
import { useSpectator } from '../useSpectator.js';

/** For a game without its own page yet: the raw public snapshot, live. */
export function GenericLive({ game }: { game: string }) {
  const { t } = useTranslation();
  const live = useSpectator<unknown>(game, keepSnapshot);
  const [open, setOpen] = useState(true);
  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('generic.title', { game })}</h1>
        <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        <span className="muted">{t('generic.events', { count: live.events })}</span>
      </header>
      {live.state === 'unknown-game' ? (
        <p className="error">{t('generic.unknown', { game })}</p>
      ) : (
        <div className="panel">
          <h2>
            {t('generic.snapshot')}{' '}
            <button type="button" className="link-button" onClick={() => setOpen((o) => !o)}>
              {open ? t('common.hide') : t('common.show')}
            </button>
          </h2>
          {open && <PrettyJson value={live.snapshot} />}
        </div>
      )}
    </section>
  );
}

const keepSnapshot = (snapshot: unknown, _event: SpectatorEvent): unknown => snapshot;
