import { useEffect } from 'react';
import { useSearchParams } from 'wouter';
import { clearCharts, dayLabel, draw, integerAxis, palette } from '../../../shared/browser/charts.js';
import { StatsDocument, type StatsQuery } from '../generated/graphql.js';
import { Loading, Table, number } from '../ui.js';
import { useQuery } from '../use-query.js';

type Stats = StatsQuery['stats'];

/** The windows the dashboard offers, in days (the server takes 1 to 92). */
const windows = [
  { days: 7, label: '1 week' },
  { days: 30, label: '30 days' },
  { days: 92, label: '3 months' },
];

function drawCharts(stats: Stats) {
  const labels = stats.days.map((day) => dayLabel(day.date));
  const line = (id: string, label: string, data: number[], color: string) =>
    draw(id, {
      type: 'line',
      data: { labels, datasets: [{ label, data, borderColor: color, backgroundColor: `${color}33`, fill: true, pointRadius: 0, tension: 0.25 }] },
      options: { plugins: { legend: { display: false } }, scales: { y: integerAxis } },
    });
  line(
    'console-chart-records',
    'Records',
    stats.days.map((day) => day.count),
    palette[0],
  );
  line(
    'console-chart-active',
    'Active fans',
    stats.days.map((day) => day.distinctMembers),
    palette[1],
  );
}

function Chart({ id, title, rows, unit }: { id: string; title: string; rows: { label: string; count: number }[]; unit: string }) {
  return (
    <article className="card chart-card">
      <h2>{title}</h2>
      <div className="chart">
        <canvas id={id} role="img" aria-label={`${title} (a chart; its figures are in the table below it)`} />
      </div>
      <details>
        <summary>Figures of “{title}”</summary>
        <Table
          caption={title}
          rows={rows}
          rowKey={(row) => row.label}
          empty="Nothing yet."
          columns={[
            { label: 'Day', cell: (row) => row.label },
            { label: unit, cell: (row) => number(row.count), numeric: true },
          ]}
        />
      </details>
    </article>
  );
}

/** The account's figures and charts over a window kept in the URL (`?days=`), from the console's `stats` query. */
export function DashboardPage() {
  const [params, setParams] = useSearchParams();
  const days = windows.find((window) => String(window.days) === params.get('days'))?.days ?? 30;
  const answer = useQuery(StatsDocument, { days });
  const stats = answer.data?.stats;
  useEffect(() => {
    if (stats) drawCharts(stats);
    return clearCharts;
  }, [stats]);

  const picker = (
    <div className="window-picker" role="group" aria-label="Window">
      {windows.map((window) => (
        <button key={window.days} type="button" aria-pressed={window.days === days} onClick={() => setParams({ days: String(window.days) })}>
          {window.label}
        </button>
      ))}
    </div>
  );
  if (answer.error)
    return (
      <>
        <h1>Dashboard</h1>
        <p className="error" role="alert">
          {answer.error.message}
        </p>
      </>
    );
  return (
    <>
      <h1>Dashboard</h1>
      {picker}
      {!stats ? (
        <Loading what="the dashboard" />
      ) : (
        <>
          <div className="figures">
            {[
              ['Active fans', stats.activeMembers],
              ['Records', stats.records],
              ['Registrations', stats.registrations],
              ['Sign-ins', stats.logins],
              ['Fans who signed in', stats.signedInMembers],
            ].map(([label, value]) => (
              <div className="figure" key={label}>
                <span className="figure-value">{number(value as number)}</span>
                <span className="figure-label">{label}</span>
              </div>
            ))}
          </div>
          <div className="grid">
            <Chart id="console-chart-records" title="Records per day" rows={stats.days.map((day) => ({ label: day.date, count: day.count }))} unit="Records" />
            <Chart id="console-chart-active" title="Active fans per day" rows={stats.days.map((day) => ({ label: day.date, count: day.distinctMembers }))} unit="Fans" />
          </div>
        </>
      )}
    </>
  );
}
