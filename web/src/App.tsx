import { useState } from 'react';
import { GenericLive } from './games/GenericLive.js';
import { livePages } from './games/index.js';
import { MatchDetail } from './pages/MatchDetail.js';
import { Matches } from './pages/Matches.js';
import { Overview } from './pages/Overview.js';
import { href, useRoute, type Route } from './router.js';

export function App() {
  const route = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const [shownRoute, setShownRoute] = useState(route);
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
          ☰ Menu
        </button>
        <div id="menu" className={menuOpen ? 'menu open' : 'menu'}>
          <a href={href.overview} className={route.page === 'overview' ? 'active' : undefined}>
            Overview
          </a>
          {[...livePages].map(([game, { label }]) => (
            <a
              key={game}
              href={href.live(game)}
              className={route.page === 'live' && route.game === game ? 'active' : undefined}
            >
              {label}
            </a>
          ))}
          <a
            href={href.matches()}
            className={route.page === 'matches' || route.page === 'match' ? 'active' : undefined}
          >
            Matches
          </a>
        </div>
      </nav>
      <main>
        <Page route={route} />
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <Overview />;
    case 'matches':
      return <Matches filters={route.filters} />;
    case 'match':
      return <MatchDetail key={route.id} id={route.id} />;
    case 'live': {
      const live = livePages.get(route.game);
      return live ? <live.Page key={route.game} /> : <GenericLive key={route.game} game={route.game} />;
    }
    case 'not-found':
      return (
        <section className="page">
          <h1>Not found</h1>
          <p>
            Nothing at <code>#/{route.path}</code>. <a href={href.overview}>Back to the overview</a>.
          </p>
        </section>
      );
  }
}
