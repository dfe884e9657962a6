import { describe, expect, it } from 'vitest';
import { permissions, roleAllows, rolePermissions, staffRoles } from '../../src/modules/staff/permissions.js';

// What each role is promised, written out rather than derived, so a change to the
// map that grants or removes a right shows here.
const expected: Record<(typeof staffRoles)[number], string[]> = {
  analyst: ['stats.read', 'segments.read', 'segments.export'],
  support: ['stats.read', 'segments.read', 'segments.export', 'fans.read', 'fans.edit', 'fans.sessions', 'fans.reset'],
  admin: ['stats.read', 'segments.read', 'segments.export', 'fans.read', 'fans.edit', 'fans.sessions', 'fans.reset', 'fans.merge', 'fans.erase', 'fans.export', 'audit.read'],
  owner: [...permissions],
};

describe('staff roles', () => {
  it.each(staffRoles)('%s holds exactly its rights', (role) => {
    expect([...rolePermissions[role]].sort()).toEqual([...expected[role]].sort());
  });

  it('each role holds everything of the role below it', () => {
    staffRoles.slice(1).forEach((role, index) => {
      for (const permission of rolePermissions[staffRoles[index]]) expect(roleAllows(role, permission)).toBe(true);
    });
  });
});
