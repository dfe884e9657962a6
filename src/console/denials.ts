import type { DatabaseHandle } from '../db/client.js';
import { recordAudit, type AuditOrigin } from '../modules/audit/audit.js';
import type { Permission } from '../modules/staff/permissions.js';
import type { StaffCaller } from './context.js';

/**
 * A refusal for want of a permission, as an entry of the audit log (`permission.denied`), in a
 * statement of its own: nothing else of the operation ran. `where` names the GraphQL field
 * (`Mutation.eraseFan`) or the route (`GET /console/fans/:id/export.json`).
 */
export async function recordDenial(database: DatabaseHandle, caller: StaffCaller, origin: AuditOrigin, permission: Permission, where: string): Promise<void> {
  await recordAudit(database.db, caller.accountId, origin, {
    action: 'permission.denied',
    target: { type: 'staff', id: String(caller.staffId) },
    outcome: 'denied',
    details: { permission, field: where, role: caller.role },
  });
}
