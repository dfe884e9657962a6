import { createRequire } from 'node:module';
import countries, { type LocaleData } from 'i18n-iso-countries';
import type { ResolvedWindow } from '../../filters/window.js';
import { bucketStarts, formatDay } from '../../lib/time.js';
import type { CountryCount, DayCount, ServiceTimeline, TimelineDay } from './stats.types.js';

// The English names of ISO 3166-1 from a maintained data package; loaded once.
countries.registerLocale(createRequire(import.meta.url)('i18n-iso-countries/langs/en.json') as LocaleData);

export function countryName(code: string): string | null {
  return countries.getName(code, 'en') ?? null;
}

/** Every UTC day the window touches, first to last. */
export function daysOf(window: ResolvedWindow): string[] {
  return bucketStarts(window.start, window.end, 'day').map(formatDay);
}

function dayOfYear(day: string): number {
  const date = new Date(`${day}T00:00:00Z`);
  return Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

interface GroupedRow {
  day: string | null;
  count: number;
  distinctMembers: number;
}

/** Rows grouped by day plus one total row (day null) → every day of the window, zeros included, and the totals. */
export function fillDays(window: ResolvedWindow, rows: readonly GroupedRow[]): { days: DayCount[]; totalCount: number; totalMembers: number } {
  const byDay = new Map(rows.filter((row) => row.day !== null).map((row) => [row.day!, row]));
  const totals = rows.find((row) => row.day === null);
  return {
    days: daysOf(window).map((date) => ({ date, count: byDay.get(date)?.count ?? 0, distinctMembers: byDay.get(date)?.distinctMembers ?? 0 })),
    totalCount: totals?.count ?? 0,
    totalMembers: totals?.distinctMembers ?? 0,
  };
}

/** Per-network rows (per day, and per network over the window) → one timeline per network. */
export function serviceTimelines(window: ResolvedWindow, rows: readonly (GroupedRow & { service: string | null })[]): ServiceTimeline[] {
  const services = [...new Set(rows.map((row) => row.service))].sort((a, b) => (a ?? '').localeCompare(b ?? ''));
  return services.map((service) => {
    const filled = fillDays(
      window,
      rows.filter((row) => row.service === service),
    );
    const days: TimelineDay[] = filled.days.map((day) => ({ ...day, dayOfYear: dayOfYear(day.date) }));
    return { service, days, totalCount: filled.totalCount, totalMembers: filled.totalMembers };
  });
}

export function countryCounts(rows: readonly { country: string | null; isTotal: boolean; actions: number; members: number }[]) {
  const total = rows.find((row) => row.isTotal);
  const byCountry: CountryCount[] = rows
    .filter((row): row is typeof row & { country: string } => !row.isTotal && row.country !== null)
    .map((row) => ({ country: row.country, countryName: countryName(row.country), actions: row.actions, members: row.members }))
    .sort((a, b) => b.actions - a.actions || b.members - a.members || a.country.localeCompare(b.country));
  return { totalActivities: total?.actions ?? 0, totalMembers: total?.members ?? 0, countries: byCountry };
}
