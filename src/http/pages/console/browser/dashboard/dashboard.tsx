import { useEffect } from 'react';
import { clearCharts, dayLabel, draw, integerAxis, palette } from '../../../shared/browser/charts.js';
import { StatsDocument, type StatsQuery } from '../generated/graphql.js';
import { Loading, Table, number } from '../ui.js';
import { useQuery } from '../use-query.js';

type Stats = StatsQuery['stats'];

function drawCharts(stats: Stats) {
  const line = (id: string, label: string, points: Stats['activityPerDay'], color: string) =>
    draw(id, {
      type: 'line',
      data: {
        labels: points.map((point) => dayLabel(point.date)),
        datasets: [{ label, data: points.map((point) => point.count), borderColor: color, backgroundColor: `${color}33`, fill: true, pointRadius: 0, tension: 0.25 }],
      },
      options: { plugins: { legend: { display: false } }, scales: { y: integerAxis } },
    });
  const bars = (id: string, label: string, items: Stats['byActivity']) =>
    draw(id, {
      type: 'bar',
      data: { labels: items.map((item) => item.name), datasets: [{ label, data: items.map((item) => item.count), backgroundColor: palette }] },
      options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: integerAxis } },
    });
  line('console-chart-activity', 'Records', stats.activityPerDay, palette[0]);
  line('console-chart-registrations', 'Registrations', stats.registrationsPerDay, palette[1]);
  bars('console-chart-activities', 'Records', stats.byActivity);
  bars('console-chart-countries', 'Active fans', stats.byCountry.slice(0, 10));
}

function Chart({ id, title, rows, unit }: { id: string; title: string; rows: { label: string; count: number }[]; unit: string }) {
  return (
    <article className="card chart-card">
      <h2>{title}</h2>
      <div className="chart">
        <canvas id={id} role="img" aria-label={`${title} (chart; the table below holds the same figures)`} />
      </div>
      <details>
        <summary>Figures of “{title}”</summary>
        <Table
          caption={title}
          rows={rows}
          rowKey={(row) => row.label}
          empty="Nothing yet."
          columns={[
            { label: 'Of', cell: (row) => row.label },
            { label: unit, cell: (row) => number(row.count), numeric: true },
          ]}
        />
      </details>
    </article>
  );
}

/** The dashboard's figures and charts for the whole account, from the console's `stats` query. */
export function DashboardPage() {
  const answer = useQuery(StatsDocument, {});
  const stats = answer.data?.stats;
  useEffect(() => {
    if (stats) drawCharts(stats);
    return clearCharts;
  }, [stats]);

  if (answer.error)
    return (
      <>
        <h1>Dashboard</h1>
        <p className="error" role="alert">
          {answer.error.message}
        </p>
      </>
    );
  if (!stats) return <Loading what="the dashboard" />;
  const days = (points: Stats['activityPerDay']) => points.map((point) => ({ label: point.date, count: point.count }));
  const named = (items: Stats['byActivity']) => items.map((item) => ({ label: item.name, count: item.count }));
  return (
    <>
      <h1>Dashboard</h1>
      <div className="figures">
        {[
          ['Fans', stats.fans],
          ['Active fans (30 days)', stats.activeFans],
          ['Records', stats.records],
          ['Registrations', stats.registrations],
        ].map(([label, value]) => (
          <div className="figure" key={label}>
            <span className="figure-value">{number(value as number)}</span>
            <span className="figure-label">{label}</span>
          </div>
        ))}
      </div>
      <div className="grid">
        <Chart id="console-chart-activity" title="Activity per day" rows={days(stats.activityPerDay)} unit="Records" />
        <Chart id="console-chart-registrations" title="Registrations per day" rows={days(stats.registrationsPerDay)} unit="Registrations" />
        <Chart id="console-chart-activities" title="Records by activity" rows={named(stats.byActivity)} unit="Records" />
        <Chart id="console-chart-countries" title="Active fans by country" rows={named(stats.byCountry)} unit="Fans" />
      </div>
    </>
  );
}
