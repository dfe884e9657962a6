import { minPasswordLength } from '../../identity/passwords.js';
import type { PageLook } from '../look.js';
import { html } from './html.js';
import { errorSummary, layout, type HostedPage } from './pages.js';

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
</div>`,
    page.look,
  );
}

/** A notice with an optional way on (back to the site, or to sign in). */
export function noticePage(title: string, message: string, next?: { url: string; label: string }, look?: PageLook): HostedPage {
  return layout(
    title,
    html`<div class="card" role="status">
<h1>${title}</h1>
<p>${message}</p>
${next ? html`<a class="button" href="${next.url}">${next.label}</a>` : ''}
</div>`,
    look,
  );
}
