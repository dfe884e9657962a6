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

/** A name for a fan: first and last name, or their email, or their member id. */
export function fanName(fan: { id: string; email?: string | null; firstName?: string | null; lastName?: string | null }): string {
  const name = [fan.firstName, fan.lastName].filter(Boolean).join(' ').trim();
  return name || fan.email || `Fan ${fan.id}`;
}
