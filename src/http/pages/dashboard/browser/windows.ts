/** The standard windows (docs/statistics.md): the ones the gateway keeps totals for, ending now. */
export interface StandardWindow {
  id: string;
  label: string;
  period: { amount: number; unit: 'DAY' | 'WEEK' | 'MONTH' };
}

export const standardWindows: StandardWindow[] = [
  { id: '1d', label: '1 day', period: { amount: 1, unit: 'DAY' } },
  { id: '1w', label: '1 week', period: { amount: 1, unit: 'WEEK' } },
  { id: '1m', label: '1 month', period: { amount: 1, unit: 'MONTH' } },
  { id: '3m', label: '3 months', period: { amount: 3, unit: 'MONTH' } },
  { id: '6m', label: '6 months', period: { amount: 6, unit: 'MONTH' } },
];

export const defaultWindow = standardWindows[2];

export function windowById(id: string | null): StandardWindow {
  return standardWindows.find((window) => window.id === id) ?? defaultWindow;
}
