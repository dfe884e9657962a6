import type { EmailSettings, EmailTemplate } from '../../db/schema/index.js';
import { invalidParameter } from '../../core/errors.js';

export type EmailKind = 'verifyEmail' | 'resetPassword';

/** What a template may name, each as `{{name}}`. */
export const placeholders = ['link', 'application', 'email', 'username', 'firstName', 'expires'] as const;
export type Placeholder = (typeof placeholders)[number];

export const defaultTemplates: Record<EmailKind, EmailTemplate> = {
  verifyEmail: {
    subject: 'Confirm your email address for {{application}}',
    body: [
      'Hello {{username}},',
      '',
      'Please confirm that {{email}} is your email address for {{application}} by opening this link:',
      '',
      '{{link}}',
      '',
      'The link works once and expires in {{expires}}. If you did not sign up, ignore this email.',
    ].join('\n'),
  },
  resetPassword: {
    subject: 'Reset your {{application}} password',
    body: [
      'Hello {{username}},',
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
 * Fills a template. Values are inserted as they are: the messages are plain text, so nothing in a
 * member's name can become markup; line breaks are removed from the subject (a header).
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
  if (unknown) throw invalidParameter(`${param}.body`, `unknown placeholder {{${unknown}}}; expected ${placeholders.map((name) => `{{${name}}}`).join(', ')}`);
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
