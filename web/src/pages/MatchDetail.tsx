import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CompactJson, PrettyJson } from '../components/Json.js';
import { ResultLine } from '../components/MatchResult.js';
import { Pager } from '../components/Pager.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { WireText } from '../components/WireText.js';
import { formatDuration, formatOffset, formatTime, gameName } from '../format.js';
import { query } from '../api.js';
import { RecordBoard } from '../games/RecordBoard.js';
import { href } from '../router.js';
import type { MatchSummary as Detail, PrunedNote, SeatRecord, WirePage } from '../types.js';
import { usePolling } from '../usePolling.js';

/** Seat kinds the games record (others are shown as recorded). */
const SEAT_KINDS = new Set(['player', 'bot', 'human', 'client', 'engine', 'program', 'peer']);

/** Rows shown at a time: a long record (a Catan game: tens of thousands of wire lines) stays a small page. */
const EVENTS_PAGE = 100;
const WIRE_PAGE = 200;
const FOLLOW_MS = 2000;
/** How long after its end a match is still followed (a server may write its last lines a little later). */
const SETTLE_MS = 15_000;

/** One recorded match: seats, result, events, and the wire log per connection, a page at a time. */
export function MatchDetail({ id }: { id: string }) {
  const { t } = useTranslation();
  // A running (or just ended) match is followed: its last lines may still be on the way to the store.
  const [follow, setFollow] = useState(true);
  const match = usePolling<Detail>(
    `/api/matches/${encodeURIComponent(id)}?wire=0`,
    follow ? FOLLOW_MS : null,
  );
  const m = match.data;
  const settled =
    (m === null && match.error !== null) ||
    (m !== null && m.status !== 'running' && m.endedAt !== null && m.endedAt < match.loadedAt - SETTLE_MS);
  if (follow && settled) setFollow(false);
  return (
    <section className="page">
      <header className="page-header">
        <h1>
          {t('match.title')} <code data-testid="match-id">{id}</code>
        </h1>
        {m && <StatusBadge status={m.status} testId="match-status" />}
        <a href={href.matches(m?.game ?? '')}>← {t('match.allMatches')}</a>
      </header>
      {match.loading && <p className="muted">{t('common.loading')}</p>}
      {match.error !== null && (
        <p className="error" role="alert">
          {/* The server's 404 says it in English: in the reader's language here. */}
          {match.error === `no match with id ${id}` ? t('apiError.noMatch', { id }) : match.error}
        </p>
      )}
      {m === null && match.error === `no match with id ${id}` && <PrunedNoteLine id={id} />}
      {m && (
        <>
          {/* The game's board first: a tournament's "replay" link leads here (issue 33). */}
          <RecordBoard match={m} />
          <div className="columns">
            <div className="panel">
              <h2>{t('match.title')}</h2>
              <dl className="facts">
                <dt>{t('matches.game')}</dt>
                <dd>{gameName(m.game, t)}</dd>
                <dt>{t('matches.started')}</dt>
                <dd>{formatTime(m.startedAt)}</dd>
                <dt>{t('matches.duration')}</dt>
                <dd>{formatDuration(m.endedAt === null ? null : m.endedAt - m.startedAt)}</dd>
                <dt>{t('match.seed')}</dt>
                <dd>
                  <code>{m.seed ?? '–'}</code>
                </dd>
                {typeof (m.meta as { gameName?: unknown } | null)?.gameName === 'string' && (
                  <>
                    <dt>{t('match.name')}</dt>
                    <dd data-testid="match-game-name">{(m.meta as { gameName: string }).gameName}</dd>
                  </>
                )}
                {m.meta !== null && (
                  <>
                    <dt>{t('match.meta')}</dt>
                    <dd>
                      {/* Whole on demand: a cut-off line hides what a tutor looks for. */}
                      <details data-testid="match-meta">
                        <summary>
                          <CompactJson value={m.meta} max={120} />
                        </summary>
                        <PrettyJson value={m.meta} />
                      </details>
                    </dd>
                  </>
                )}
              </dl>
              <Seats seats={m.seats} />
            </div>
            <div className="panel">
              <h2>{t('matches.result')}</h2>
              <p>
                <ResultLine match={m} />
              </p>
              <details data-testid="match-result">
                <summary>{t('match.recordedJson')}</summary>
                <PrettyJson value={m.result} />
              </details>
            </div>
          </div>
          <Events match={m} />
          <Wire id={m.id} total={m.wireLines} startedAt={m.startedAt} follow={follow} />
        </>
      )}
    </section>
  );
}

function Seats({ seats }: { seats: SeatRecord[] }) {
  const { t } = useTranslation();
  return (
    <table className="table compact">
      <thead>
        <tr>
          <th className="num">{t('match.seat')}</th>
          <th>{t('match.name')}</th>
          <th>{t('match.kind')}</th>
          <th>{t('overview.address')}</th>
        </tr>
      </thead>
      <tbody>
        {seats.map((s) => (
          <tr key={s.seat} data-testid="seat-row">
            <td className="num">{s.seat}</td>
            <td>{s.name}</td>
            <td>{SEAT_KINDS.has(s.kind) ? t(`seatKind.${s.kind}`) : <code>{s.kind}</code>}</td>
            <td>
              <code>{s.address ?? '–'}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Events({ match }: { match: Detail }) {
  const { t } = useTranslation();
  const seatName = new Map(match.seats.map((s) => [s.seat, s.name]));
  const [offset, setOffset] = useState(0);
  const shown = match.events.slice(offset, offset + EVENTS_PAGE);
  return (
    <div className="panel">
      <h2>{t('match.events', { count: match.events.length })}</h2>
      {match.events.length === 0 ? (
        <p className="muted">{t('match.noEvents')}</p>
      ) : (
        <div className="table-scroll">
          <table className="table compact">
            <thead>
              <tr>
                <th className="num">#</th>
                <th className="num">{t('match.time')}</th>
                <th>{t('match.seat')}</th>
                <th>{t('match.type')}</th>
                <th>{t('match.data')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.seq} data-testid="event-row">
                  <td className="num">{e.seq}</td>
                  <td className="num mono">{formatOffset(e.at, match.startedAt)}</td>
                  <td>{e.seat === null ? '–' : `${e.seat} ${seatName.get(e.seat) ?? ''}`}</td>
                  <td>
                    <code>{e.type}</code>
                  </td>
                  <td>
                    <CompactJson value={e.data} max={160} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        offset={offset}
        size={EVENTS_PAGE}
        total={match.events.length}
        onChange={setOffset}
        testId="events-pager"
      />
    </div>
  );
}

function Wire({
  id,
  total,
  startedAt,
  follow,
}: {
  id: string;
  total: number;
  startedAt: number;
  follow: boolean;
}) {
  const { t } = useTranslation();
  const [conn, setConn] = useState('');
  const [offset, setOffset] = useState(0);
  const page = usePolling<WirePage>(
    `/api/matches/${encodeURIComponent(id)}/wire${query({ conn, offset, limit: WIRE_PAGE })}`,
    follow ? FOLLOW_MS : null,
  );
  const [conns, setConns] = useState<WirePage['conns']>([]);
  const loaded = page.data;
  // The connection list stays while the next page loads.
  if (loaded && loaded.conns !== conns && JSON.stringify(loaded.conns) !== JSON.stringify(conns))
    setConns(loaded.conns);
  const lines = loaded?.lines ?? [];
  const shownTotal = loaded?.total ?? (conn === '' ? total : 0);
  return (
    <div className="panel">
      <header className="panel-header">
        <h2>{t('match.wireLog', { count: shownTotal })}</h2>
        <label>
          {t('match.connection')}{' '}
          <select
            value={conn}
            onChange={(e) => {
              setConn(e.target.value);
              setOffset(0);
            }}
            data-testid="wire-conn-select"
          >
            <option value="">{t('match.allConnections')}</option>
            {conns.map((c) => (
              <option key={c.conn} value={c.conn}>
                {c.conn === '*' ? t('match.toAll') : c.conn} — {t('match.lines', { count: c.lines })}
              </option>
            ))}
          </select>
        </label>
        <span className="legend">
          <span className="dir dir-in">→</span> {t('match.legendIn')} <span className="dir dir-out">←</span>{' '}
          {t('match.legendOut')}
        </span>
      </header>
      <Pager offset={offset} size={WIRE_PAGE} total={shownTotal} onChange={setOffset} testId="wire-pager" />
      {page.error !== null && <p className="error">{page.error}</p>}
      {lines.length === 0 ? (
        <p className="muted">{page.loading ? t('common.loading') : t('match.noWire')}</p>
      ) : (
        <div className="table-scroll">
          <table className="table wire">
            <thead>
              <tr>
                <th className="num">{t('match.time')}</th>
                {conn === '' && <th>{t('match.connection')}</th>}
                <th>{t('match.dir')}</th>
                <th>{t('match.message')}</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((w) => (
                <tr
                  key={w.key}
                  data-testid="wire-line"
                  data-dir={w.dir}
                  data-conn={w.conn}
                  className={`wire-${w.dir}`}
                >
                  <td className="num mono">{formatOffset(w.at, startedAt)}</td>
                  {conn === '' && (
                    <td>
                      <code>{w.conn}</code>
                    </td>
                  )}
                  <td>
                    <span
                      className={`dir dir-${w.dir}`}
                      title={w.dir === 'in' ? t('match.legendIn') : t('match.legendOut')}
                    >
                      {w.dir === 'in' ? `→ ${t('match.in')}` : `← ${t('match.out')}`}
                    </span>
                  </td>
                  <td>
                    <WireText text={w.data} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        offset={offset}
        size={WIRE_PAGE}
        total={shownTotal}
        onChange={setOffset}
        testId="wire-pager-bottom"
      />
    </div>
  );
}

/** Why a record is not there, when retention or a deletion took it (issue 37): `GET /api/matches/:id/pruned`. */
function PrunedNoteLine({ id }: { id: string }) {
  const { t } = useTranslation();
  const note = usePolling<{ pruned: PrunedNote | null }>(`/api/matches/${encodeURIComponent(id)}/pruned`, null).data?.pruned ?? null;
  if (note === null) return null;
  const by = t(`pruned.by.${note.reason === 'tournament deleted' ? 'tournament' : note.reason}`, { tournament: note.tournamentId ?? '' });
  const date = formatTime(note.prunedAt);
  return (
    <p className="muted" data-testid="pruned-note">
      {note.exact ? t('pruned.exact', { date, by }) : t('pruned.house', { date, by })}
    </p>
  );
}
