import type { EmailSettings, EmailTemplate } from '../../db/schema/index.js';
import { invalidParameter } from '../../core/errors.js';

export type EmailKind = 'verifyEmail' | 'resetPassword';

/**
 * What a template may name, each as `{{name}}`. `{{username}}` is kept so the templates saved with
 * it still work, but it no longer carries the member's username: a registrant chooses that freely
 * (several lines, a URL), and the message may go to an address nobody has proven. It says the
 * same as `{{firstName}}`, or the recipient's own address when there is no usable first name.
 */
export const placeholders = ['link', 'application', 'email', 'firstName', 'expires', 'username'] as const;
export type Placeholder = (typeof placeholders)[number];

/** The placeholders the documentation offers; `username` is accepted for old templates only. */
const offeredPlaceholders = placeholders.filter((name) => name !== 'username');

/** The longest first name a message carries, in characters; a longer one is cut. */
export const firstNameLimit = 40;

/**
 * The only registrant text a message carries: the first line of the first name, cut to
 * `firstNameLimit` characters, and only if it is made of letters, spaces, apostrophes and hyphens.
 * Anything else (digits, dots, slashes, `@`, `<`, `&`…) drops the whole name: a name like that could
 * be a URL or an address a mail client makes a link of, or markup, and a cut would leave part of it.
 * The messages are plain text; these characters are the same in HTML, so nothing needs escaping.
 */
export function greetingName(firstName: string | null | undefined): string {
  const [line = ''] = (firstName ?? '').trim().split(/[\r\n\u0085\u2028\u2029]/u);
  const name = line.replace(/\s+/gu, ' ').trim();
  if (!/^[\p{L}\p{M}][\p{L}\p{M} '’-]*$/u.test(name)) return '';
  return Array.from(name).slice(0, firstNameLimit).join('').trim();
}

/** What a message of a member may say, given what the member's row holds: no free text beyond `greetingName`. */
export function messageValues(values: { link: string; application: string; email: string; firstName: string | null | undefined; expires: string }): Record<Placeholder, string> {
  const firstName = greetingName(values.firstName);
  return { link: values.link, application: values.application, email: values.email, firstName, expires: values.expires, username: firstName || values.email };
}

// The defaults name the member not at all, and say the application's name after a preposition, so
// any name reads ("for The Fan Club"); an application's own template may greet by `{{firstName}}`.
export const defaultTemplates: Record<EmailKind, EmailTemplate> = {
  verifyEmail: {
    subject: 'Confirm your email address for {{application}}',
    body: [
      'Hello,',
      '',
      'Please confirm that {{email}} is your email address for {{application}} by opening this link:',
      '',
      '{{link}}',
      '',
      'The link works once and expires in {{expires}}. If you did not sign up, ignore this email.',
    ].join('\n'),
  },
  resetPassword: {
    subject: 'Choose a new password for {{application}}',
    body: [
      'Hello,',
      '',
      'Someone asked to reset the password of {{email}} on {{application}}. To choose a new password, open this link:',
      '',
      '{{link}}',
      '',
      'The link works once and expires in {{expires}}. If it was not you, ignore this email: your password stays as it is.',
    ].join('\n'),
  },
};

export const templateLimits = { senderName: 100, subject: 200, body: 5000 } as const;

/**
 * Fills a template with values made by `messageValues`. They are inserted as they are: the
 * messages are plain text, and the only registrant text, the first name, is one line of letters;
 * line breaks are removed from the subject (a header) all the same.
 */
export function renderTemplate(template: EmailTemplate, values: Record<Placeholder, string>): EmailTemplate {
  const fill = (text: string) => text.replace(/\{\{\s*([a-zA-Z]+)\s*\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name as Placeholder] : whole));
  return {
    subject: fill(template.subject)
      .replace(/[\r\n]+/g, ' ')
      .trim(),
    body: fill(template.body),
  };
}

export function templateOf(settings: EmailSettings | undefined, kind: EmailKind): EmailTemplate {
  return settings?.[kind] ?? defaultTemplates[kind];
}

/** A template given by the API or the CLI: bounded, and its body must carry the link. */
export function readTemplate(template: EmailTemplate, param: string): EmailTemplate {
  const subject = template.subject.trim();
  const body = template.body.replace(/\r\n/g, '\n');
  if (!subject || subject.length > templateLimits.subject) throw invalidParameter(`${param}.subject`, `expected 1 to ${templateLimits.subject} characters`);
  if (!body.trim() || body.length > templateLimits.body) throw invalidParameter(`${param}.body`, `expected 1 to ${templateLimits.body} characters`);
  if (!/\{\{\s*link\s*\}\}/.test(body)) throw invalidParameter(`${param}.body`, 'expected the {{link}} placeholder: without it the message is useless');
  const unknown = [...`${subject}\n${body}`.matchAll(/\{\{\s*([a-zA-Z]+)\s*\}\}/g)].map((match) => match[1]).find((name) => !(placeholders as readonly string[]).includes(name));
  if (unknown) throw invalidParameter(`${param}.body`, `unknown placeholder {{${unknown}}}; expected ${offeredPlaceholders.map((name) => `{{${name}}}`).join(', ')}`);
  return { subject, body };
}

/** A sender name: bounded, one line (it goes into the From header). */
export function readSenderName(name: string): string | undefined {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  if (trimmed.length > templateLimits.senderName || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw invalidParameter('senderName', `expected one line of at most ${templateLimits.senderName} characters`);
  }
  return trimmed || undefined;
}
