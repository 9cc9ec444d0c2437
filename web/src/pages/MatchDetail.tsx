import { useState } from 'react';
import { CompactJson, PrettyJson } from '../components/Json.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { WireText } from '../components/WireText.js';
import { formatDuration, formatOffset, formatTime } from '../format.js';
import { href } from '../router.js';
import type { MatchDetail as Detail, SeatRecord, WireRecord } from '../types.js';
import { usePolling } from '../usePolling.js';

/** One recorded match: seats, result, events, and the wire log per connection. */
export function MatchDetail({ id }: { id: string }) {
  const match = usePolling<Detail>(`/api/matches/${encodeURIComponent(id)}`, null);
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
              <div data-testid="match-result">
                <PrettyJson value={m.result} />
              </div>
            </div>
          </div>
          <Events match={m} />
          <Wire wire={m.wire} startedAt={m.startedAt} />
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
  return (
    <div className="panel">
      <h2>Events ({match.events.length})</h2>
      {match.events.length === 0 ? (
        <p className="muted">No events recorded.</p>
      ) : (
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
            {match.events.map((e) => (
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
      )}
    </div>
  );
}

const connLabel = (conn: string): string => (conn === '*' ? '* (to all clients)' : conn);

function Wire({ wire, startedAt }: { wire: WireRecord[]; startedAt: number }) {
  const [conn, setConn] = useState('');
  const counts = new Map<string, number>();
  for (const w of wire) counts.set(w.conn, (counts.get(w.conn) ?? 0) + 1);
  // A server that writes the lines of one step at once (Catan) records them as one entry.
  const lines = (conn === '' ? wire : wire.filter((w) => w.conn === conn)).flatMap((w) =>
    w.data.includes('\n')
      ? w.data.split('\n').map((data, i) => ({ ...w, data, key: `${w.seq}.${i}` }))
      : [{ ...w, key: String(w.seq) }],
  );
  return (
    <div className="panel">
      <header className="panel-header">
        <h2>Wire log ({lines.length})</h2>
        <label>
          Connection{' '}
          <select value={conn} onChange={(e) => setConn(e.target.value)} data-testid="wire-conn-select">
            <option value="">all connections</option>
            {[...counts].map(([c, n]) => (
              <option key={c} value={c}>
                {connLabel(c)} — {n} lines
              </option>
            ))}
          </select>
        </label>
        <span className="legend">
          <span className="dir dir-in">→</span> in: client to server <span className="dir dir-out">←</span>{' '}
          out: server to client
        </span>
      </header>
      {lines.length === 0 ? (
        <p className="muted">No wire messages recorded.</p>
      ) : (
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
      )}
    </div>
  );
}
