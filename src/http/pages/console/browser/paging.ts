import { useSearchParams } from 'wouter';

/**
 * Cursor paging kept in the URL: `page` holds the cursors walked so far (comma-separated), so
 * "Previous", the browser's Back and a bookmark all land on the same page.
 */
export function useCursorTrail(param = 'page') {
  const [params, setParams] = useSearchParams();
  const trail = (params.get(param) ?? '').split(',').filter(Boolean);
  const move = (next: string[]) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next.length) copy.set(param, next.join(','));
      else copy.delete(param);
      return copy;
    });
  return {
    after: trail.at(-1),
    hasPrevious: trail.length > 0,
    next: (cursor: string | null | undefined) => cursor && move([...trail, cursor]),
    previous: () => move(trail.slice(0, -1)),
  };
}

/** A fan's name as the server gives it (first name and surname, or username, or email), or their member id. */
export function fanName(fan: { id: string; displayName?: string | null }): string {
  return fan.displayName || `Fan ${fan.id}`;
}
