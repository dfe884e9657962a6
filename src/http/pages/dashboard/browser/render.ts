// Turns one answer of the dashboard query into the page: figures, charts and the members table.
import { dayLabel, draw, integerAxis, palette } from '../../shared/browser/charts.js';
import type { DashboardData, TopMember } from './queries.js';

const number = new Intl.NumberFormat();

export function renderDashboard(data: DashboardData): void {
  renderFigures(data);
  renderActivity(data.brandStats.timeline);
  renderRegistrations(data.registrationStats.timeline.days);
  renderTopMembers(data.members.edges.map((edge) => edge.node));
  renderActivities(data.brandStats.activity.items);
  renderLocation(data.brandStats.location.countries);
  renderAge(data.brandStats.age);
  renderGender(data.brandStats.gender);
}

function setText(id: string, value: number): void {
  document.getElementById(id)!.textContent = number.format(value);
}

function renderFigures({ brandStats, registrationStats }: DashboardData): void {
  setText('figure-active', brandStats.members.activeMembers);
  setText('figure-members', brandStats.members.totalMembers);
  setText(
    'figure-records',
    brandStats.timeline.reduce((sum, line) => sum + line.totalCount, 0),
  );
  setText('figure-registrations', registrationStats.totals.registrations);
}

function renderActivity(timeline: DashboardData['brandStats']['timeline']): void {
  const days = timeline[0]?.days.map((day) => day.date) ?? [];
  draw('chart-activity', {
    type: 'line',
    data: {
      labels: days.map(dayLabel),
      datasets: timeline.map((line, index) => ({
        label: line.service ?? 'no network',
        data: line.days.map((day) => day.count),
        borderColor: palette[index % palette.length],
        backgroundColor: `${palette[index % palette.length]}33`,
        fill: timeline.length === 1,
        pointRadius: days.length > 40 ? 0 : 2,
        tension: 0.25,
      })),
    },
    options: { scales: { y: integerAxis, x: { ticks: { maxTicksLimit: 8 } } }, plugins: { legend: { position: 'bottom' } }, interaction: { mode: 'index', intersect: false } },
  });
  setEmpty(
    'chart-activity',
    timeline.every((line) => line.totalCount === 0),
  );
}

function renderRegistrations(days: { date: string; count: number }[]): void {
  draw('chart-registrations', {
    type: 'bar',
    data: { labels: days.map((day) => dayLabel(day.date)), datasets: [{ label: 'Registrations', data: days.map((day) => day.count), backgroundColor: palette[2] }] },
    options: { scales: { y: integerAxis, x: { ticks: { maxTicksLimit: 8 } } }, plugins: { legend: { display: false } } },
  });
  setEmpty(
    'chart-registrations',
    days.every((day) => day.count === 0),
  );
}

function renderLocation(countries: DashboardData['brandStats']['location']['countries']): void {
  const top = [...countries].sort((a, b) => b.members - a.members).slice(0, 10);
  draw('chart-location', {
    type: 'bar',
    data: {
      labels: top.map((row) => row.countryName ?? row.country),
      datasets: [{ label: 'Members', data: top.map((row) => row.members), backgroundColor: palette[0] }],
    },
    options: { indexAxis: 'y', scales: { x: integerAxis }, plugins: { legend: { display: false } } },
  });
  setEmpty('chart-location', top.length === 0);
}

function renderActivities(items: DashboardData['brandStats']['activity']['items']): void {
  draw('chart-activities', {
    type: 'bar',
    data: {
      labels: items.map((item) => item.activity ?? 'unknown'),
      datasets: [
        { label: 'Records', data: items.map((item) => item.count), backgroundColor: palette[0] },
        { label: 'Members', data: items.map((item) => item.distinctMembers), backgroundColor: palette[5] },
      ],
    },
    options: { indexAxis: 'y', scales: { x: integerAxis }, plugins: { legend: { position: 'bottom' } } },
  });
  setEmpty('chart-activities', items.length === 0);
}

function renderAge(buckets: { range: string; members: number }[]): void {
  draw('chart-age', {
    type: 'bar',
    data: { labels: buckets.map((bucket) => bucket.range), datasets: [{ label: 'Members', data: buckets.map((bucket) => bucket.members), backgroundColor: palette[4] }] },
    options: { scales: { y: integerAxis }, plugins: { legend: { display: false } } },
  });
  setEmpty(
    'chart-age',
    buckets.every((bucket) => bucket.members === 0),
  );
}

const genderNames: Record<string, string> = { F: 'Female', M: 'Male' };

function renderGender(counts: { gender: string; members: number }[]): void {
  draw('chart-gender', {
    type: 'doughnut',
    data: {
      labels: counts.map((row) => genderNames[row.gender] ?? row.gender),
      datasets: [{ data: counts.map((row) => row.members), backgroundColor: counts.map((_, index) => palette[index % palette.length]) }],
    },
    options: { plugins: { legend: { position: 'bottom' } } },
  });
  setEmpty(
    'chart-gender',
    counts.every((row) => row.members === 0),
  );
}

/** A chart with nothing to show says so instead of drawing empty axes. */
function setEmpty(canvasId: string, empty: boolean): void {
  document.getElementById(canvasId)!.closest('.card')!.classList.toggle('is-empty', empty);
}

function renderTopMembers(members: TopMember[]): void {
  const body = document.getElementById('top-members')!;
  body.replaceChildren(
    ...members.map((member, index) => {
      const row = document.createElement('tr');
      const cells = [String(index + 1), nameOf(member), member.country ?? '', number.format(member.score.points), number.format(member.score.activityCount)];
      for (const [column, text] of cells.entries()) {
        const cell = document.createElement('td');
        cell.textContent = text;
        if (column !== 1 && column !== 2) cell.className = 'numeric';
        row.append(cell);
      }
      return row;
    }),
  );
  body.closest('.card')!.classList.toggle('is-empty', members.length === 0);
}

function nameOf(member: TopMember): string {
  const full = [member.firstName, member.surname].filter(Boolean).join(' ');
  return full || member.username || `Member ${member.id}`;
}
