import { useState } from 'react';
import { CompactJson, PrettyJson } from '../components/Json.js';
import { ResultLine } from '../components/MatchResult.js';
import { Pager } from '../components/Pager.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { WireText } from '../components/WireText.js';
import { formatDuration, formatOffset, formatTime } from '../format.js';
import { query } from '../api.js';
import { href } from '../router.js';
import type { MatchSummary as Detail, SeatRecord, WirePage } from '../types.js';
import { usePolling } from '../usePolling.js';

/** Rows shown at a time: a long record (a Catan game: tens of thousands of wire lines) stays a small page. */
const EVENTS_PAGE = 100;
const WIRE_PAGE = 200;

/** One recorded match: seats, result, events, and the wire log per connection, a page at a time. */
export function MatchDetail({ id }: { id: string }) {
  const match = usePolling<Detail>(`/api/matches/${encodeURIComponent(id)}?wire=0`, null);
  const m = match.data;
  return (
    <section className="page">
      <header className="page-header">
        <h1>
          Match <code data-testid="match-id">{id}</code>
        </h1>
        {m && <StatusBadge status={m.status} testId="match-status" />}
        <a href={href.matches(m?.game ?? '')}>← all matches</a>
      </header>
      {match.loading && <p className="muted">Loading…</p>}
      {match.error !== null && (
        <p className="error" role="alert">
          {match.error}
        </p>
      )}
      {m && (
        <>
          <div className="columns">
            <div className="panel">
              <h2>Match</h2>
              <dl className="facts">
                <dt>Game</dt>
                <dd>{m.game}</dd>
                <dt>Started</dt>
                <dd>{formatTime(m.startedAt)}</dd>
                <dt>Duration</dt>
                <dd>{formatDuration(m.endedAt === null ? null : m.endedAt - m.startedAt)}</dd>
                <dt>Seed</dt>
                <dd>
                  <code>{m.seed ?? '–'}</code>
                </dd>
                {m.meta !== null && (
                  <>
                    <dt>Meta</dt>
                    <dd>
                      <CompactJson value={m.meta} max={200} />
                    </dd>
                  </>
                )}
              </dl>
              <Seats seats={m.seats} />
            </div>
            <div className="panel">
              <h2>Result</h2>
              <p>
                <ResultLine match={m} />
              </p>
              <details data-testid="match-result">
                <summary>recorded JSON</summary>
                <PrettyJson value={m.result} />
              </details>
            </div>
          </div>
          <Events match={m} />
          <Wire id={m.id} total={m.wireLines} startedAt={m.startedAt} />
        </>
      )}
    </section>
  );
}

function Seats({ seats }: { seats: SeatRecord[] }) {
  return (
    <table className="table compact">
      <thead>
        <tr>
          <th className="num">Seat</th>
          <th>Name</th>
          <th>Kind</th>
          <th>Address</th>
        </tr>
      </thead>
      <tbody>
        {seats.map((s) => (
          <tr key={s.seat} data-testid="seat-row">
            <td className="num">{s.seat}</td>
            <td>{s.name}</td>
            <td>{s.kind}</td>
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
  const seatName = new Map(match.seats.map((s) => [s.seat, s.name]));
  const [offset, setOffset] = useState(0);
  const shown = match.events.slice(offset, offset + EVENTS_PAGE);
  return (
    <div className="panel">
      <h2>Events ({match.events.length})</h2>
      {match.events.length === 0 ? (
        <p className="muted">No events recorded.</p>
      ) : (
        <div className="table-scroll">
          <table className="table compact">
            <thead>
              <tr>
                <th className="num">#</th>
                <th className="num">Time</th>
                <th>Seat</th>
                <th>Type</th>
                <th>Data</th>
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

const connLabel = (conn: string): string => (conn === '*' ? '* (to all clients)' : conn);

function Wire({ id, total, startedAt }: { id: string; total: number; startedAt: number }) {
  const [conn, setConn] = useState('');
  const [offset, setOffset] = useState(0);
  const page = usePolling<WirePage>(
    `/api/matches/${encodeURIComponent(id)}/wire${query({ conn, offset, limit: WIRE_PAGE })}`,
    null,
  );
  const [conns, setConns] = useState<WirePage['conns']>([]);
  const loaded = page.data;
  // The connection list stays while the next page loads.
  if (loaded && loaded.conns.length !== conns.length) setConns(loaded.conns);
  const lines = loaded?.lines ?? [];
  const shownTotal = loaded?.total ?? (conn === '' ? total : 0);
  return (
    <div className="panel">
      <header className="panel-header">
        <h2>Wire log ({shownTotal})</h2>
        <label>
          Connection{' '}
          <select
            value={conn}
            onChange={(e) => {
              setConn(e.target.value);
              setOffset(0);
            }}
            data-testid="wire-conn-select"
          >
            <option value="">all connections</option>
            {conns.map((c) => (
              <option key={c.conn} value={c.conn}>
                {connLabel(c.conn)} — {c.lines} lines
              </option>
            ))}
          </select>
        </label>
        <span className="legend">
          <span className="dir dir-in">→</span> in: client to server <span className="dir dir-out">←</span>{' '}
          out: server to client
        </span>
      </header>
      <Pager offset={offset} size={WIRE_PAGE} total={shownTotal} onChange={setOffset} testId="wire-pager" />
      {page.error !== null && <p className="error">{page.error}</p>}
      {lines.length === 0 ? (
        <p className="muted">{page.loading ? 'Loading…' : 'No wire messages recorded.'}</p>
      ) : (
        <div className="table-scroll">
          <table className="table wire">
            <thead>
              <tr>
                <th className="num">Time</th>
                {conn === '' && <th>Connection</th>}
                <th>Dir</th>
                <th>Message</th>
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
                      title={w.dir === 'in' ? 'in: client → server' : 'out: server → client'}
                    >
                      {w.dir === 'in' ? '→ in' : '← out'}
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
