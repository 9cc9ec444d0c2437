import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../components/StatusBadge.js';
import { isKnownGame } from '../format.js';
import type { Translate } from '../matchResult.js';
import { livePages } from '../games/index.js';
import { href } from '../router.js';
import type { ServerInfo } from '../types.js';
import { usePolling } from '../usePolling.js';

/** One card per game server, refreshed every 2 s. */
export function Overview() {
  const { t } = useTranslation();
  const games = usePolling<ServerInfo[]>('/api/games', 2000);
  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('overview.title')}</h1>
        {games.error !== null && (
          <span className="error" role="alert">
            {games.error}
          </span>
        )}
      </header>
      {games.loading && <p className="muted">{t('common.loading')}</p>}
      {games.data?.length === 0 && <p className="muted">{t('overview.none')}</p>}
      <div className="cards">
        {games.data?.map((info) => (
          <ServerCard key={info.game} info={info} />
        ))}
      </div>
    </section>
  );
}

/** The protocol line of a game the dashboard knows, in the reader's language; the server's own otherwise. */
function protocolLine(info: ServerInfo, t: Translate): string {
  if (!isKnownGame(info.game)) return info.protocol;
  // Dame's line names the server's mode: `MNM Gameserver (auto)`.
  const mode = /\(([^)]*)\)$/.exec(info.protocol)?.[1] ?? '';
  return t(`protocolLine.${info.game}`, { mode });
}

function ServerCard({ info }: { info: ServerInfo }) {
  const { t } = useTranslation();
  const live = livePages.get(info.game);
  const known = isKnownGame(info.game);
  return (
    <article className={`card card-${info.status}`} data-testid={`server-card-${info.game}`}>
      <header className="card-header">
        <h2>{known ? t(`gameTitle.${info.game}`) : info.title}</h2>
        <StatusBadge status={info.status} testId="server-status" />
      </header>
      <dl className="facts">
        <dt>{t('overview.game')}</dt>
        <dd>
          <code>{info.game}</code>
        </dd>
        <dt>{t('overview.protocol')}</dt>
        <dd>{protocolLine(info, t)}</dd>
        <dt>{t('overview.transport')}</dt>
        <dd>{info.transport.toUpperCase()}</dd>
        <dt>{t('overview.address')}</dt>
        <dd>
          <code data-testid="server-address">
            {info.host}:{info.port}
          </code>
        </dd>
        <dt>{t('overview.clients')}</dt>
        <dd data-testid="server-clients">{info.clients}</dd>
        <dt>{t('overview.liveMatches')}</dt>
        <dd data-testid="server-live-matches">{info.liveMatches}</dd>
      </dl>
      {info.error !== undefined && <p className="error">{info.error}</p>}
      <footer className="card-footer">
        <a href={href.live(info.game)}>{live ? t('overview.watchLive') : t('overview.liveSnapshot')} →</a>
        <a href={href.matches(info.game)}>{t('nav.matches')}</a>
      </footer>
    </article>
  );
}
