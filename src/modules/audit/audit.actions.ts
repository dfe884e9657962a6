/**
 * Every action the audit log records, with what it means. A change made by staff or by an API key
 * writes one of these (audit.ts's recordAudit); reads are not recorded, except a fan's personal data
 * opened in the console (`fan.view`) and every export. A test checks that each action is recorded somewhere.
 */
export const auditActions = {
  'fan.view': "A staff member opened a fan's personal data in the console.",
  'fan.edit': "A fan's profile was changed (details name the fields, never their values).",
  'fan.merge': 'Two fans were merged (details: from, into).',
  'fan.erase': 'A fan was erased (article 17); details keep a keyed hash of the address, never the address.',
  'fan.export': "A fan's data was exported (article 15/20).",
  'fan.sessions_end': "A fan's sessions were ended.",
  'fan.reset_sent': 'A password reset email was sent to a fan.',
  'fan.verification_sent': 'An email confirming their address was sent to a fan.',
  'segment.export': 'A segment or filter was exported as CSV (details: segment, rows).',
  'key.create': 'An API key was created.',
  'key.revoke': 'An API key was revoked.',
  'application.create': 'An application was created.',
  'application.settings': "An application's settings were changed (details name them).",
  'staff.add': 'A staff member was added to the account.',
  'staff.remove': 'A staff member was removed from the account.',
  'staff.role': "A staff member's role was changed.",
  'staff.password': 'A staff member set or changed their password.',
  'staff.totp': 'A staff member enabled or reset their second factor, or the owner changed whether it is required.',
  'staff.sign_in': 'A staff member signed in to the console.',
  'staff.sign_in_failed': 'A sign-in to the console failed (wrong password or code).',
  'account.retention': "The account's record retention was changed (details: months, null keeping every record, and the setting before).",
  'records.expired': "Records past the account's retention were removed by the gateway (details: before, records, months).",
  'account.export': 'The whole account was exported to a file, to move it to another database (details: rows).',
  'account.import': 'The account was imported from another database (details: the id it had there, rows, when it was exported).',
  'permission.denied': 'A staff member asked for an operation their role does not allow.',
} as const;

export type AuditAction = keyof typeof auditActions;

/** Who did it: a staff member, an application's API key, or the gateway itself (a CLI command, a job). */
export type AuditActor = { type: 'staff'; id: number; label: string } | { type: 'api_key'; id: number; label: string } | { type: 'system'; label: string };

/** What the change was made to; ids are kept as text (a fan's member id, a key's id, a staff id). */
export interface AuditTarget {
  type: 'fan' | 'staff' | 'key' | 'application' | 'segment' | 'account';
  id: string;
}

/** Where the request came from, as the HTTP layer saw it. */
export interface AuditOrigin {
  actor: AuditActor;
  ip?: string;
  userAgent?: string;
  requestId?: string;
}

export interface AuditEntry {
  action: AuditAction;
  target?: AuditTarget;
  outcome?: 'success' | 'denied' | 'failed';
  /** Names, counts and ids; never a fan's personal data (erasure never rewrites the log). */
  details?: Record<string, unknown>;
}
