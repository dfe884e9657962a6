/**
 * What each staff role may do in the console. The server checks these on every console operation
 * (`@Authorized('fans.erase')`); the console only hides what the viewer's permissions exclude.
 * Each role holds everything of the role below it:
 * - analyst: statistics, segments and rankings, and segment exports (CSV); no fan's page;
 * - support: also reads and edits a fan's profile, ends their sessions, sends a reset email;
 * - admin: also merges, erases and answers data requests (a fan's export), reads the audit log;
 * - owner: also manages staff, applications and the account's settings.
 */
export const staffRoles = ['analyst', 'support', 'admin', 'owner'] as const;
export type StaffRole = (typeof staffRoles)[number];

export const permissions = [
  'stats.read',
  'segments.read',
  'segments.export',
  'fans.read',
  'fans.edit',
  'fans.sessions',
  'fans.reset',
  'fans.merge',
  'fans.erase',
  'fans.export',
  'audit.read',
  'staff.manage',
  'applications.manage',
  'settings.manage',
] as const;
export type Permission = (typeof permissions)[number];

const added: Record<StaffRole, readonly Permission[]> = {
  analyst: ['stats.read', 'segments.read', 'segments.export'],
  support: ['fans.read', 'fans.edit', 'fans.sessions', 'fans.reset'],
  admin: ['fans.merge', 'fans.erase', 'fans.export', 'audit.read'],
  owner: ['staff.manage', 'applications.manage', 'settings.manage'],
};

/** The permissions of each role: its own and those of every role below it. */
export const rolePermissions = {} as Record<StaffRole, ReadonlySet<Permission>>;
staffRoles.forEach((role, rank) => {
  rolePermissions[role] = new Set(staffRoles.slice(0, rank + 1).flatMap((below) => added[below]));
});

export function roleAllows(role: StaffRole, permission: Permission): boolean {
  return rolePermissions[role].has(permission);
}

export function isStaffRole(value: string): value is StaffRole {
  return (staffRoles as readonly string[]).includes(value);
}
