/**
 * A text whose `backticked` parts are protocol words: they are shown as sent, in code. Without
 * `marked`, the text is shown as it is (an English text from the API marks nothing).
 */
export function Marked({ text, marked = true }: { text: string; marked?: boolean }) {
  if (!marked) return <>{text}</>;
  const parts = text.split('`');
  // An odd count of backticks leaves the last part plain rather than swallowing the rest.
  return (
    <>
      {parts.map((part, i) => (i % 2 === 1 && i < parts.length - 1 ? <code key={i}>{part}</code> : part))}
    </>
  );
}
