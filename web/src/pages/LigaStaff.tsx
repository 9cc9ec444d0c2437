import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, hasToken, postJson } from '../api.js';
import { gameName } from '../format.js';
import { pageLink, type LadderOverview, type RosterCsvError, type StaffEntry } from '../ladder.js';
import { usePolling } from '../usePolling.js';

/**
 * The staff part of the Liga page, shown where the dashboard holds the admin token (opened once
 * with `?token=…`, api.ts): the roster with each student's codes and private link, importing a CSV
 * (or adding one name), revoking and renewing codes, and freezing or starting seasons. The server
 * checks the token on every one of these (ladder-api.ts); a wrong token shows its 401 here.
 */
export function LigaStaff({ games, onSeason }: { games: LadderOverview['games']; onSeason: () => void }) {
  const { t } = useTranslation();
  if (!hasToken())
    return (
      <p className="muted small" data-testid="liga-staff-hint">
        {t('liga.staff.hint')}
      </p>
    );
  return <Staff games={games} onSeason={onSeason} />;
}

function Staff({ games, onSeason }: { games: LadderOverview['games']; onSeason: () => void }) {
  const { t } = useTranslation();
  const roster = usePolling<{ entries: StaffEntry[] }>('/api/ladder/roster', null, true);
  if (roster.data === null && roster.error !== null) {
    return (
      <section className="panel liga-staff" data-testid="liga-staff">
        <h2>{t('liga.staff.title')}</h2>
        <p className="error" role="alert" data-testid="liga-staff-error">
          {roster.error}
        </p>
      </section>
    );
  }
  const entries = roster.data?.entries ?? [];
  return (
    <section className="panel liga-staff" data-testid="liga-staff">
      <h2>{t('liga.staff.title')}</h2>
      <h3>{t('liga.staff.roster', { count: entries.filter((e) => !e.revoked).length })}</h3>
      {roster.data !== null && entries.length === 0 && <p className="muted">{t('liga.staff.empty')}</p>}
      {entries.length > 0 && <RosterTable entries={entries} onChange={roster.reload} />}
      <ImportBox onAdded={roster.reload} />
      <Seasons games={games} onChange={onSeason} />
    </section>
  );
}

function RosterTable({ entries, onChange }: { entries: StaffEntry[]; onChange: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="table-scroll">
      <table className="table compact liga-roster" data-testid="liga-roster">
        <thead>
          <tr>
            <th>{t('liga.standings.name')}</th>
            <th>{t('liga.standings.group')}</th>
            <th>{t('liga.staff.code')}</th>
            <th>{t('liga.staff.reservation')}</th>
            <th>{t('liga.staff.page')}</th>
            <th>{t('liga.staff.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr
              key={e.id}
              data-testid="liga-roster-row"
              data-name={e.name}
              className={e.revoked ? 'liga-revoked' : undefined}
            >
              <td>{e.name}</td>
              <td>{e.group}</td>
              <td>
                <code data-testid="liga-roster-code">{e.code}</code>
              </td>
              <td>
                <code className="liga-reservation">{e.reservation}</code>
              </td>
              <td>
                {e.revoked ? (
                  <span className="muted">–</span>
                ) : (
                  // The path itself (`/liga/<pageToken>`): its link address is what a student is given.
                  <a href={e.page} data-testid="liga-roster-page" title={pageLink(e.page)}>
                    {t('liga.staff.openPage')}
                  </a>
                )}
              </td>
              <td>
                {e.revoked ? (
                  <span className="badge badge-failed">{t('liga.staff.revoked')}</span>
                ) : (
                  <EntryActions entry={e} onChange={onChange} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Renew (new codes and link; the old ones stop working) and revoke (for good: asked twice). */
function EntryActions({ entry, onChange }: { entry: StaffEntry; onChange: () => void }) {
  const { t } = useTranslation();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (action: 'revoke' | 'renew') => {
    setError(null);
    try {
      await postJson(`/api/ladder/roster/${entry.id}/${action}`);
      setAsking(false);
      onChange();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <span className="liga-actions">
      {asking ? (
        <>
          <button type="button" data-testid="liga-revoke-confirm" onClick={() => void act('revoke')}>
            {t('liga.staff.revokeConfirm')}
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            {t('liga.staff.cancel')}
          </button>
        </>
      ) : (
        <>
          <button
            type="button"
            data-testid="liga-renew"
            title={t('liga.staff.renewTitle')}
            onClick={() => void act('renew')}
          >
            {t('liga.staff.renew')}
          </button>
          <button
            type="button"
            data-testid="liga-revoke"
            title={t('liga.staff.revokeTitle')}
            onClick={() => setAsking(true)}
          >
            {t('liga.staff.revoke')}
          </button>
        </>
      )}
      {error !== null && (
        <span className="error" role="alert">
          {' '}
          {error}
        </span>
      )}
    </span>
  );
}

/** A CSV (all or nothing: the API names each bad line) or one name and group. */
function ImportBox({ onAdded }: { onAdded: () => void }) {
  const { t } = useTranslation();
  const [csv, setCsv] = useState('');
  const [name, setName] = useState('');
  const [group, setGroup] = useState('');
  const [errors, setErrors] = useState<RosterCsvError[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [added, setAdded] = useState<number | null>(null);
  const send = async (body: unknown, done: () => void) => {
    setErrors([]);
    setProblem(null);
    setAdded(null);
    try {
      const answer = await postJson<{ entries: StaffEntry[] }>('/api/ladder/roster', body);
      setAdded(answer.entries.length);
      done();
      onAdded();
    } catch (err) {
      const answer = err instanceof ApiError ? err.body : null;
      if (answer !== null && typeof answer === 'object' && 'errors' in answer && Array.isArray(answer.errors))
        setErrors(answer.errors as RosterCsvError[]);
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <div className="liga-import" data-testid="liga-import">
      <h3>{t('liga.staff.importTitle')}</h3>
      <p className="muted small">{t('liga.staff.importHint')}</p>
      <textarea
        className="mono liga-csv"
        rows={5}
        value={csv}
        placeholder={'Name;Gruppe\nAnna Schmidt;Tutorium 1'}
        data-testid="liga-import-csv"
        onChange={(e) => setCsv(e.target.value)}
      />
      <div className="form-actions">
        <button
          type="button"
          data-testid="liga-import-send"
          disabled={csv.trim() === ''}
          onClick={() => void send({ csv }, () => setCsv(''))}
        >
          {t('liga.staff.import')}
        </button>
      </div>
      <div className="form-row liga-add">
        <label>
          {t('liga.standings.name')}
          <input
            value={name}
            maxLength={40}
            data-testid="liga-add-name"
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label>
          {t('liga.standings.group')}
          <input
            value={group}
            maxLength={40}
            data-testid="liga-add-group"
            onChange={(e) => setGroup(e.target.value)}
          />
        </label>
        <button
          type="button"
          data-testid="liga-add-send"
          disabled={name.trim() === ''}
          onClick={() =>
            void send({ entries: [{ name: name.trim(), group: group.trim() }] }, () => {
              setName('');
              setGroup('');
            })
          }
        >
          {t('liga.staff.add')}
        </button>
      </div>
      {added !== null && <p data-testid="liga-import-done">{t('liga.staff.added', { count: added })}</p>}
      {problem !== null && (
        <div role="alert" data-testid="liga-import-errors">
          <p className="error">{problem}</p>
          {errors.length > 0 && (
            <ul className="error-lines">
              {errors.map((e) => (
                <li key={`${e.line}:${e.message}`} data-testid="liga-import-error" data-line={e.line}>
                  {t('liga.staff.line', { line: e.line })} <code>{e.message}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** Per game: freeze the season (standings for grading), open it again, or start a new one (the old one is archived). */
function Seasons({ games, onChange }: { games: LadderOverview['games']; onChange: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="liga-seasons" data-testid="liga-seasons">
      <h3>{t('liga.staff.seasons')}</h3>
      {games.map((g) => (
        <SeasonControls key={g.game} game={g} onChange={onChange} />
      ))}
    </div>
  );
}

function SeasonControls({
  game: g,
  onChange,
}: {
  game: LadderOverview['games'][number];
  onChange: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (action: 'freeze' | 'unfreeze' | 'new') => {
    setError(null);
    try {
      await postJson(
        `/api/ladder/${g.game}/season`,
        action === 'new' ? { action, name: name.trim() } : { action },
      );
      setAsking(false);
      setName('');
      onChange();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const frozen = g.season.frozenAt !== null;
  return (
    <div className="liga-season-row" data-testid={`liga-season-${g.game}`}>
      <p>
        <strong>{gameName(g.game, t)}</strong>: {g.season.name}{' '}
        <span className={frozen ? 'badge badge-stopped' : 'badge badge-running'}>
          {frozen ? t('liga.frozenShort') : t('liga.open')}
        </span>
      </p>
      <div className="form-row">
        {frozen ? (
          <button type="button" data-testid="liga-unfreeze" onClick={() => void act('unfreeze')}>
            {t('liga.staff.unfreeze')}
          </button>
        ) : (
          <button
            type="button"
            data-testid="liga-freeze"
            title={t('liga.staff.freezeTitle')}
            onClick={() => void act('freeze')}
          >
            {t('liga.staff.freeze')}
          </button>
        )}
        <input
          value={name}
          maxLength={40}
          placeholder={t('liga.staff.seasonName')}
          aria-label={t('liga.staff.seasonName')}
          data-testid="liga-season-name"
          onChange={(e) => {
            setName(e.target.value);
            setAsking(false);
          }}
        />
        {asking ? (
          <>
            <button type="button" data-testid="liga-season-new-confirm" onClick={() => void act('new')}>
              {t('liga.staff.newSeasonConfirm')}
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              {t('liga.staff.cancel')}
            </button>
          </>
        ) : (
          <button
            type="button"
            data-testid="liga-season-new"
            disabled={name.trim() === ''}
            onClick={() => setAsking(true)}
          >
            {t('liga.staff.newSeason')}
          </button>
        )}
      </div>
      {asking && <p className="warning small">{t('liga.staff.newSeasonNote')}</p>}
      {error !== null && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
