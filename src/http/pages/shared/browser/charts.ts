// Chart.js with only the parts the dashboard and the console draw (tree-shaken by the bundler).
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';

Chart.register(ArcElement, BarController, BarElement, CategoryScale, DoughnutController, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip);
Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
Chart.defaults.color = '#475569';
Chart.defaults.maintainAspectRatio = false;
// Charts are redrawn on every window change; the animation only delays what the reader came for.
Chart.defaults.animation = false;

export const palette = ['#2563eb', '#db2777', '#16a34a', '#ea580c', '#7c3aed', '#0891b2', '#ca8a04', '#64748b', '#dc2626', '#4f46e5'];

const charts = new Map<string, Chart>();

/** Draws a chart on the canvas of that id, replacing the one drawn there before. */
export function draw(canvasId: string, config: ChartConfiguration): void {
  charts.get(canvasId)?.destroy();
  const canvas = document.getElementById(canvasId) as HTMLCanvasElement;
  charts.set(canvasId, new Chart(canvas, config));
}

export function clearCharts(): void {
  for (const chart of charts.values()) chart.destroy();
  charts.clear();
}

/** A day of the window as a short label: 24 Nov. */
export function dayLabel(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

export const integerAxis = { beginAtZero: true, ticks: { precision: 0 } };
