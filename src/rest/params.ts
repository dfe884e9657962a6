import type { FastifyRequest } from 'fastify';
import type { Period } from '../filters/window.js';
import { invalidParameter, missingParameter } from '../core/errors.js';
import { parseTimestamp, type PeriodUnitName } from '../lib/time.js';
import { listTooLong, maxListItems } from '../core/list-limits.js';

/** C0 controls except tab, line feed and carriage return, which free text (a bio, say) may hold. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const controlCharacters = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/**
 * The parameters of one REST call, by the interface's rules: they come from the query string, a
 * form body or a JSON body (the query string wins on a clash); names match case-insensitively;
 * unknown names are ignored (a route may read them with `others`: brand custom fields). Each reader
 * reports the parameter by the name the caller knows.
 */
export class Params {
  private constructor(
    private readonly values: Map<string, string>,
    /** Each name as the caller spelled it, by its lower-case form. */
    private readonly sentNames: Map<string, string> = new Map([...values.keys()].map((name) => [name, name])),
  ) {}

  static fromRequest(request: FastifyRequest): Params {
    const values = new Map<string, string>();
    const sentNames = new Map<string, string>();
    const absorb = (source: unknown) => {
      if (!source || typeof source !== 'object' || Array.isArray(source)) return;
      for (const [name, raw] of Object.entries(source as Record<string, unknown>)) {
        const value = scalarText(raw);
        if (value === undefined) continue;
        values.set(name.toLowerCase(), value);
        sentNames.set(name.toLowerCase(), name);
      }
    };
    absorb(request.body);
    absorb(request.query);
    return new Params(values, sentNames);
  }

  static of(record: Record<string, string>): Params {
    const entries = Object.entries(record);
    return new Params(new Map(entries.map(([name, value]) => [name.toLowerCase(), value])), new Map(entries.map(([name]) => [name.toLowerCase(), name])));
  }

  /**
   * The parameters sent whose names are not among `known` (lower case), by the names as sent,
   * with their trimmed values: for a route that takes named fields of its own (a brand's custom
   * fields) rather than ignoring what it does not know.
   */
  others(known: ReadonlySet<string>): Record<string, string> {
    const found: Record<string, string> = {};
    for (const [name, sent] of this.sentNames) {
      if (known.has(name)) continue;
      const value = this.string(name);
      if (value !== undefined) found[sent] = value;
    }
    return found;
  }

  /** The trimmed value, or undefined when absent or empty. */
  string(name: string): string | undefined {
    const value = this.values.get(name.toLowerCase())?.trim();
    // PostgreSQL text cannot hold NUL, and no parameter of the interface has a use for control characters.
    if (value && controlCharacters.test(value)) throw invalidParameter(name, 'control characters (such as NUL) are not allowed');
    return value === '' ? undefined : value;
  }

  /**
   * The trimmed value, at most `max` characters: for a value that is stored in an index, where a
   * longer one would be refused by the database (a btree row holds about 2.7 KB) as an internal error.
   */
  boundedString(name: string, max: number): string | undefined {
    const value = this.string(name);
    if (value !== undefined && value.length > max) throw invalidParameter(name, `at most ${max} characters`);
    return value;
  }

  /**
   * The value exactly as sent, or undefined when absent or empty: for a password, which is never
   * trimmed (spaces are characters of it, as GraphQL takes it) and never stored, only hashed.
   */
  verbatim(name: string): string | undefined {
    const value = this.values.get(name.toLowerCase());
    return value === '' ? undefined : value;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw missingParameter(name);
    return value;
  }

  /** `1`/`true`/`yes`/`on` on; `0`/`false`/`no`/`off`/absent off (any case); anything else is an error, not a silent off. */
  boolean(name: string): boolean {
    const value = this.string(name)?.toLowerCase();
    if (value === undefined || falseWords.has(value)) return false;
    if (trueWords.has(value)) return true;
    throw invalidParameter(name, 'expected 1 or 0 (true/false, yes/no and on/off are read too)');
  }

  int(name: string, { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {}): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^-?\d+$/.test(value)) throw invalidParameter(name, 'expected a whole number');
    const number = Number(value);
    if (number < min || number > max) throw invalidParameter(name, `expected a number from ${min} to ${max}`);
    return number;
  }

  /** A comma list, trimmed, empty items dropped, at most `maxListItems` (core/list-limits.ts) of them; undefined when absent. */
  list(name: string): string[] | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    if (items.length > maxListItems) throw listTooLong(name, items.length);
    return items.length ? items : undefined;
  }

  /**
   * A calendar date as ISO `YYYY-MM-DD`, written day first with dashes or slashes (`dd-mm-yyyy`,
   * `dd/mm/yyyy`: register and update document one each, and callers mix them up) or year first
   * (`yyyy-mm-dd`). A four-digit first part means year first, so the two orders cannot be confused.
   */
  date(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const dayFirst = /^(\d{1,2})([-/])(\d{1,2})\2(\d{4})$/.exec(value);
    const yearFirst = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
    const parts = dayFirst ? [dayFirst[4], dayFirst[3], dayFirst[1]] : yearFirst ? [yearFirst[1], yearFirst[2], yearFirst[3]] : undefined;
    const iso = parts && `${parts[0]}-${parts[1].padStart(2, '0')}-${parts[2].padStart(2, '0')}`;
    const date = iso ? parseTimestamp(iso) : undefined; // undefined for 31-02 and other impossible dates
    if (!date) {
      throw invalidParameter(name, 'expected a date as dd-mm-yyyy, dd/mm/yyyy or yyyy-mm-dd');
    }
    return iso;
  }

  /** One of the given values, matched case-insensitively, returned as listed. */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const match = values.find((candidate) => candidate.toLowerCase() === value.toLowerCase());
    if (!match) throw invalidParameter(name, `expected one of ${values.join(', ')}`);
    return match;
  }

  /** `YYYY-MM-DD HH:MM:SS` in UTC (the date alone is midnight). */
  timestamp(name: string): Date | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const date = parseTimestamp(value);
    if (!date) throw invalidParameter(name, "expected a time as 'YYYY-MM-DD HH:MM:SS' (UTC)");
    return date;
  }

  /** `'<n> <unit>'`, unit case-insensitive and optionally plural, among the units the operation allows. */
  period(name: string, units: readonly PeriodUnitName[] = ['DAY', 'WEEK', 'MONTH']): Period | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const match = /^(\d{1,5})\s*([a-z]+?)s?$/i.exec(value);
    const unit = match?.[2].toUpperCase() as PeriodUnitName | undefined;
    const amount = match ? Number(match[1]) : 0;
    if (!unit || !units.includes(unit) || amount < 1) {
      const names = units.map((u) => u[0] + u.slice(1).toLowerCase()).join(', ');
      throw invalidParameter(name, `expected a number followed by one of ${names}, such as '2 ${names.split(', ')[0]}'`);
    }
    return { amount, unit };
  }

  /** A JSON object written as text (`custom={"tier":"gold"}`); anything else is an error. */
  jsonObject(name: string): Record<string, unknown> | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidParameter(name, 'expected a JSON object');
    return parsed as Record<string, unknown>;
  }

  /** `limit=n` or `limit=offset,n`: default 10, at most 1000 items, offset at most 100000. */
  limit(name = 'limit', defaults = { limit: 10, max: 1000 }): { offset: number; limit: number } {
    const value = this.string(name);
    if (value === undefined) return { offset: 0, limit: defaults.limit };
    const match = /^(?:(\d+)\s*,\s*)?(\d+)$/.exec(value);
    if (!match) throw invalidParameter(name, "expected 'n' or 'offset,n' with whole numbers");
    const offset = Number(match[1] ?? 0);
    const limit = Number(match[2]);
    if (limit < 1) throw invalidParameter(name, 'expected at least 1 item');
    if (offset > 100_000) throw invalidParameter(name, 'the offset is at most 100000');
    return { offset, limit: Math.min(limit, defaults.max) };
  }
}

const trueWords = new Set(['1', 'true', 'yes', 'on']);
const falseWords = new Set(['0', 'false', 'no', 'off']);

function scalarText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  // A name repeated in the query string arrives as an array: read it as one comma list.
  if (Array.isArray(raw))
    return raw
      .map(scalarText)
      .filter((item) => item !== undefined)
      .join(',');
  return undefined;
}
