import { Trans, useTranslation } from 'react-i18next';
import { Command } from '../components/Command.js';
import { Marked } from '../components/Marked.js';
import { gameName } from '../format.js';
import { scenarioTexts } from '../i18n/apiTexts.js';
import { href } from '../router.js';
import { usePolling } from '../usePolling.js';
import type { CheckClientView } from '../../../src/web/check-client-api.js';

/**
 * "Test your client": how to run the check-client command against a student's client for one
 * game, and every scenario it plays with the rule it checks (docs/check-client.md).
 */
export function CheckClient({ game }: { game: string }) {
  const { t, i18n } = useTranslation();
  const view = usePolling<CheckClientView>(`/api/games/${encodeURIComponent(game)}/check-client`, null);
  const data = view.data;
  return (
    <section className="page" data-testid="check-client">
      <header className="page-header">
        <h1>{t('checkClient.title', { game: gameName(game, t) })}</h1>
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
              {t('checkClient.placeholders')} <code>{data.placeholders.map((p) => `{${p}}`).join(' ')}</code> ·{' '}
              {t(data.transport === 'udp' ? 'checkClient.udp' : 'checkClient.tcp')}
            </p>
            {data.ports !== null && (
              <p className="muted" data-testid="check-client-ports">
                <Trans i18nKey="checkClient.ports" values={{ range: data.ports }} components={{ code: <code /> }} />
              </p>
            )}
            {data.exampleArgs !== null && (
              <>
                <p>{t('checkClient.ours')}</p>
                <Command args={data.exampleArgs} testId="check-client-example" />
              </>
            )}
            <p>{t('checkClient.configFile')}</p>
            <Command args={data.configFileArgs} testId="check-client-config-file" />
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
                  {data.scenarios.map((scenario) => {
                    // German texts when the page is German (keyed by game and id), else the API's English.
                    const s = scenarioTexts(i18n.language, game, scenario);
                    return (
                      <tr key={scenario.id}>
                        <td>
                          <code>{scenario.id}</code>
                          <div className="muted">
                            <Marked text={s.title} marked={s.marked} />
                          </div>
                        </td>
                        <td>
                          <Marked text={s.rule} marked={s.marked} />{' '}
                          <span className="muted">
                            (<Marked text={s.section} marked={s.marked} />)
                          </span>
                        </td>
                        <td>
                          <Marked text={s.hint} marked={s.marked} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
