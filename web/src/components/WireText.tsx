import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A wire message exactly as sent, made readable: control characters become visible symbols
 * (\r, \n, \t, \xNN otherwise, on a red background) and trailing spaces are marked, because those are
 * what a student's client usually gets wrong.
 */
export function WireText({ text }: { text: string }) {
  const { t } = useTranslation();
  const trimmed = text.replace(/[ ]+$/, '');
  const trailing = text.length - trimmed.length;
  const parts: ReactNode[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') parts.push(plain);
    plain = '';
  };
  for (const ch of trimmed) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) {
      flush();
      const shown =
        ch === '\r'
          ? '\\r'
          : ch === '\n'
            ? '\\n'
            : ch === '\t'
              ? '\\t'
              : `\\x${code.toString(16).padStart(2, '0')}`;
      parts.push(
        <span
          key={parts.length}
          className="ctrl"
          title={t('wire.control', { code: code.toString(16).padStart(2, '0') })}
        >
          {shown}
        </span>,
      );
    } else {
      plain += ch;
    }
  }
  flush();
  if (trailing > 0) {
    parts.push(
      <span key="trailing" className="trailing" title={t('wire.trailing', { count: trailing })}>
        {' '.repeat(trailing)}
      </span>,
    );
  }
  return <code className="wire-text">{parts}</code>;
}
