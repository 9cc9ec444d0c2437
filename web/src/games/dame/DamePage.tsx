import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DameSnapshot } from '../../../../src/games/dame/snapshot.js';
import type { DameBrowserPlayer } from '../../../../src/games/dame/web-views.js';
import { ConnectionBadge } from '../../components/StatusBadge.js';
import { usePolling } from '../../usePolling.js';
import { useSpectator } from '../../useSpectator.js';
import { GamesTab } from './GamesTab.js';
import { PlayTab } from './PlayTab.js';
import { usePlay } from './usePlay.js';
import { WatchTab } from './WatchTab.js';

/**
 * Dame in the dashboard: the server's games (live from /ws/spectate), creating a game for
 * students, watching any game, and playing one as a person. The page never computes a rule: the
 * board shows the server's rows, and a person is offered only the moves the server's rules list.
 */

type Tab = 'games' | 'watch' | 'play';
const TABS: [Tab, string][] = [
  ['games', 'dame.tab.games'],
  ['watch', 'catan.tab.watch'],
  ['play', 'catan.tab.play'],
];

const keepSnapshot = (s: DameSnapshot): DameSnapshot => s;

export function DamePage() {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>('games');
  const [watched, setWatched] = useState<string | null>(null);
  const [target, setTarget] = useState<{ id: string; seat: 0 | 1 } | null>(null);
  const live = useSpectator<DameSnapshot>('dame', keepSnapshot);
  const players = usePolling<DameBrowserPlayer[]>('/api/dame/players', 2000);
  // The seat lives here, not in the tab: switching tabs must not close the person's client.
  const play = usePlay();
  const s = live.snapshot;
  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('dame.title')}</h1>
        <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        {s && (
          <span className="muted">
            <Trans
              i18nKey="dame.summary"
              values={{ port: s.port, mode: s.mode, played: s.gamesPlayed }}
              components={{ port: <code data-testid="dame-port" /> }}
            />
          </span>
        )}
      </header>
      {live.state === 'unknown-game' && <p className="error">{t('dame.notHere')}</p>}
      <nav className="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? 'tab active' : 'tab'}
            data-testid={`dame-tab-${id}`}
            onClick={() => setTab(id)}
          >
            {t(label)}
            {id === 'play' && play.seat && play.seat.state?.phase !== 'over' && <span className="dame-dot dame-dot-on" title={t('catan.haveSeat')} />}
          </button>
        ))}
      </nav>
      {tab === 'games' && (
        <GamesTab
          snapshot={s}
          players={players.data ?? []}
          onWatch={(id) => {
            setWatched(id);
            setTab('watch');
          }}
          onPlay={(id, seat) => {
            setTarget({ id, seat });
            setTab('play');
          }}
        />
      )}
      {tab === 'watch' && <WatchTab snapshot={s} players={players.data ?? []} chosen={watched} onChoose={setWatched} />}
      {tab === 'play' && <PlayTab key={target ? `${target.id}:${target.seat}` : ''} play={play} snapshot={s} target={target} />}
    </section>
  );
}
