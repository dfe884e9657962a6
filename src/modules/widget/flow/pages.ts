import { minPasswordLength } from '../../identity/passwords.js';
import { requirableFields, type FormField } from '../widget.profile.js';
import { countryOptions } from './countries.js';
import { createHash } from 'node:crypto';
import { lookProperties, pageLook, type PageLook } from '../look.js';
import { Html, html } from './html.js';
import { styles } from './styles.js';

/** What every hosted form page shows: the application, where the form posts, and the way back. */
export interface FormPage {
  applicationName: string;
  action: string;
  csrfToken: string;
  /** The whitelisted page the flow returns to; unset when the page was opened without one. */
  returnUrl?: string;
  /** One message for the whole form: announced (role=alert) and focused when the page loads. */
  error?: string;
  /** What the fields show: the posted values, or the member's current ones (a country preselected). */
  values?: Record<string, string | undefined>;
  /** The one profile field the error is about (marked aria-invalid); unset: the error is about the credentials. */
  invalidField?: string;
  /** The profile fields the form asks for, each required or optional (widget.profile.ts decides which). */
  fields?: FormField[];
  networks: { name: string; url: string }[];
  /** The other page (sign in ↔ register), with the same return URL. */
  switchUrl: string;
  /** The sign-in page's "Forgot your password?" link, with the same return URL. */
  forgotUrl?: string;
  /** The application's look (look.ts); the default one when unset. */
  look?: PageLook;
}

/**
 * A drawn page and what its Content-Security-Policy must allow: its one stylesheet, by hash, and
 * the origin of its logo, when it shows one (flow.pages.ts's sendPage writes the policy).
 */
export class HostedPage {
  constructor(
    readonly markup: string,
    readonly styleHash: string,
    readonly imageOrigin?: string,
  ) {}
}

const defaultLook = pageLook(undefined, '');

export function layout(title: string, body: Html, look: PageLook = defaultLook): HostedPage {
  // The colours come from look.ts's pattern only; nothing else of the look enters the stylesheet.
  const css = `${styles}${lookProperties(look)}`;
  const styleHash = `sha256-${createHash('sha256').update(css).digest('base64')}`;
  const logo = look.logoUrl ? html`<img class="logo" src="${look.logoUrl}" alt="${look.title}">` : '';
  const footer = look.footerLink ? html`<footer class="page-footer"><a href="${look.footerLink.url}">${look.footerLink.text}</a></footer>` : '';
  const markup = `<!doctype html>${
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${new Html(css)}</style>
</head>
<body><main>${logo}${body}${footer}</main></body>
</html>`.markup
  }`;
  return new HostedPage(markup, styleHash, look.logoUrl ? new URL(look.logoUrl).origin : undefined);
}

export function errorSummary(error: string | undefined): Html {
  // Focused on load (autofocus) so keyboard and screen reader users land on it; role=alert announces it.
  return html`${error ? html`<div class="alert" id="form-error" role="alert" tabindex="-1" autofocus>${error}</div>` : ''}`;
}

function hiddenFields(page: Pick<FormPage, 'csrfToken' | 'returnUrl'>): Html {
  const back = page.returnUrl === undefined ? '' : html`<input type="hidden" name="return" value="${page.returnUrl}">`;
  return html`<input type="hidden" name="_csrf" value="${page.csrfToken}">${back}`;
}

function invalid(page: Pick<FormPage, 'error' | 'invalidField'>, field?: string): Html {
  const marked = page.error && (field === undefined ? !page.invalidField : page.invalidField === field);
  return html`${marked ? html` aria-invalid="true" aria-describedby="form-error"` : ''}`;
}

function socialButtons(page: FormPage, verb: string): Html {
  if (!page.networks.length) return html``;
  return html`<p class="divider">or</p>
${page.networks.map((network) => html`<a class="button social" href="${network.url}">${verb} with ${network.name}</a>`)}`;
}

export function loginPage(page: FormPage): HostedPage {
  return layout(
    `Sign in · ${page.applicationName}`,
    html`<div class="card">
<h1>Sign in</h1>
<p class="lead">to ${page.applicationName}</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hiddenFields(page)}
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" required value="${page.values?.email}"${invalid(page)}${page.error ? '' : html` autofocus`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid(page)}>
<button type="submit">Sign in</button>
</form>
${page.forgotUrl ? html`<p class="switch"><a href="${page.forgotUrl}">Forgot your password?</a></p>` : ''}
${socialButtons(page, 'Continue')}
<p class="switch">New here? <a href="${page.switchUrl}">Create an account</a></p>
</div>`,
    page.look,
  );
}

export function registerPage(page: FormPage): HostedPage {
  // First name before the credentials, as people expect; whatever else the application requires after them.
  const fields = page.fields ?? [];
  const first = fields.filter((field) => field.name === 'firstName');
  const rest = fields.filter((field) => field.name !== 'firstName');
  return layout(
    `Create an account · ${page.applicationName}`,
    html`<div class="card">
<h1>Create an account</h1>
<p class="lead">for ${page.applicationName}</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hiddenFields(page)}
${first.map((field) => profileField(page, field, !page.error))}
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" required value="${page.values?.email}"${invalid(page)}${page.error || first.length ? '' : html` autofocus`}>
<label for="password">Password <span class="hint" id="password-hint">At least ${minPasswordLength} characters</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${minPasswordLength}" aria-describedby="password-hint"${page.error && !page.invalidField ? html` aria-invalid="true"` : ''}>
${rest.map((field) => profileField(page, field, false))}
<button type="submit">Create account</button>
</form>
${socialButtons(page, 'Sign up')}
<p class="switch">Already registered? <a href="${page.switchUrl}">Sign in</a></p>
</div>`,
    page.look,
  );
}

function countrySelect(field: FormField, value: string | undefined, attributes: Html): Html {
  const chosen = value?.toUpperCase();
  const known = countryOptions.some((country) => country.code === chosen);
  // The empty choice: always on an optional field; on a required one only while nothing is chosen,
  // so the first country in the list is never picked silently.
  const empty = !field.required || !known ? html`<option value="">Choose a country</option>` : '';
  return html`<select id="${field.name}" name="${field.name}"${attributes}>${empty}${countryOptions.map(
    (country) => html`<option value="${country.code}"${country.code === chosen ? html` selected` : ''}>${country.name}</option>`,
  )}</select>`;
}

/** One profile field: its label (with "Optional" when the form does not require it) and its control. */
function profileField(page: Pick<FormPage, 'values' | 'error' | 'invalidField'>, field: FormField, focus: boolean): Html {
  const spec = requirableFields[field.name];
  const value = page.values?.[field.name];
  const attributes = html`${field.required ? html` required` : ''} autocomplete="${spec.autocomplete}"${invalid(page, field.name)}${focus ? html` autofocus` : ''}`;
  const label = html`<label for="${field.name}">${spec.label}${field.required ? '' : html` <span class="hint">Optional</span>`}</label>`;
  if (spec.type === 'country')
    return html`${label}
${countrySelect(field, value, attributes)}`;
  if (spec.type === 'gender') {
    const options = [
      ['', 'Choose…'],
      ['M', 'Male'],
      ['F', 'Female'],
      ['Other', 'Other'],
    ];
    return html`${label}
<select id="${field.name}" name="${field.name}"${attributes}>${options.map(([code, text]) => html`<option value="${code}"${code === value ? html` selected` : ''}>${text}</option>`)}</select>`;
  }
  return html`${label}
<input id="${field.name}" name="${field.name}" type="${spec.type}" value="${value}"${attributes}>`;
}

export function completePage(page: Omit<FormPage, 'networks' | 'switchUrl'>): HostedPage {
  return layout(
    `A few more details · ${page.applicationName}`,
    html`<div class="card">
<h1>A few more details</h1>
<p class="lead">${page.applicationName} asks for these before you continue.</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hiddenFields(page)}
${(page.fields ?? []).map((field, index) => profileField(page, field, index === 0 && !page.error))}
<button type="submit">Continue</button>
</form>
</div>`,
    page.look,
  );
}

/** A link of a page to another page of the flow, or back to the site. */
export interface PageLink {
  url: string;
  label: string;
}

/** The ways on from a page (sign in, back to the site, ask for a new email), so none is a dead end. */
export function waysOn(links: readonly PageLink[] = []): Html {
  return html`${links.length ? html`<ul class="ways">${links.map((link) => html`<li><a href="${link.url}">${link.label}</a></li>`)}</ul>` : ''}`;
}

/** A page that only tells something: refusals (with the interface's error code) and plain notices, and the ways on from it. */
export function messagePage(title: string, message: string, code?: number, look?: PageLook, links?: readonly PageLink[]): HostedPage {
  return layout(
    title,
    html`<div class="card" role="${code ? 'alert' : 'status'}">
<h1>${title}</h1>
<p>${message}</p>
${code ? html`<p class="hint">Error code ${code}</p>` : ''}
${waysOn(links)}
</div>`,
    look,
  );
}

/**
 * The LogoutURL's question: a GET ends nothing (any page could send a fan there), so the session ends
 * only through this form's POST with its CSRF token. "Stay signed in" goes back to the return page,
 * or to the signed-in page when the link came with none.
 */
export function logoutPage(page: { applicationName: string; action: string; csrfToken: string; returnUrl?: string; stayUrl: string; look?: PageLook }): HostedPage {
  return layout(
    `Sign out · ${page.applicationName}`,
    html`<div class="card">
<h1>Sign out of ${page.applicationName}?</h1>
<p class="lead">You are signed in to ${page.applicationName} on this browser.</p>
<form method="post" action="${page.action}" novalidate>
${hiddenFields(page)}
<button type="submit" autofocus>Sign out</button>
</form>
<p class="switch"><a href="${page.stayUrl}">Stay signed in</a></p>
</div>`,
    page.look,
  );
}
