import { Command } from '../../components/Command.js';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A game id in monospace with a copy button (the id is what a student types into their client). */
export function GameId({ id, testId }: { id: string; testId?: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = () => {
    // No clipboard outside a secure context (a dashboard reached over plain http on a LAN address).
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setCopied('failed');
      return;
    }
    clipboard.writeText(id).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
    window.setTimeout(() => setCopied(null), 1500);
  };
  return (
    <span className="dame-id">
      <code data-testid={testId}>{id}</code>{' '}
      <button type="button" className="dame-copy" onClick={copy} title={t('dame.gameIdBox.copyTitle')} data-testid={`dame-copy-${id}`}>
        {copied === 'yes' ? t('dame.gameIdBox.copied') : copied === 'failed' ? t('dame.gameIdBox.selectIt') : t('dame.gameIdBox.copy')}
      </button>
    </span>
  );
}

const DEFAULT_PORT = 1357;
const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]', '']);

/** What a student runs to take `seat` (0 = White) of game `id`: our bot (its `spielhalle` arguments), and the course's C client. */
export function clientCommands(id: string, seat: 0 | 1, port: number): { ours: string; course: string; where: string } {
  const host = window.location.hostname;
  const hostFlag = LOCAL.has(host) ? '' : ` --host ${host}`;
  const portFlag = port === DEFAULT_PORT ? '' : ` --port ${port}`;
  return {
    ours: `bot dame -g ${id} -p ${seat + 1}${hostFlag}${portFlag}`,
    course: `./sysprak-client -g ${id} -p ${seat + 1}`,
    where: `${LOCAL.has(host) ? '127.0.0.1' : host}:${port}`,
  };
}

/** The commands for the free seats of a game, one block per seat. */
export function JoinCommands({ id, seats, port }: { id: string; seats: readonly (0 | 1)[]; port: number }) {
  const { t } = useTranslation();
  return (
    <div className="dame-commands" data-testid="dame-join-commands">
      {seats.map((seat) => {
        const c = clientCommands(id, seat, port);
        return (
          <div key={seat}>
            <p className="muted">
              {seat === 0 ? t('dame.gameIdBox.white') : t('dame.gameIdBox.black')}:
            </p>
            <Command args={c.ours} className="dame-command" testId={`dame-command-${seat}`} />
            <pre className="dame-command dame-command-course" data-testid={`dame-course-command-${seat}`}>
              {c.course}
              {'   '}# {t('dame.gameIdBox.course', { where: c.where })}
            </pre>
          </div>
        );
      })}
    </div>
  );
}
