import { useCallback, useEffect, useState } from 'react';
import { ConnectionBadge } from '../../components/StatusBadge.js';
import { LobbyTab } from './LobbyTab.js';
import { PlayTab } from './PlayTab.js';
import { RecordsTab } from './RecordsTab.js';
import { useCatanSnapshot } from './useCatanSnapshot.js';
import { usePlay } from './usePlay.js';
import { WatchTab } from './WatchTab.js';
import { useTranslation } from 'react-i18next';

/**
 * Siedler von Catan in the dashboard: the lobbies (and our AI for their empty seats), the running
 * games as spectators see them, finished games replayed from their records, and a seat for a
 * person. Boards are drawn from public data; the person is offered only the legal actions their
 * protocol client is sent.
 */

type Tab = 'lobby' | 'watch' | 'records' | 'play';
const TABS: [Tab, string][] = [
  ['lobby', 'catan.tab.lobby'],
  ['watch', 'catan.tab.watch'],
  ['records', 'catan.tab.records'],
  ['play', 'catan.tab.play'],
];

/** The tab in the address (`#/catan?tab=play`), so a reload opens the same tab. */
function tabInUrl(): Tab {
  const search = window.location.hash.split('?')[1] ?? '';
  const tab = new URLSearchParams(search).get('tab');
  return TABS.find(([id]) => id === tab)?.[0] ?? 'lobby';
}

function useTabInUrl(): [Tab, (tab: Tab) => void] {
  const [tab, setShown] = useState<Tab>(tabInUrl);
  useEffect(() => {
    const follow = () => setShown(tabInUrl());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const choose = useCallback((next: Tab) => {
    setShown(next);
    // Replaced, not pushed: Back leaves the page as before; the address says where a reload goes.
    const path = window.location.hash.split('?')[0] || '#/catan';
    const url = new URL(window.location.href);
    url.hash = next === 'lobby' ? path : `${path}?tab=${next}`;
    window.history.replaceState(window.history.state, '', url.toString());
  }, []);
  return [tab, choose];
}

export function CatanPage() {
  const { t } = useTranslation();
  const [tab, setTab] = useTabInUrl();
  const [watched, setWatched] = useState<string | null>(null);
  const [record, setRecord] = useState<string | null>(null);
  // The spectator snapshot is followed only while a tab shows it; the seat lives here so tabs keep it.
  const play = usePlay();
  return (
    <section className="page catan-page">
      <header className="page-header">
        <h1>{t('catan.title')}</h1>
        <span className="muted">{t('catan.protocol')}</span>
      </header>
      <nav className="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? 'tab active' : 'tab'}
            data-testid={`catan-tab-${id}`}
            onClick={() => setTab(id)}
          >
            {t(label)}
            {id === 'play' && play.seat?.state && play.seat.state.phase !== 'over' && (
              <span className="catan-dot" title={t('catan.haveSeat')} />
            )}
          </button>
        ))}
      </nav>
      {tab === 'play' ? (
        <PlayTab play={play} />
      ) : (
        <Spectating
          tab={tab}
          watched={watched}
          record={record}
          onWatch={setWatched}
          onRecord={setRecord}
          onPlay={() => setTab('play')}
        />
      )}
    </section>
  );
}

function Spectating({
  tab,
  watched,
  record,
  onWatch,
  onRecord,
  onPlay,
}: {
  tab: Exclude<Tab, 'play'>;
  watched: string | null;
  record: string | null;
  onWatch: (id: string) => void;
  onRecord: (id: string) => void;
  onPlay: () => void;
}) {
  const { t } = useTranslation();
  const live = useCatanSnapshot();
  return (
    <>
      <p>
        <ConnectionBadge state={live.state} retryInMs={null} />
        {live.state === 'unknown-game' && <span className="error"> {t('catan.notHere')}</span>}
      </p>
      {tab === 'lobby' && <LobbyTab snapshot={live.snapshot} onPlay={onPlay} />}
      {tab === 'watch' && <WatchTab snapshot={live.snapshot} chosen={watched} onChoose={onWatch} />}
      {tab === 'records' && <RecordsTab snapshot={live.snapshot} chosen={record} onChoose={onRecord} />}
    </>
  );
}
