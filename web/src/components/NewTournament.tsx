import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, postJson } from '../api.js';
import { formatName, gameName } from '../format.js';
import { botDescription } from '../i18n/apiTexts.js';
import { Marked } from './Marked.js';
import { ProgramsNote } from './RegisterProgram.js';
import { href } from '../router.js';
import { usePolling } from '../usePolling.js';
import { tournamentHints } from '../../../src/tournament/hints.js';
import type { ProgramView, TournamentErrors, TournamentOptions } from '../../../src/web/tournament-api.js';

interface EntrantRow {
  key: number;
  kind: 'bot' | 'program';
  name: string;
  bot: string;
  options: string;
  program: string;
}

type Field = 'gamesPerPairing' | 'rounds' | 'tableSize' | 'gamesPerTable' | 'moveTime' | 'seed' | 'parallel';

/** The settings each format uses (docs/tournaments.md); moveTime, seed and parallel always. */
const FIELDS_BY_FORMAT: Record<string, readonly Field[]> = {
  'round-robin': ['gamesPerPairing'],
  swiss: ['gamesPerPairing', 'rounds'],
  seatings: ['rounds', 'tableSize'],
  tables: ['rounds', 'tableSize', 'gamesPerTable'],
};
const ALWAYS: readonly Field[] = ['moveTime', 'seed', 'parallel'];

let nextKey = 1;
const botRow = (bot: string, n: number): EntrantRow => ({
  key: nextKey++,
  kind: 'bot',
  name: `${bot}-${n}`,
  bot,
  options: '{}',
  program: '',
});

/** The "New tournament" form: game, format, entrants (our bots or registered programs), settings. */
export function NewTournament() {
  const { t, i18n } = useTranslation();
  const options = usePolling<TournamentOptions>('/api/tournaments/options', null);
  const games = options.data?.games ?? [];
  const [game, setGame] = useState('');
  const chosen = games.find((g) => g.game === game) ?? games[0];
  const programs = usePolling<ProgramView[]>(
    chosen ? `/api/tournaments/programs?game=${encodeURIComponent(chosen.game)}` : null,
    null,
  );
  const [format, setFormat] = useState('');
  const [name, setName] = useState('');
  const [rows, setRows] = useState<EntrantRow[] | null>(null);
  const [fields, setFields] = useState<Partial<Record<Field, string>>>({});
  const [errors, setErrors] = useState<TournamentErrors['errors']>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (options.loading) return <p className="muted">{t('common.loading')}</p>;
  if (!chosen)
    return (
      <p className="muted" data-testid="no-tournament-games">
        {t('tournaments.noGames')}
      </p>
    );

  const firstBot = chosen.bots[0]?.name ?? '';
  const entrants = rows ?? [botRow(firstBot, 1), botRow(firstBot, 2)];
  const fmt = chosen.formats.includes(format) ? format : (chosen.formats[0] ?? '');
  const shown = [...(FIELDS_BY_FORMAT[fmt] ?? []), ...ALWAYS];
  const setRow = (key: number, change: Partial<EntrantRow>) =>
    setRows(entrants.map((r) => (r.key === key ? { ...r, ...change } : r)));
  // Each error at its field (the API names the field's path, issue #33); the rest in the list below.
  const isRow = (path: string, i: number) => path === `entrants[${i}]` || path.startsWith(`entrants[${i}].`);
  const rowErrors = (i: number) => errors.filter((e) => isRow(e.path, i));
  const fieldOf = (path: string): string => /^[A-Za-z]+/.exec(path)?.[0] ?? '';
  const atField = (f: string) => errors.filter((e) => fieldOf(e.path) === f && !e.path.startsWith('entrants['));
  const placed = new Set<string>(['name', 'game', 'format', ...shown]);
  const unplaced = errors.filter(
    (e) => !(placed.has(fieldOf(e.path)) && !e.path.startsWith('entrants[')) && !entrants.some((_, i) => isRow(e.path, i)),
  );
  // Hints that stop nothing, as the CLI gives them for a file (issue #33), while the fields are filled in.
  const numberIn = (f: Field): number | undefined => {
    const v = shown.includes(f) ? (fields[f] ?? '').trim() : '';
    return v === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);
  };
  const hints = tournamentHints({ game: chosen.game, rounds: numberIn('rounds'), gamesPerTable: numberIn('gamesPerTable') });
  const fieldWarnings = (f: string) =>
    hints
      .filter((h) => h.key === f)
      .map((h) => (
        <span key={h.code} className="warning small field-warning" role="note" data-testid={`field-warning-${f}`}>
          {t(`tournaments.hint.${h.code}`, h.values)}
        </span>
      ));
  const fieldErrors = (f: string) =>
    atField(f).map((e) => (
      <span key={e.line} className="error small field-error" data-testid={`field-error-${f}`}>
        {e.message}
      </span>
    ));

  const submit = async () => {
    const local: TournamentErrors['errors'] = [];
    const list = entrants.map((r, i) => {
      if (r.kind === 'program') return { name: r.name.trim(), program: r.program };
      let parsed: unknown = {};
      try {
        parsed = r.options.trim() === '' ? {} : JSON.parse(r.options);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        local.push({ path: `entrants[${i}].options`, message, line: `entrants[${i}].options: ${message}` });
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        const message = t('tournaments.optionsObject');
        local.push({ path: `entrants[${i}].options`, message, line: `entrants[${i}].options: ${message}` });
      }
      return { name: r.name.trim(), bot: r.bot, options: parsed };
    });
    if (local.length > 0) {
      setErrors(local);
      return;
    }
    const body: Record<string, unknown> = {
      name: name.trim(),
      game: chosen.game,
      format: fmt,
      entrants: list,
    };
    for (const f of shown) {
      const v = (fields[f] ?? '').trim();
      if (v === '') continue;
      body[f] = f === 'seed' && !/^-?\d+$/.test(v) ? v : Number(v);
    }
    setBusy(true);
    setErrors([]);
    setFailure(null);
    try {
      const { id } = await postJson<{ id: string }>('/api/tournaments', body);
      window.location.hash = href.tournament(id);
    } catch (err) {
      const answer = err instanceof ApiError ? err.body : null;
      if (answer && typeof answer === 'object' && 'errors' in answer && Array.isArray(answer.errors))
        setErrors(answer.errors as TournamentErrors['errors']);
      else setFailure(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="new-tournament"
      data-testid="new-tournament"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <div className="form-grid">
        <label>
          {t('tournaments.name')}
          <input
            value={name}
            required
            maxLength={200}
            data-testid="tournament-name"
            onChange={(e) => setName(e.target.value)}
          />
          {fieldErrors('name')}
        </label>
        <label>
          {t('tournaments.game')}
          <select
            value={chosen.game}
            data-testid="tournament-game"
            onChange={(e) => {
              const next = games.find((g) => g.game === e.target.value);
              setGame(e.target.value);
              setRows(null);
              setErrors([]);
              setFormat(next?.formats[0] ?? '');
            }}
          >
            {games.map((g) => (
              <option key={g.game} value={g.game}>
                {gameName(g.game, t)}
              </option>
            ))}
          </select>
          {fieldErrors('game')}
        </label>
        <label>
          {t('tournaments.format')}
          <select value={fmt} data-testid="tournament-format" onChange={(e) => setFormat(e.target.value)}>
            {chosen.formats.map((f) => (
              <option key={f} value={f}>
                {formatName(f, t)}
              </option>
            ))}
          </select>
          {fieldErrors('format')}
        </label>
        {shown.map((f) => (
          <label key={f}>
            {t(`tournaments.field.${f}`)}
            <input
              value={fields[f] ?? ''}
              inputMode={f === 'seed' ? 'text' : 'decimal'}
              placeholder={t('tournaments.default')}
              data-testid={`tournament-${f}`}
              onChange={(e) => setFields({ ...fields, [f]: e.target.value })}
            />
            {fieldErrors(f)}
            {fieldWarnings(f)}
          </label>
        ))}
      </div>
      <h3>{t('tournaments.entrants')}</h3>
      <ol className="entrant-rows">
        {entrants.map((r, i) => (
          <li key={r.key} data-testid="entrant-row">
            <div className="entrant-fields">
              <select
                value={r.kind}
                aria-label={t('tournaments.kind')}
                data-testid="entrant-kind"
                onChange={(e) => setRow(r.key, { kind: e.target.value === 'program' ? 'program' : 'bot' })}
              >
                <option value="bot">{t('tournaments.ourBot')}</option>
                <option value="program" disabled={(programs.data ?? []).length === 0}>
                  {t('tournaments.program')}
                </option>
              </select>
              <input
                value={r.name}
                aria-label={t('tournaments.entrantName')}
                placeholder={t('tournaments.entrantName')}
                data-testid="entrant-name"
                onChange={(e) => setRow(r.key, { name: e.target.value })}
              />
              {r.kind === 'bot' ? (
                <>
                  <select
                    value={r.bot}
                    aria-label={t('tournaments.bot')}
                    data-testid="entrant-bot"
                    onChange={(e) => setRow(r.key, { bot: e.target.value })}
                  >
                    {chosen.bots.map((b) => (
                      <option key={b.name} value={b.name} title={botDescription(i18n.language, chosen.game, b).text.replaceAll('`', '')}>
                        {b.name}
                      </option>
                    ))}
                  </select>
                  <input
                    className="mono"
                    value={r.options}
                    aria-label={t('tournaments.options')}
                    placeholder='{"depth": 4}'
                    data-testid="entrant-options"
                    onChange={(e) => setRow(r.key, { options: e.target.value })}
                  />
                </>
              ) : (
                <select
                  value={r.program}
                  aria-label={t('tournaments.program')}
                  data-testid="entrant-program"
                  onChange={(e) => setRow(r.key, { program: e.target.value })}
                >
                  <option value="">–</option>
                  {(programs.data ?? []).map((p) => (
                    <option key={p.name} value={p.name}>
                      {p.name}
                    </option>
                  ))}
                </select>
              )}
              <button
                type="button"
                disabled={entrants.length <= 1}
                aria-label={t('tournaments.removeEntrant')}
                data-testid="entrant-remove"
                onClick={() => setRows(entrants.filter((x) => x.key !== r.key))}
              >
                ✕
              </button>
            </div>
            {r.kind === 'bot' && (
              <BotDescription game={chosen.game} bot={chosen.bots.find((b) => b.name === r.bot)} />
            )}
            {rowErrors(i).map((e) => (
              <p key={e.line} className="error small" data-testid="entrant-error">
                {e.message}
              </p>
            ))}
          </li>
        ))}
      </ol>
      <ProgramsNote game={chosen.game} count={(programs.data ?? []).length} onRegistered={programs.reload} />
      <div className="form-actions">
        <button
          type="button"
          data-testid="entrant-add"
          onClick={() => setRows([...entrants, botRow(firstBot, entrants.length + 1)])}
        >
          + {t('tournaments.addEntrant')}
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid="tournament-create">
          {t('tournaments.create')}
        </button>
      </div>
      {errors.length > 0 && (
        <p className="error" role="alert" data-testid="tournament-error-count">
          {t('tournaments.errorCount', { count: errors.length })}
        </p>
      )}
      {unplaced.length > 0 && (
        <ul className="error-lines" data-testid="tournament-errors">
          {unplaced.map((e) => (
            <li key={e.line}>
              <code>{e.line}</code>
            </li>
          ))}
        </ul>
      )}
      {failure !== null && (
        <p className="error" role="alert">
          {failure}
        </p>
      )}
    </form>
  );
}

/** What the chosen bot does, in the reader's language (German texts are the dashboard's own). */
function BotDescription({ game, bot }: { game: string; bot: { name: string; description: string } | undefined }) {
  const { i18n } = useTranslation();
  if (bot === undefined) return null;
  const d = botDescription(i18n.language, game, bot);
  return (
    <p className="muted small" data-testid="entrant-bot-description">
      <Marked text={d.text} marked={d.marked} />
    </p>
  );
}
