import { minPasswordLength } from '../../identity/passwords.js';
import { requirableFields, type RequirableField } from '../widget.profile.js';
import { Html, html } from './html.js';
import { styles } from './styles.js';

/** What every hosted form page shows: the application, where the form posts, and the way back. */
export interface FormPage {
  applicationName: string;
  action: string;
  csrfToken: string;
  returnUrl: string;
  /** One message for the whole form: announced (role=alert) and focused when the page loads. */
  error?: string;
  values?: Record<string, string | undefined>;
  networks: { name: string; url: string }[];
  /** The other page (sign in ↔ register), with the same return URL. */
  switchUrl: string;
}

function layout(title: string, body: Html): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${new Html(styles)}</style>
</head>
<body><main>${body}</main></body>
</html>`}`;
}

function errorSummary(error: string | undefined): Html {
  // Focused on load (autofocus) so keyboard and screen reader users land on it; role=alert announces it.
  return html`${error ? html`<div class="alert" id="form-error" role="alert" tabindex="-1" autofocus>${error}</div>` : ''}`;
}

function hiddenFields(page: FormPage): Html {
  return html`<input type="hidden" name="_csrf" value="${page.csrfToken}"><input type="hidden" name="return" value="${page.returnUrl}">`;
}

function invalid(page: FormPage): Html {
  return html`${page.error ? html` aria-invalid="true" aria-describedby="form-error"` : ''}`;
}

function socialButtons(page: FormPage, verb: string): Html {
  if (!page.networks.length) return html``;
  return html`<p class="divider">or</p>
${page.networks.map((network) => html`<a class="button social" href="${network.url}">${verb} with ${network.name}</a>`)}`;
}

export function loginPage(page: FormPage): string {
  return layout(`Sign in · ${page.applicationName}`, html`<div class="card">
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
${socialButtons(page, 'Continue')}
<p class="switch">New here? <a href="${page.switchUrl}">Create an account</a></p>
</div>`);
}

export function registerPage(page: FormPage): string {
  return layout(`Create an account · ${page.applicationName}`, html`<div class="card">
<h1>Create an account</h1>
<p class="lead">for ${page.applicationName}</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hiddenFields(page)}
<label for="firstName">First name <span class="hint">Optional</span></label>
<input id="firstName" name="firstName" type="text" autocomplete="given-name" value="${page.values?.firstName}"${page.error ? '' : html` autofocus`}>
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" required value="${page.values?.email}"${invalid(page)}>
<label for="password">Password <span class="hint" id="password-hint">At least ${minPasswordLength} characters</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${minPasswordLength}" aria-describedby="password-hint"${page.error ? html` aria-invalid="true"` : ''}>
<button type="submit">Create account</button>
</form>
${socialButtons(page, 'Sign up')}
<p class="switch">Already registered? <a href="${page.switchUrl}">Sign in</a></p>
</div>`);
}

function fieldInput(field: RequirableField, value: string | undefined, first: boolean): Html {
  const spec = requirableFields[field];
  const focus = first ? html` autofocus` : '';
  if (spec.type === 'gender') {
    const options = [['', 'Choose…'], ['M', 'Male'], ['F', 'Female'], ['Other', 'Other']];
    return html`<label for="${field}">${spec.label}</label>
<select id="${field}" name="${field}" required autocomplete="${spec.autocomplete}"${focus}>${options.map(([code, label]) => html`<option value="${code}"${code === value ? html` selected` : ''}>${label}</option>`)}</select>`;
  }
  return html`<label for="${field}">${spec.label}</label>
<input id="${field}" name="${field}" type="${spec.type}" autocomplete="${spec.autocomplete}" required value="${value}"${focus}>`;
}

export function completePage(page: Omit<FormPage, 'networks' | 'switchUrl'>, fields: RequirableField[]): string {
  return layout(`A few more details · ${page.applicationName}`, html`<div class="card">
<h1>A few more details</h1>
<p class="lead">${page.applicationName} asks for these before you continue.</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
<input type="hidden" name="_csrf" value="${page.csrfToken}"><input type="hidden" name="return" value="${page.returnUrl}">
${fields.map((field, index) => fieldInput(field, page.values?.[field], index === 0 && !page.error))}
<button type="submit">Continue</button>
</form>
</div>`);
}

/** A page that only tells something: refusals (with the interface's error code) and plain notices. */
export function messagePage(title: string, message: string, code?: number): string {
  return layout(title, html`<div class="card" role="${code ? 'alert' : 'status'}">
<h1>${title}</h1>
<p>${message}</p>
${code ? html`<p class="hint">Error code ${code}</p>` : ''}
</div>`);
}
