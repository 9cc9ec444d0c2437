import { useTranslation } from 'react-i18next';
import { Command } from '../components/Command.js';
import { href } from '../router.js';
import { usePolling } from '../usePolling.js';
import type { CheckClientView } from '../../../src/web/check-client-api.js';

/**
 * "Test your client": how to run the check-client command against a student's client for one
 * game, and every scenario it plays with the rule it checks (docs/check-client.md).
 */
export function CheckClient({ game }: { game: string }) {
  const { t } = useTranslation();
  const view = usePolling<CheckClientView>(`/api/games/${encodeURIComponent(game)}/check-client`, null);
  const data = view.data;
  return (
    <section className="page" data-testid="check-client">
      <header className="page-header">
        <h1>{t('checkClient.title', { game })}</h1>
      </header>
      <p>
        <a href={href.live(game)}>← {t('checkClient.back')}</a>
      </p>
      {data === null ? (
        view.error !== null ? (
          <p className="error" role="alert">
            {view.error}
          </p>
        ) : (
          <p className="muted">{t('common.loading')}</p>
        )
      ) : (
        <>
          <div className="panel">
            <p>{t('checkClient.intro')}</p>
            <Command args={data.usageArgs} testId="check-client-usage" />
            <p className="muted">
              {t('checkClient.placeholders')} {data.placeholders.map((p) => `{${p}}`).join(' ')} ·{' '}
              {t(data.transport === 'udp' ? 'checkClient.udp' : 'checkClient.tcp')}
            </p>
            {data.example !== null && (
              <>
                <p>{t('checkClient.ours')}</p>
                <pre data-testid="check-client-example">{data.example}</pre>
              </>
            )}
            <p className="muted">{t('checkClient.more', { docs: data.docs })}</p>
          </div>
          <div className="panel">
            <h2>{t('checkClient.scenarios', { count: data.scenarios.length })}</h2>
            <div className="check-client-table-wrap">
              <table className="table" data-testid="check-client-scenarios">
                <thead>
                  <tr>
                    <th>{t('checkClient.scenario')}</th>
                    <th>{t('checkClient.rule')}</th>
                    <th>{t('checkClient.hint')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.scenarios.map((s) => (
                    <tr key={s.id}>
                      <td>
                        <code>{s.id}</code>
                        <div className="muted">{s.title}</div>
                      </td>
                      <td>
                        {s.rule} <span className="muted">({s.section})</span>
                      </td>
                      <td>{s.hint}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
