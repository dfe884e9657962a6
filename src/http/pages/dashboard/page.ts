import { html } from '../../../modules/widget/flow/html.js';
import { pageShell } from '../shell.js';
import type { DashboardConfig } from './config.js';

function chartCard(id: string, title: string, empty: string, extra = '') {
  return html`<article class="card ${extra}">
  <h2>${title}</h2>
  <p class="empty-note">${empty}</p>
  <div class="chart"><canvas id="${id}" role="img" aria-label="${title}"></canvas></div>
</article>`;
}

function figure(id: string, label: string) {
  return html`<div class="figure"><span class="figure-value" id="${id}">–</span><span class="figure-label">${label}</span></div>`;
}

/** The dashboard's markup; its script (dashboard/browser) signs in and fills it. */
export function dashboardPage(options: { apiKey?: string }): string {
  const config: DashboardConfig = { endpoint: '/graphql', apiKey: options.apiKey };
  return pageShell({
    title: 'Marquee dashboard',
    bundle: 'dashboard',
    config,
    body: html`<header class="topbar">
  <h1>Marquee <span>dashboard</span></h1>
  <div class="session signed-in-only"><span id="application"></span><button type="button" id="sign-out" class="link">Sign out</button></div>
</header>
<main>
  <section class="signed-out-only sign-in">
    <form id="sign-in" class="card">
      <h2>Sign in</h2>
      <p>With an application key. It is kept in this tab only and sent with each query to <code>/graphql</code>.</p>
      <label for="api-key">Application key</label>
      <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck="false" required>
      <button type="submit">Sign in</button>
      <p id="sign-in-error" class="error" role="alert"></p>
    </form>
  </section>
  <section class="signed-in-only">
    <div class="controls">
      <label class="brand-picker">Brand <select id="brand"></select></label>
      <div id="window" class="window-picker" role="group" aria-label="Window"></div>
    </div>
    <p id="status" role="status" hidden></p>
    <div class="figures">
      ${figure('figure-active', 'active members')}
      ${figure('figure-members', 'members of the brand')}
      ${figure('figure-records', 'records')}
      ${figure('figure-registrations', 'registrations (account)')}
    </div>
    <div class="grid">
      ${chartCard('chart-activity', 'Activity per day', 'No activity on this brand in this window.', 'wide')}
      <article class="card">
        <h2>Top members</h2>
        <p class="empty-note">No member scored on this brand in this window.</p>
        <table class="members">
          <thead><tr><th class="numeric">#</th><th>Member</th><th>Country</th><th class="numeric">Points</th><th class="numeric">Records</th></tr></thead>
          <tbody id="top-members"></tbody>
        </table>
      </article>
      ${chartCard('chart-activities', 'Records by activity', 'No activity on this brand in this window.')}
      ${chartCard('chart-registrations', 'Registrations per day (all brands)', 'No registrations in this window.')}
      ${chartCard('chart-location', 'Active members by country', 'No active member with a known country.')}
      ${chartCard('chart-age', 'Active members by age', 'No active member in this window.')}
      ${chartCard('chart-gender', 'Active members by gender', 'No active member in this window.')}
    </div>
  </section>
</main>`,
  });
}
