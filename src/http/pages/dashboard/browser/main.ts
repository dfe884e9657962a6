// The statistics dashboard: sign in with an application key (kept in sessionStorage, so it
// leaves with the tab), pick a brand and a standard window, and read the brand's reports through
// the public GraphQL API.
import './dashboard.css';
import { readPageConfig } from '../../shared/browser/config.js';
import { GraphQLClient } from '../../shared/browser/graphql.js';
import type { DashboardConfig } from '../config.js';
import { clearCharts } from '../../shared/browser/charts.js';
import { dashboardQuery, signInQuery, type DashboardData, type SignInData } from './queries.js';
import { renderDashboard } from './render.js';
import { standardWindows, windowById } from './windows.js';

const storageKey = 'marquee.dashboard.apiKey';
const config = readPageConfig<DashboardConfig>();

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const signInForm = $<HTMLFormElement>('sign-in');
const keyInput = $<HTMLInputElement>('api-key');
const signInError = $('sign-in-error');
const brandSelect = $<HTMLSelectElement>('brand');
const windowPicker = $('window');
const status = $('status');

let client: GraphQLClient | undefined;
/** Answers of an older selection are dropped when a newer one was asked since. */
let generation = 0;

function show(signedIn: boolean): void {
  document.body.dataset.state = signedIn ? 'signed-in' : 'signed-out';
}

function setStatus(message: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = message;
  status.dataset.kind = kind;
  status.hidden = message === '';
}

function selection(): URLSearchParams {
  return new URLSearchParams(location.search);
}

function remember(brandId: string, windowId: string): void {
  const params = new URLSearchParams({ brand: brandId, window: windowId });
  history.replaceState(null, '', `${location.pathname}?${params}`);
}

function renderWindowPicker(selected: string): void {
  windowPicker.replaceChildren(
    ...standardWindows.map((window) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = window.label;
      button.dataset.window = window.id;
      button.setAttribute('aria-pressed', String(window.id === selected));
      button.addEventListener('click', () => {
        for (const other of windowPicker.querySelectorAll('button')) other.setAttribute('aria-pressed', String(other === button));
        void load();
      });
      return button;
    }),
  );
}

function selectedWindow() {
  return windowById(windowPicker.querySelector('[aria-pressed="true"]')?.getAttribute('data-window') ?? null);
}

async function signIn(apiKey: string): Promise<void> {
  signInError.textContent = '';
  const candidate = new GraphQLClient(config.endpoint, apiKey);
  let data: SignInData;
  try {
    data = await candidate.request<SignInData>(signInQuery);
  } catch (error) {
    sessionStorage.removeItem(storageKey);
    show(false);
    signInError.textContent = (error as Error).message;
    return;
  }
  client = candidate;
  sessionStorage.setItem(storageKey, apiKey);
  $('application').textContent = `${data.application.name} (${data.application.plan.toLowerCase()} plan)`;
  const wanted = selection().get('brand');
  brandSelect.replaceChildren(
    ...data.brands.nodes.map((brand) => {
      const option = document.createElement('option');
      option.value = brand.id;
      option.textContent = brand.name;
      option.selected = brand.id === wanted;
      return option;
    }),
  );
  renderWindowPicker(windowById(selection().get('window')).id);
  show(true);
  if (data.brands.nodes.length === 0) {
    document.body.dataset.data = 'none';
    setStatus('This account has no brands yet: create one (createBrand, or POST /v1.1/brand/create) and record some activity.');
    return;
  }
  await load();
}

async function load(): Promise<void> {
  if (!client) return;
  const current = ++generation;
  const window = selectedWindow();
  const brandId = brandSelect.value;
  remember(brandId, window.id);
  document.body.dataset.data = 'loading';
  setStatus('Loading…');
  try {
    const data = await client.request<DashboardData>(dashboardQuery, { brandId, window: { period: window.period }, brand: { brandId } });
    if (current !== generation) return;
    renderDashboard(data);
    document.body.dataset.data = 'ready';
    setStatus('');
  } catch (error) {
    if (current !== generation) return;
    document.body.dataset.data = 'error';
    setStatus((error as Error).message, 'error');
  }
}

signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (key) void signIn(key);
});

$('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(storageKey);
  client = undefined;
  generation += 1;
  clearCharts();
  keyInput.value = config.apiKey ?? '';
  setStatus('');
  delete document.body.dataset.data;
  show(false);
});

brandSelect.addEventListener('change', () => void load());

const stored = sessionStorage.getItem(storageKey);
keyInput.value = stored ?? config.apiKey ?? '';
if (stored) void signIn(stored);
else show(false);
