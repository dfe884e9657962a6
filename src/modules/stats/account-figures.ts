import type { Executor } from '../../db/client.js';
import { compileFilter } from '../../filters/compile.js';
import { resolveWindow, type ResolvedWindow } from '../../filters/window.js';
import { invalidParameter } from '../../core/errors.js';
import { PeriodUnit } from '../../filters/window.types.js';
import { eventTotals } from './registrations.queries.js';
import { activeMemberCount, dailyActivity } from './stats.queries.js';
import { fillDays } from './stats.service.js';
import type { DayCount } from './stats.types.js';

/** The longest window the console's dashboard figures cover, in days. */
export const maxFigureDays = 92;

export interface AccountFigures {
  window: ResolvedWindow;
  registrations: number;
  logins: number;
  /** Distinct members who registered or signed in in the window. */
  signedInMembers: number;
  /** Distinct members with counted activity in the window. */
  activeMembers: number;
  /** Records in the window, and distinct members behind them. */
  records: number;
  /** Records and distinct members per UTC day, every day of the window (zeros included). */
  days: DayCount[];
}

/**
 * The whole account's figures over the last `days` days, as the dashboard's brand reports read
 * them (the same statements over the rollups): sign-ups and sign-ins, active members, records per day.
 */
export async function accountFigures(db: Executor, accountId: number, days: number, now = new Date()): Promise<AccountFigures> {
  if (!Number.isInteger(days) || days < 1 || days > maxFigureDays) throw invalidParameter('days', `from 1 to ${maxFigureDays}`);
  const window = resolveWindow({ period: { amount: days, unit: PeriodUnit.DAY } }, { defaultPeriod: { amount: 7, unit: 'DAY' }, maxPeriod: { amount: maxFigureDays, unit: 'DAY' } }, now);
  const filter = await compileFilter(db, accountId, undefined, window);
  const [events, active, daily] = await Promise.all([eventTotals(db, accountId, window), activeMemberCount(db, filter, window), dailyActivity(db, filter, window)]);
  const filled = fillDays(window, daily);
  return { window, registrations: events.registrations, logins: events.logins, signedInMembers: events.members, activeMembers: active, records: filled.totalCount, days: filled.days };
}
