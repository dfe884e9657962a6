/** What one URL of a network says about a brand's page there: the network's id, the name on it, or both. */
export interface BrandPageReading {
  id?: string;
  handle?: string;
}

/**
 * Reads one URL of the network: `host` is lower case without `www.`, `m.` or `mobile.`, `path` the
 * decoded path segments; undefined (or nothing read) when the URL is not a page of the network's.
 */
export type BrandPageReader = (host: string, path: string[], url: URL) => BrandPageReading | undefined;

/** A network's pages on a brand record (`<Field>URL`, `<Field>ID` and, where it has one, the name field). */
export interface BrandPages {
  /** The record field that holds the name on the page, after the network's field name: `TwitterScreenName`, `LastfmName`. */
  handle?: 'Name' | 'ScreenName' | 'Username';
  read: BrandPageReader;
}

/** Paths of a network that are pages of the network itself, not of an account. */
export const pathNames = (...names: string[]): ReadonlySet<string> => new Set(names);

export const digits = /^\d+$/;

/** A URL as typed by people: `twitter.com/x` without a scheme is read as https. */
export function toUrl(value: string): URL | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  try {
    return new URL(withScheme);
  } catch {
    return undefined;
  }
}

/** A path segment decoded, or as given when it is not valid percent-encoding. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
