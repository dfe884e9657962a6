import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { linkLifetimesMs, lifetimeText } from '../../src/modules/email/email-links.js';
import { maxAttempts, retryDelayMs } from '../../src/modules/email/outbox.js';
import { defaultTemplates, firstNameLimit, greetingName, messageValues, readSenderName, readTemplate, renderTemplate } from '../../src/modules/email/templates.js';
import { logTransport } from '../../src/modules/email/transport.js';

describe('email settings of the deployment', () => {
  it('reads SMTP_URL and MAIL_FROM, and refuses a bad URL or a server without a sender, naming the variable', () => {
    expect(loadConfig({ SMTP_URL: 'smtp://user:pw@mail.example.com:587', MAIL_FROM: 'fans@example.com' }).mail).toEqual({ smtpUrl: 'smtp://user:pw@mail.example.com:587', from: 'fans@example.com' });
    expect(loadConfig({}).mail).toEqual({ smtpUrl: undefined, from: 'no-reply@localhost' });
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example.com' })).toThrow(/MAIL_FROM: required with SMTP_URL/);
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'fans@example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'fans@example.com' })).toThrow(/SMTP_URL: must be an smtp/);
    expect(() => loadConfig({ MAIL_FROM: 'not an address' })).toThrow(/MAIL_FROM/);
  });
});

describe('the outbox', () => {
  it('waits 30 s, then twice as long each time, for at most six attempts', () => {
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
    expect(retryDelayMs(100)).toBe(3600_000);
    expect(maxAttempts).toBe(6);
  });

  it('prints a message and its link to the log when no SMTP server is configured (development)', async () => {
    const lines: { details: object; message: string }[] = [];
    const log = { info: (details: object, message: string) => lines.push({ details, message }) };
    await logTransport(log as never).send({ to: 'ada@example.com', senderName: 'The Band', subject: 'Reset', body: 'Open https://id.example.com/x?token=1.abc', kind: 'reset-password' });
    expect(lines).toHaveLength(1);
    expect(lines[0].details).toEqual({ to: 'ada@example.com', kind: 'reset-password', subject: 'Reset' });
    expect(lines[0].message).toContain('https://id.example.com/x?token=1.abc');
  });
});

describe('links and templates', () => {
  it('gives reset links an hour and verification links three days', () => {
    expect(linkLifetimesMs).toEqual({ reset: 3600_000, verify: 72 * 3600_000 });
    expect(lifetimeText('reset')).toBe('1 hour');
    expect(lifetimeText('verify')).toBe('72 hours');
  });

  it('fills the placeholders as plain text, keeps the subject on one line, and leaves unknown ones alone', () => {
    const filled = renderTemplate(
      { subject: 'Hi {{ firstName }}\r\nBcc: x', body: '{{link}} <b>{{username}}</b> {{other}}' },
      {
        link: 'https://x/y',
        application: 'App',
        email: 'a@b.c',
        username: '<script>',
        firstName: 'Ada',
        expires: '1 hour',
      },
    );
    expect(filled).toEqual({ subject: 'Hi Ada Bcc: x', body: 'https://x/y <b><script></b> {{other}}' });
  });

  it('gives a message no registrant text beyond the first line of a first name of letters, cut to 40 characters', () => {
    expect(firstNameLimit).toBe(40);
    expect(greetingName('  Ada  Lovelace ')).toBe('Ada Lovelace');
    expect(greetingName('Ada\nClaim your prize at http://evil.example')).toBe('Ada');
    expect(greetingName('Ada\u2028http://evil.example')).toBe('Ada');
    expect(greetingName("Zoë O'Brien-Núñez")).toBe("Zoë O'Brien-Núñez");
    for (const dropped of ['http://evil.example', 'www.evil.example', 'evil.example', '<b>Ada</b>', 'Ada & co', 'a@b.c', 'Ada 2', 'J.R.', '\u202eAda', '', null, undefined]) {
      expect(greetingName(dropped), String(dropped)).toBe('');
    }
    expect(greetingName('a'.repeat(60))).toBe('a'.repeat(40));
    const values = { link: 'https://x/y', application: 'The Fan Club', email: 'a@b.c', expires: '1 hour' };
    expect(messageValues({ ...values, firstName: 'Ada\nevil' })).toEqual({ ...values, firstName: 'Ada', username: 'Ada' });
    expect(messageValues({ ...values, firstName: 'www.evil.example' })).toEqual({ ...values, firstName: '', username: 'a@b.c' });
    expect(renderTemplate(defaultTemplates.resetPassword, messageValues({ ...values, firstName: 'Ada' })).subject).toBe('Choose a new password for The Fan Club');
    expect(renderTemplate(defaultTemplates.verifyEmail, messageValues({ ...values, firstName: 'Ada' })).subject).toBe('Confirm your email address for The Fan Club');
  });

  it('refuses templates without {{link}}, with unknown placeholders or too long, and sender names on two lines', () => {
    expect(readTemplate(defaultTemplates.verifyEmail, 'verifyEmail')).toEqual(defaultTemplates.verifyEmail);
    expect(() => readTemplate({ subject: 'x', body: 'no link' }, 'verifyEmail')).toThrow(/\{\{link\}\}/);
    expect(() => readTemplate({ subject: 'x', body: '{{link}} {{password}}' }, 'verifyEmail')).toThrow(/unknown placeholder \{\{password\}\}/);
    expect(() => readTemplate({ subject: 'x'.repeat(201), body: '{{link}}' }, 'verifyEmail')).toThrow(/subject/);
    expect(() => readTemplate({ subject: ' ', body: '{{link}}' }, 'verifyEmail')).toThrow(/subject/);
    expect(() => readTemplate({ subject: 'x', body: `{{link}}${'x'.repeat(5000)}` }, 'verifyEmail')).toThrow(/body/);
    expect(() => readSenderName('The Band\r\nBcc: someone@example.com')).toThrow(/one line/);
    expect(readSenderName('  The Band ')).toBe('The Band');
  });
});
