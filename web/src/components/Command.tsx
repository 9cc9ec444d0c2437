import { Trans } from 'react-i18next';

/**
 * A `spielhalle` command to copy, in the form that runs in a checkout of this repository (`npm run
 * -s spielhalle -- …` builds the server first) and, beside it, the form for an installed package.
 */
export const checkoutCommand = (args: string): string => `npm run -s spielhalle -- ${args}`;
export const installedCommand = (args: string): string => `spielhalle ${args}`;

export function Command({ args, testId, className }: { args: string; testId: string; className?: string }) {
  return (
    <div className="command">
      <pre className={className} data-testid={testId}>
        {checkoutCommand(args)}
      </pre>
      <p className="muted command-note">
        <Trans
          i18nKey="command.installed"
          values={{ command: installedCommand(args) }}
          components={{ code: <code data-testid={`${testId}-installed`} /> }}
        />
      </p>
    </div>
  );
}
