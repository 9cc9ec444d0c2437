import { useEffect, useRef } from 'react';

/**
 * Scrolls the element to the top of the window once, when `ready` first turns true: a replay or
 * record opened from a list below it starts at its board, not where the list left the reader.
 */
export function useScrollIntoView<E extends Element>(ready: boolean) {
  const ref = useRef<E>(null);
  const done = useRef(false);
  useEffect(() => {
    if (!ready || done.current || !ref.current) return;
    done.current = true;
    ref.current.scrollIntoView({ block: 'start' });
  }, [ready]);
  return ref;
}
