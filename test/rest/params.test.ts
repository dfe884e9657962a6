import { describe, expect, it } from 'vitest';
import { resolveWindow, sixMonths, oneWeek, threeMonths } from '../../src/filters/window.js';
import { PeriodUnit } from '../../src/filters/window.types.js';
import { AppError } from '../../src/core/errors.js';
import { Params } from '../../src/rest/params.js';

function failure(work: () => unknown): { code: string; param: string | null; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof AppError) return { code: error.extensions.code, param: error.extensions.param, message: error.message };
    throw error;
  }
  throw new Error('expected an error');
}

describe('parameter names', () => {
  it('match case-insensitively', () => {
    const params = Params.of({ ApiKey: 'k', BRANDID: '7' });
    expect(params.string('apikey')).toBe('k');
    expect(params.string('apiKey')).toBe('k');
    expect(params.int('brandID')).toBe(7);
  });

  it('treat an empty value as absent', () => {
    expect(Params.of({ segment: '  ' }).string('segment')).toBeUndefined();
  });
});

describe('booleans', () => {
  it.each([
    ['1', true],
    ['true', true],
    ['TRUE', true],
    ['0', false],
    ['false', false],
    ['yes', true],
    ['On', true],
    ['no', false],
    ['OFF', false],
  ])('%s is %s', (value, expected) => {
    expect(Params.of({ flag: value }).boolean('flag')).toBe(expected);
  });

  it('absent is off', () => {
    expect(Params.of({}).boolean('flag')).toBe(false);
  });

  it('anything else is an error naming the parameter', () => {
    expect(failure(() => Params.of({ details: 'maybe' }).boolean('details'))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'details' });
    expect(failure(() => Params.of({ details: 'y' }).boolean('details'))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'details' });
  });
});

describe('dates', () => {
  it.each([
    ['24-12-1990', '1990-12-24'],
    ['24/12/1990', '1990-12-24'],
    ['1990-12-24', '1990-12-24'],
    ['1/2/2001', '2001-02-01'],
  ])('%s is %s', (value, expected) => {
    expect(Params.of({ birthdate: value }).date('birthdate')).toBe(expected);
  });

  it.each(['31-02-1990', '12-24-1990', '24.12.1990', '24-12/1990', '1990/12/24', '90-12-24', 'yesterday'])('%s is an error naming the parameter', (value) => {
    expect(failure(() => Params.of({ birthdate: value }).date('birthdate'))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'birthdate' });
  });
});

describe('lists', () => {
  it('are trimmed, with empty items dropped', () => {
    expect(Params.of({ services: ' spotify, ,twitter ,' }).list('services')).toEqual(['spotify', 'twitter']);
  });

  it('are absent when nothing is left', () => {
    expect(Params.of({ services: ' , ' }).list('services')).toBeUndefined();
  });
});

describe('numbers', () => {
  it('reject non-integers', () => {
    expect(failure(() => Params.of({ brandid: '7x' }).int('brandID'))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'brandID' });
  });

  it('enforce bounds', () => {
    expect(failure(() => Params.of({ n: '0' }).int('n', { min: 1 }))).toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});

describe('limit', () => {
  it('defaults to 10 from 0', () => {
    expect(Params.of({}).limit()).toEqual({ offset: 0, limit: 10 });
  });

  it('reads n', () => {
    expect(Params.of({ limit: '25' }).limit()).toEqual({ offset: 0, limit: 25 });
  });

  it('reads offset,n', () => {
    expect(Params.of({ limit: '40, 20' }).limit()).toEqual({ offset: 40, limit: 20 });
  });

  it('is capped at 1000', () => {
    expect(Params.of({ limit: '5000' }).limit()).toEqual({ offset: 0, limit: 1000 });
  });

  it('refuses an offset beyond 100000, zero items and other forms', () => {
    expect(failure(() => Params.of({ limit: '100001,10' }).limit())).toMatchObject({ code: 'INVALID_PARAMETER', param: 'limit' });
    expect(failure(() => Params.of({ limit: '0' }).limit())).toMatchObject({ code: 'INVALID_PARAMETER', param: 'limit' });
    expect(failure(() => Params.of({ limit: 'ten' }).limit())).toMatchObject({ code: 'INVALID_PARAMETER', param: 'limit' });
    expect(failure(() => Params.of({ limit: '-5' }).limit())).toMatchObject({ code: 'INVALID_PARAMETER', param: 'limit' });
  });
});

describe('period', () => {
  it.each([
    ['1 Week', { amount: 1, unit: 'WEEK' }],
    ['3 months', { amount: 3, unit: 'MONTH' }],
    ['2 DAY', { amount: 2, unit: 'DAY' }],
    ['10days', { amount: 10, unit: 'DAY' }],
  ])('%s', (value, expected) => {
    expect(Params.of({ period: value }).period('period')).toEqual(expected);
  });

  it('refuses units the operation does not allow', () => {
    expect(failure(() => Params.of({ period: '4 hours' }).period('period'))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'period' });
    expect(Params.of({ period: '4 hours' }).period('period', ['HOUR', 'DAY', 'MONTH'])).toEqual({ amount: 4, unit: 'HOUR' });
    expect(failure(() => Params.of({ period: '1 Week' }).period('period', ['HOUR', 'DAY', 'MONTH']))).toMatchObject({ param: 'period' });
  });

  it('refuses zero and nonsense', () => {
    expect(failure(() => Params.of({ period: '0 Week' }).period('period'))).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(failure(() => Params.of({ period: 'Week' }).period('period'))).toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});

describe('timestamps', () => {
  it('read YYYY-MM-DD HH:MM:SS as UTC', () => {
    expect(Params.of({ start_date: '2026-03-01 12:30:00' }).timestamp('start_date')?.toISOString()).toBe('2026-03-01T12:30:00.000Z');
  });

  it('read a bare date as midnight', () => {
    expect(Params.of({ start_date: '2026-03-01' }).timestamp('start_date')?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('refuse impossible dates', () => {
    expect(failure(() => Params.of({ end_date: '2026-02-30 00:00:00' }).timestamp('end_date'))).toMatchObject({ param: 'end_date' });
    expect(failure(() => Params.of({ end_date: 'yesterday' }).timestamp('end_date'))).toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});

describe('time windows', () => {
  const now = new Date('2026-06-30T12:00:00Z');
  const rules = { defaultPeriod: oneWeek, maxPeriod: sixMonths };

  it('default to one week ending now', () => {
    const window = resolveWindow(undefined, rules, now);
    expect(window).toEqual({ start: new Date('2026-06-23T12:00:00Z'), end: now });
  });

  it('take the period before the end', () => {
    const window = resolveWindow({ period: { amount: 2, unit: PeriodUnit.DAY } }, rules, now);
    expect(window.start).toEqual(new Date('2026-06-28T12:00:00Z'));
  });

  it('end period_end before now', () => {
    const window = resolveWindow({ periodEnd: { amount: 1, unit: PeriodUnit.WEEK } }, rules, now);
    expect(window).toEqual({ start: new Date('2026-06-16T12:00:00Z'), end: new Date('2026-06-23T12:00:00Z') });
  });

  it('prefer explicit start and end', () => {
    const start = new Date('2026-06-01T00:00:00Z');
    const end = new Date('2026-06-10T00:00:00Z');
    expect(resolveWindow({ start, end, period: { amount: 1, unit: PeriodUnit.DAY } }, rules, now)).toEqual({ start, end });
  });

  it('clamp to six months, or three for member show', () => {
    const long = { period: { amount: 12, unit: PeriodUnit.MONTH } };
    expect(resolveWindow(long, rules, now).start).toEqual(new Date('2025-12-30T12:00:00Z'));
    expect(resolveWindow(long, { defaultPeriod: oneWeek, maxPeriod: threeMonths }, now).start).toEqual(new Date('2026-03-30T12:00:00Z'));
  });

  it('refuse a window that ends before it starts', () => {
    const start = new Date('2026-06-10T00:00:00Z');
    expect(failure(() => resolveWindow({ start, end: new Date('2026-06-01T00:00:00Z') }, rules, now))).toMatchObject({ param: 'start' });
  });
});
