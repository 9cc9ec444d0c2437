import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError, postJson } from '../api.js';
import { usePolling } from '../usePolling.js';
import type { ProgramRegistering } from '../../../src/web/programs-api.js';

/**
 * Beside the tournament form's entrants: why no registered program can be chosen (none is
 * registered for this game on this server: the settings key and an example), and, where the server
 * has an admin token, a small form for staff to register one (name, command, working directory).
 * The server checks it like the settings and answers 401/403 without the token.
 */

const EXAMPLE_COMMAND: Readonly<Record<string, string>> = {
  dame: 'java -jar client.jar -h {host} -p {port} -g {gameId} -p {player}',
  ostseeschach: 'java -jar client.jar -h {host} -p {port} -r {reservation}',
  catan: 'java -jar client.jar {host} {port} {name}',
  mia: 'python3 mia.py {host} {port} {name}',
  connect4: 'python3 peer.py {port} {invite}',
};

export function ProgramsNote({ game, count, onRegistered }: { game: string; count: number; onRegistered: () => void }) {
  const registering = usePolling<ProgramRegistering>('/api/tournaments/programs/registering', null);
  const example = JSON.stringify({
    name: 'anna',
    game,
    command: EXAMPLE_COMMAND[game] ?? 'client {host} {port}',
    cwd: '/srv/abgaben/anna',
  });
  return (
    <div className="muted small" data-testid="programs-note" data-count={count}>
      {count === 0 && (
        <p data-testid="programs-why">
          <Trans
            i18nKey="tournaments.programsWhy"
            values={{ setting: 'tournaments.programs' }}
            components={{ code: <code /> }}
          />{' '}
          <code className="mono" data-testid="programs-example">
            {example}
          </code>
        </p>
      )}
      {registering.data?.open === true && <RegisterForm game={game} onRegistered={onRegistered} />}
    </div>
  );
}

function RegisterForm({ game, onRegistered }: { game: string; onRegistered: () => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const submit = async () => {
    setProblems([]);
    setDone(null);
    try {
      const body = { name: name.trim(), game, command: command.trim(), ...(cwd.trim() === '' ? {} : { cwd: cwd.trim() }) };
      const answer = await postJson<{ name: string }>('/api/tournaments/programs', body);
      setDone(answer.name);
      setName('');
      setCommand('');
      setCwd('');
      onRegistered();
    } catch (err) {
      const body = err instanceof ApiError ? err.body : null;
      if (body && typeof body === 'object' && 'errors' in body && Array.isArray(body.errors))
        setProblems((body.errors as { line: string }[]).map((e) => e.line));
      else setProblems([err instanceof Error ? err.message : String(err)]);
    }
  };
  return (
    <details data-testid="program-register">
      <summary>{t('tournaments.registerProgram')}</summary>
      <p>{t('tournaments.registerProgramNote')}</p>
      <div className="form-grid">
        <label>
          {t('tournaments.entrantName')}
          <input value={name} maxLength={32} data-testid="program-name" onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          {t('tournaments.programCommand')}
          <input
            className="mono"
            value={command}
            placeholder={EXAMPLE_COMMAND[game]}
            data-testid="program-command"
            onChange={(e) => setCommand(e.target.value)}
          />
        </label>
        <label>
          {t('tournaments.programCwd')}
          <input className="mono" value={cwd} placeholder="/srv/abgaben/anna" data-testid="program-cwd" onChange={(e) => setCwd(e.target.value)} />
        </label>
      </div>
      <button type="button" data-testid="program-register-send" disabled={name.trim() === '' || command.trim() === ''} onClick={() => void submit()}>
        {t('tournaments.registerProgramSend')}
      </button>
      {done !== null && (
        <p data-testid="program-registered">{t('tournaments.programRegistered', { name: done })}</p>
      )}
      {problems.length > 0 && (
        <ul className="error-lines" role="alert" data-testid="program-errors">
          {problems.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
