import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiChanges, judge, namedBreakingChanges, type ApiDocuments } from '../../scripts/api/api-changes.js';
import { openApiChanges } from '../../scripts/api/openapi-changes.js';

const schema = `
  type Query {
    member(id: ID!): Member
    old: Int @deprecated(reason: "Use member.")
  }
  type Member {
    id: ID!
    type: String
  }
`;
const changelog = (lines: string) => `# Changelog\n\n## Unreleased\n\n### Changed\n\n${lines}\n\n## 1.0.0 - 2026-11-23\n\n### Changed\n\n- **Breaking:** \`Member.id\` was once renamed.\n`;
const openApi = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Record<string, any>;
const withoutOpenApi = (schemaText: string): ApiDocuments => ({ schema: schemaText, openApi: null });

async function verdict(after: string, log = changelog('')) {
  return judge(await apiChanges(withoutOpenApi(schema), withoutOpenApi(after)), log);
}

describe('schema changes against the last release', () => {
  it('passes additions, and a schema equal to the release, with no breaking change', async () => {
    expect(await verdict(schema)).toEqual({ problems: [], breaking: [] });
    const added = await verdict(schema.replace('type: String', 'type: String\n    name: String'));
    expect(added).toEqual({ problems: [], breaking: [] });
  });

  it('refuses a breaking change the Unreleased section does not name, and passes it once named', async () => {
    const enumType = schema.replace('type: String', 'type: MemberType').concat('\nenum MemberType { FAN }\n');
    const refused = await verdict(enumType);
    expect(refused.breaking.map((change) => change.coordinate)).toEqual(['Member.type']);
    expect(refused.problems).toEqual([expect.stringContaining('schema.graphql: `Member.type`')]);
    // Named without the Breaking mark: still refused.
    expect((await verdict(enumType, changelog('- `Member.type` is an enum.'))).problems).toHaveLength(1);
    expect((await verdict(enumType, changelog('- **Breaking:** `Member.type` is the enum `MemberType` (`"Fan"` is `FAN`).'))).problems).toEqual([]);
  });

  it('removes a field only after a release that deprecated it', async () => {
    const withoutOld = schema.replace(/\n\s*old: Int @deprecated\(reason: "Use member\."\)/, '');
    expect((await verdict(withoutOld)).problems).toEqual([expect.stringContaining('`Query.old`')]);
    expect((await verdict(withoutOld, changelog('- **Breaking:** `Query.old` removed (deprecated since 1.0.0).'))).problems).toEqual([]);

    const withoutType = schema.replace(/\n\s*type: String/, '');
    const named = await verdict(withoutType, changelog('- **Breaking:** `Member.type` removed.'));
    expect(named.problems).toEqual([expect.stringContaining('removed without a release that deprecated it')]);
  });

  it('reads the names of breaking changes from the Unreleased section only', () => {
    expect(namedBreakingChanges(changelog('- **Breaking:** `A.b` and `C.d` changed.\n- `E.f` added.'))).toEqual(new Set(['A.b', 'C.d']));
    expect(namedBreakingChanges('# Changelog\n\n## 2.0.0\n\n- **Breaking:** `A.b`\n')).toEqual(new Set());
    // Only a bullet that begins with the mark declares a breaking change, not one that mentions it.
    expect(namedBreakingChanges(changelog('- `check:api`: a change must be named on a **Breaking:** line.'))).toEqual(new Set());
  });
});

describe('OpenAPI changes against the last release', () => {
  const copy = () => structuredClone(openApi);
  const breaking = (after: unknown) =>
    openApiChanges(openApi, after)
      .filter((change) => change.breaking)
      .map((change) => `${change.coordinate}: ${change.message}`);

  it('finds nothing between a document and itself, nor in an added operation or answered property', () => {
    expect(openApiChanges(openApi, copy())).toEqual([]);
    const added = copy();
    added.paths['/v1.1/new'] = { get: { responses: {} } };
    for (const schemaOf of Object.values<Record<string, any>>(added.components.schemas)) if (schemaOf.properties) schemaOf.properties.Added = { type: 'string' };
    expect(breaking(added)).toEqual([]);
  });

  it('finds a removed operation, a removed or newly required parameter, and a narrowed enum', () => {
    const after = copy();
    delete after.paths['/v1.1/app/info'];
    const show = after.paths['/v1.1/member/{id}'].get;
    show.parameters = show.parameters.filter((parameter: any) => parameter.name !== 'email');
    show.parameters.find((parameter: any) => parameter.name === 'username').required = true;
    show.parameters.find((parameter: any) => parameter.name === 'refresh').schema.enum = ['1', '0'];
    expect(breaking(after)).toEqual(
      expect.arrayContaining([
        'GET /v1.1/app/info: the operation was removed',
        'GET /v1.1/member/{id}: the parameter query:email was removed',
        'GET /v1.1/member/{id}: the parameter query:username became required',
        'GET /v1.1/member/{id}: the parameter query:refresh no longer takes "true"',
      ]),
    );
  });

  it('finds an answered property gone or of another type', () => {
    const after = copy();
    const envelope = after.components.schemas.MemberEnvelope;
    const [first, second] = Object.keys(envelope.properties);
    delete envelope.properties[first];
    envelope.properties[second] = { type: 'boolean' };
    const found = breaking(after).filter((line) => line.startsWith('GET /v1.1/member/{id}:'));
    expect(found).toEqual(expect.arrayContaining([`GET /v1.1/member/{id}: the 200 answer no longer answers ${first}`, expect.stringContaining(`the 200 answer.${second} changed type`)]));
  });
});
