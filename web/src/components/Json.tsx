import { compactJson } from '../format.js';

/** A JSON value on one line, with the full value in the tooltip. */
export function CompactJson({ value, max = 120 }: { value: unknown; max?: number }) {
  const full = compactJson(value, Number.MAX_SAFE_INTEGER);
  return (
    <code className="json" title={full}>
      {compactJson(value, max)}
    </code>
  );
}

export function PrettyJson({ value }: { value: unknown }) {
  return <pre className="json-block">{JSON.stringify(value, null, 2)}</pre>;
}
