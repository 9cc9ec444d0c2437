import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, setLanguage, type Language } from './i18n/index.js';
import { GenericLive } from './games/GenericLive.js';
import { livePages } from './games/index.js';
import { CheckClient } from './pages/CheckClient.js';
import { MatchDetail } from './pages/MatchDetail.js';
import { Matches } from './pages/Matches.js';
import { Overview } from './pages/Overview.js';
import { EntrantDetail } from './pages/EntrantDetail.js';
import { Liga } from './pages/Liga.js';
import { LigaMe } from './pages/LigaMe.js';
import { TournamentDetail } from './pages/TournamentDetail.js';
import { Tournaments } from './pages/Tournaments.js';
import { href, useRoute, type Route } from './router.js';
import { usePolling } from './usePolling.js';

export function App() {
  const { t, i18n } = useTranslation();
  const route = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const [shownRoute, setShownRoute] = useState(route);
  // Die Liga has a menu entry where the server runs it (setting `ladder.enabled`).
  const ladder = usePolling<{ enabled: boolean }>('/api/ladder', null);
  // Choosing a page folds the menu again (a phone shows it over the page).
  if (shownRoute !== route) {
    setShownRoute(route);
    setMenuOpen(false);
  }
  return (
    <>
      <nav className="topbar">
        <a className="brand" href={href.overview}>
          Spielhalle
        </a>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="menu"
          data-testid="menu-button"
          onClick={() => setMenuOpen((open) => !open)}
        >
          ☰ {t('nav.menu')}
        </button>
        <div id="menu" className={menuOpen ? 'menu open' : 'menu'}>
          <a href={href.overview} className={route.page === 'overview' ? 'active' : undefined}>
            {t('nav.overview')}
          </a>
          {[...livePages].map(([game, { labelKey }]) => (
            <a
              key={game}
              href={href.live(game)}
              className={(route.page === 'live' || route.page === 'check-client') && route.game === game ? 'active' : undefined}
            >
              {t(labelKey)}
            </a>
          ))}
          <a
            href={href.matches()}
            className={route.page === 'matches' || route.page === 'match' ? 'active' : undefined}
          >
            {t('nav.matches')}
          </a>
          <a
            href={href.tournaments()}
            className={['tournaments', 'tournament', 'entrant'].includes(route.page) ? 'active' : undefined}
          >
            {t('nav.tournaments')}
          </a>
          {ladder.data?.enabled === true && (
            <a
              href={href.liga}
              data-testid="nav-liga"
              className={route.page === 'liga' || route.page === 'liga-me' ? 'active' : undefined}
            >
              {t('nav.liga')}
            </a>
          )}
          <LanguageSwitch current={i18n.language} />
        </div>
      </nav>
      <main>
        <Page route={route} />
      </main>
    </>
  );
}

/** DE | EN in the top bar; the choice is remembered (i18n/index.ts). */
function LanguageSwitch({ current }: { current: string }) {
  const { t } = useTranslation();
  return (
    <span className="language-switch" role="group" aria-label={t('nav.language')}>
      {LANGUAGES.map((language: Language) => (
        <button
          key={language}
          type="button"
          lang={language}
          aria-pressed={current === language}
          className={current === language ? 'active' : undefined}
          data-testid={`language-${language}`}
          title={t(`nav.languageName.${language}`)}
          onClick={() => setLanguage(language)}
        >
          {language.toUpperCase()}
        </button>
      ))}
    </span>
  );
}

function Page({ route }: { route: Route }) {
  const { t } = useTranslation();
  switch (route.page) {
    case 'overview':
      return <Overview />;
    case 'matches':
      return <Matches filters={route.filters} />;
    case 'match':
      return <MatchDetail key={route.id} id={route.id} />;
    case 'live': {
      const live = livePages.get(route.game);
      return (
        <>
          <p className="page-tools">
            <a href={href.checkClient(route.game)} data-testid="check-client-link">
              {t('checkClient.link')} →
            </a>
          </p>
          {live ? <live.Page key={route.game} /> : <GenericLive key={route.game} game={route.game} />}
        </>
      );
    }
    case 'check-client':
      return <CheckClient key={route.game} game={route.game} />;
    case 'tournaments':
      return <Tournaments offset={route.offset} />;
    case 'tournament':
      return <TournamentDetail key={route.id} id={route.id} />;
    case 'entrant':
      return <EntrantDetail key={`${route.id}/${route.name}`} id={route.id} name={route.name} />;
    case 'liga':
      return <Liga />;
    case 'liga-me':
      return <LigaMe key={route.token} token={route.token} />;
    case 'not-found':
      return (
        <section className="page">
          <h1>{t('notFound.title')}</h1>
          <p>
            {t('notFound.nothingAt')} <code>#/{route.path}</code>.{' '}
            <a href={href.overview}>{t('notFound.back')}</a>
          </p>
        </section>
      );
  }
}
