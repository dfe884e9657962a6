import { minPasswordLength } from '../../identity/passwords.js';
import type { PageLook } from '../look.js';
import { html } from './html.js';
import { errorSummary, layout, waysOn, type HostedPage, type PageLink } from './pages.js';

/** What the pages of the emailed links show: the application, where the form posts, its hidden fields. */
export interface EmailFormPage {
  applicationName: string;
  action: string;
  csrfToken: string;
  /** The whitelisted page to go back to, when the flow was started from one. */
  returnUrl?: string;
  error?: string;
  values?: { email?: string };
  /** The application's look (look.ts); the default one when unset. */
  look?: PageLook;
  /** The ways on from the page: back to sign-in, and to the site when the flow came from one. */
  links?: readonly PageLink[];
}

function hidden(page: EmailFormPage, extra: Record<string, string> = {}) {
  const fields = { _csrf: page.csrfToken, ...(page.returnUrl ? { return: page.returnUrl } : {}), ...extra };
  return Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}

/** "Forgot your password?": the address to send a reset link to. */
export function forgotPasswordPage(page: EmailFormPage): HostedPage {
  return layout(
    `Reset your password · ${page.applicationName}`,
    html`<div class="card">
<h1>Reset your password</h1>
<p class="lead">We will email you a link to choose a new password for ${page.applicationName}.</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hidden(page)}
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" required value="${page.values?.email}"${page.error ? html` aria-invalid="true" aria-describedby="form-error"` : html` autofocus`}>
<button type="submit">Send the link</button>
</form>
${waysOn(page.links)}
</div>`,
    page.look,
  );
}

/** The page a reset link opens: the new password, posted with the link's token. */
export function resetPasswordPage(page: EmailFormPage & { token: string }): HostedPage {
  return layout(
    `Choose a new password · ${page.applicationName}`,
    html`<div class="card">
<h1>Choose a new password</h1>
<p class="lead">for ${page.applicationName}</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hidden(page, { token: page.token })}
<label for="password">New password <span class="hint" id="password-hint">At least ${minPasswordLength} characters</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${minPasswordLength}" aria-describedby="password-hint"${page.error ? html` aria-invalid="true"` : html` autofocus`}>
<button type="submit">Set the new password</button>
</form>
<p class="hint">Setting it signs you out everywhere else.</p>
${waysOn(page.links)}
</div>`,
    page.look,
  );
}

/** A notice with an optional way on (back to the site, or to sign in), and the other ways on from it. */
export function noticePage(title: string, message: string, next?: PageLink, look?: PageLook, links?: readonly PageLink[]): HostedPage {
  return layout(
    title,
    html`<div class="card" role="status">
<h1>${title}</h1>
<p>${message}</p>
${next ? html`<a class="button" href="${next.url}">${next.label}</a>` : ''}
${waysOn(links)}
</div>`,
    look,
  );
}

/**
 * The page a verification link opens: opening it changes nothing (a mail scanner following links
 * acts on nothing); the button posts the link's token, and that verifies the address.
 */
export function confirmEmailPage(page: EmailFormPage & { token: string; email: string }): HostedPage {
  return layout(
    `Confirm your email address · ${page.applicationName}`,
    html`<div class="card">
<h1>Confirm your email address</h1>
<p class="lead">${page.email} for ${page.applicationName}</p>
${errorSummary(page.error)}
<form method="post" action="${page.action}" novalidate>
${hidden(page, { token: page.token })}
<button type="submit"${page.error ? '' : html` autofocus`}>Confirm my email address</button>
</form>
${waysOn(page.links)}
</div>`,
    page.look,
  );
}
