import { randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { getNamedType, isInputObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConsoleSchema } from '../../src/console/schema.js';
import { apiKeys } from '../../src/db/schema/index.js';
import { createGlobalKey } from '../../src/modules/tenancy/tenancy.service.js';
import { snapshot } from '../reliability/world.js';
import { consoleGraphql, signInStaff, type ConsoleAnswer, type SignedInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';

/**
 * The console's isolation matrix. An owner of account A calls every Query and Mutation field of
 * console.graphql that takes an id (an argument of type ID, or an ID field of an input, such as
 * auditEvents' filter), once for each place an id goes: with account B's thing of that kind, with an
 * id that names nothing, and with A's own (a fresh one where the call destroys or changes it). It
 * passes when:
 *  - the foreign id gets exactly the answer the made-up id gets (error code and param, and data);
 *  - where that answer is an error, it is NOT_FOUND;
 *  - no answer, nor any of A's lists (fans, staff, applications, globalApiKeys, segments,
 *    auditEvents), holds any text of B;
 *  - A's own id makes the same call succeed, so the swapped id is what the answer is about;
 *  - every row of B (every table with an account_id: members, staff_roles, staff_sessions,
 *    api_keys, audit_events, …) is unchanged at the end.
 * A new id-taking console operation fails the first test until `slots` says how to call it.
 */

type Kind = 'fan' | 'staff' | 'application' | 'key';
interface Thing {
  id: string;
  /** A fan's email (eraseFan's confirmation). */
  email?: string;
}
type Variant = 'foreign' | 'made-up' | 'own';
interface Slot {
  kind: Kind;
  /** The document and variables that put `thing` in this slot; the other arguments valid (other ids A's own). */
  call(thing: Thing, variant: Variant): Promise<[string, Record<string, unknown>]>;
  /** B's thing for this slot, when not the kind's usual one. */
  foreign?: () => Thing;
  /** A's thing for this slot, when not a fresh one of the kind. */
  own?: () => Promise<Thing>;
  /** Checks the own call's data says the call was about the thing (beyond no errors). */
  ownData?: (data: any) => boolean;
}

let t: TestGateway;
let a: Tenant;
let b: Tenant;
let ownerA: SignedInStaff;
let ownerB: SignedInStaff;
let analystB: SignedInStaff;
let marker: string;
let fanB: Thing;
let otherFanB: Thing;
let keyB: Thing;
/** Texts of B that must appear in no answer to A. */
let textsOfB: string[];
let before: Record<string, string[]>;

const madeUpId = '2147480000';
let counter = 0;

/** A fan of the tenant with an email sign-in and a password (sendFanPasswordReset needs one). */
async function registerFan(tenant: Tenant, mark: string): Promise<Thing> {
  counter += 1;
  const email = `${mark}-fan${counter}@example.com`;
  const data = (await ok(t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname: `${mark}first`, surname: `${mark}sur${counter}` })))[0].data;
  return { id: String(data.ID as number), email };
}
const ownFan = () => registerFan(a, 'own');

const call = (query: string, variables: Record<string, unknown>) => consoleGraphql(t, ownerA, query, variables);

/** A's own thing of the kind, fresh. */
async function own(kind: Kind): Promise<Thing> {
  switch (kind) {
    case 'fan':
      return ownFan();
    case 'staff':
      return { id: String((await signInStaff(t, { accountId: a.accountId, role: 'analyst' })).staffId) };
    case 'application':
      return { id: String(a.applicationId) };
    case 'key': {
      const answer = await call('mutation($id: ID!) { createApiKey(applicationId: $id) { id } }', { id: String(a.applicationId) });
      expect(answer.body.errors).toBeUndefined();
      return { id: answer.body.data.createApiKey.id };
    }
  }
}

function foreign(kind: Kind): Thing {
  switch (kind) {
    case 'fan':
      return fanB;
    case 'staff':
      return { id: String(analystB.staffId) };
    case 'application':
      return { id: String(b.applicationId) };
    case 'key':
      return keyB;
  }
}

const fanSelection = '{ id email displayName }';
const auditSelection = '{ nodes { id action target { id type } actor { id label } details } }';

/** How to call each place an id goes, by `field.argument` (`field.argument.inputField` inside an input). */
const slots: Record<string, Slot> = {
  'fan.id': { kind: 'fan', call: async (x) => [`query($id: ID!) { fan(id: $id) ${fanSelection} }`, { id: x.id }] },
  'mergePreview.keepId': {
    kind: 'fan',
    call: async (x) => [
      `query($keep: ID!, $other: ID!) { mergePreview(keepId: $keep, otherId: $other) { keep { id } other { id } fields { field keep other } } }`,
      { keep: x.id, other: (await ownFan()).id },
    ],
  },
  'mergePreview.otherId': {
    kind: 'fan',
    call: async (x) => [
      `query($keep: ID!, $other: ID!) { mergePreview(keepId: $keep, otherId: $other) { keep { id } other { id } fields { field keep other } } }`,
      { keep: (await ownFan()).id, other: x.id },
    ],
  },
  'mergeFans.keepId': { kind: 'fan', call: async (x) => [`mutation($keep: ID!, $other: ID!) { mergeFans(keepId: $keep, otherId: $other) ${fanSelection} }`, { keep: x.id, other: (await ownFan()).id }] },
  'mergeFans.otherId': { kind: 'fan', call: async (x) => [`mutation($keep: ID!, $other: ID!) { mergeFans(keepId: $keep, otherId: $other) ${fanSelection} }`, { keep: (await ownFan()).id, other: x.id }] },
  'endFanSessions.id': { kind: 'fan', call: async (x) => [`mutation($id: ID!) { endFanSessions(id: $id) ${fanSelection} }`, { id: x.id }] },
  'eraseFan.id': {
    kind: 'fan',
    // The confirmation is the email of the fan whose id is passed: B's fan's own email must still be refused.
    call: async (x) => ['mutation($id: ID!, $email: String!) { eraseFan(id: $id, confirmEmail: $email) }', { id: x.id, email: x.email ?? 'nobody@example.com' }],
    foreign: () => otherFanB,
  },
  'sendFanPasswordReset.id': { kind: 'fan', call: async (x) => ['mutation($id: ID!) { sendFanPasswordReset(id: $id) }', { id: x.id }] },
  'updateFan.id': { kind: 'fan', call: async (x) => [`mutation($id: ID!) { updateFan(id: $id, input: { city: "X" }) ${fanSelection} }`, { id: x.id }] },
  'auditEvents.filter.memberId': {
    kind: 'fan',
    call: async (x, variant) => {
      // A's own fan, viewed once, so the filter has an entry to find.
      if (variant === 'own') await call('query($id: ID!) { fan(id: $id) { id } }', { id: x.id });
      return [`query($id: ID!) { auditEvents(filter: { memberId: $id }) ${auditSelection} }`, { id: x.id }];
    },
    ownData: (data) => data.auditEvents.nodes.length > 0,
  },
  'auditEvents.filter.targetId': {
    kind: 'fan',
    call: async (x, variant) => {
      if (variant === 'own') await call('query($id: ID!) { fan(id: $id) { id } }', { id: x.id });
      return [`query($id: ID!) { auditEvents(filter: { targetType: "fan", targetId: $id }) ${auditSelection} }`, { id: x.id }];
    },
    ownData: (data) => data.auditEvents.nodes.length > 0,
  },
  'auditEvents.filter.actorId': {
    kind: 'staff',
    // B's owner has entries in B's log (viewing B's fans); A's own is the caller, with entries of its own (a fresh staff member has none).
    call: async (x) => [`query($id: ID!) { auditEvents(filter: { actorType: "staff", actorId: $id }) ${auditSelection} }`, { id: x.id }],
    foreign: () => ({ id: String(ownerB.staffId) }),
    own: async () => ({ id: String(ownerA.staffId) }),
    ownData: (data) => data.auditEvents.nodes.length > 0,
  },
  'createApiKey.applicationId': { kind: 'application', call: async (x) => ['mutation($id: ID!) { createApiKey(applicationId: $id) { id applicationId prefix } }', { id: x.id }] },
  'revokeApiKey.keyId': { kind: 'key', call: async (x) => ['mutation($id: ID!) { revokeApiKey(keyId: $id) }', { id: x.id }], ownData: (data) => data.revokeApiKey === true },
  'removeStaff.staffId': { kind: 'staff', call: async (x) => ['mutation($id: ID!) { removeStaff(staffId: $id) }', { id: x.id }], ownData: (data) => data.removeStaff === true },
  'setStaffRole.staffId': {
    kind: 'staff',
    call: async (x) => ['mutation($id: ID!) { setStaffRole(staffId: $id, role: support) { id email role } }', { id: x.id }],
    ownData: (data) => data.setStaffRole.role === 'support',
  },
};

/** Every place an id goes in the console's Query and Mutation fields: arguments of type ID, and ID fields of input arguments. */
async function idSlots(): Promise<string[]> {
  const schema = await getConsoleSchema();
  const found: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType()] as GraphQLObjectType[]) {
    for (const field of Object.values(root.getFields()) as GraphQLField<unknown, unknown>[]) {
      for (const argument of field.args) {
        const type = getNamedType(argument.type);
        if (type.name === 'ID') found.push(`${field.name}.${argument.name}`);
        else if (isInputObjectType(type)) {
          for (const inner of Object.values(type.getFields())) if (getNamedType(inner.type).name === 'ID') found.push(`${field.name}.${argument.name}.${inner.name}`);
        }
      }
    }
  }
  return found.sort();
}

beforeAll(async () => {
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000000' });
  a = await t.tenant('enterprise');
  b = await t.tenant('enterprise');
  marker = `victim${randomBytes(4).toString('hex')}`;
  ownerA = await signInStaff(t, { accountId: a.accountId, role: 'owner' });
  ownerB = await signInStaff(t, { accountId: b.accountId, role: 'owner', email: `${marker}-owner@example.com` });
  analystB = await signInStaff(t, { accountId: b.accountId, role: 'analyst', email: `${marker}-analyst@example.com` });
  fanB = await registerFan(b, marker);
  otherFanB = await registerFan(b, marker);
  // B's log holds entries about its fans by its owner; B has a global key and a segment.
  for (const fan of [fanB, otherFanB]) expect((await consoleGraphql(t, ownerB, 'query($id: ID!) { fan(id: $id) { id } }', { id: fan.id })).body.errors).toBeUndefined();
  await createGlobalKey(t.database.db, b.accountId);
  const segment = await t.graphql(b.apiKey, 'mutation($input: SegmentInput!) { createSegment(input: $input) { id } }', { input: { name: `${marker} segment`, label: `${marker} label` } });
  expect(segment.body.errors).toBeUndefined();
  const [key] = await t.database.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, b.accountId), eq(apiKeys.applicationId, b.applicationId)))
    .orderBy(asc(apiKeys.id));
  keyB = { id: String(key.id) };
  textsOfB = [marker, b.apiKey.slice(0, 9), b.apiKey];
  // Background workers write derived rows on their own schedule; the matrix compares rows written by calls.
  await t.gateway.activityQueue.stop();
  await t.gateway.scoreWindows.stop();
  before = await snapshot(t, b.accountId);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const failures: string[] = [];
const figures = { operations: new Set<string>(), slots: 0, calls: 0 };

function textOfB(answer: ConsoleAnswer): string | undefined {
  const body = JSON.stringify(answer.body);
  return textsOfB.find((text) => body.includes(text));
}
const outcome = (answer: ConsoleAnswer) => ({
  status: answer.status,
  code: answer.body.errors?.[0]?.extensions.code ?? null,
  param: answer.body.errors?.[0]?.extensions.param ?? null,
  data: answer.body.data ?? null,
});

describe('the console isolation matrix', () => {
  it('knows how to call every place an id goes in console.graphql', async () => {
    const found = await idSlots();
    expect(
      found.filter((slot) => !(slot in slots)),
      'an id-taking console operation the matrix does not know: add it to `slots`',
    ).toEqual([]);
    expect(
      Object.keys(slots).filter((slot) => !found.includes(slot)),
      'a slot the schema no longer has',
    ).toEqual([]);
    expect(found.length).toBeGreaterThanOrEqual(16);
  });

  it("answers every id-taking operation with B's id as it answers a made-up one, and A's own succeeds", async () => {
    for (const [name, slot] of Object.entries(slots)) {
      figures.operations.add(name.split('.')[0]);
      figures.slots += 1;
      const foreignThing = slot.foreign?.() ?? foreign(slot.kind);
      const answers = {} as Record<Variant, ConsoleAnswer>;
      for (const variant of ['foreign', 'made-up', 'own'] as const) {
        let thing: Thing;
        if (variant === 'foreign') thing = foreignThing;
        else if (variant === 'made-up') thing = { id: madeUpId, email: foreignThing.email === undefined ? undefined : 'nobody@example.com' };
        else thing = slot.own ? await slot.own() : await own(slot.kind);
        const [query, variables] = await slot.call(thing, variant);
        answers[variant] = await call(query, variables);
        figures.calls += 1;
        const leaked = textOfB(answers[variant]);
        if (leaked) failures.push(`${name} (${variant}): the answer holds B's text ${leaked}: ${JSON.stringify(answers[variant].body).slice(0, 300)}`);
      }
      const foreignOutcome = outcome(answers.foreign);
      const madeUpOutcome = outcome(answers['made-up']);
      if (JSON.stringify(foreignOutcome) !== JSON.stringify(madeUpOutcome)) failures.push(`${name}: B's id answers ${JSON.stringify(foreignOutcome)}, a made-up id ${JSON.stringify(madeUpOutcome)}`);
      if (foreignOutcome.code !== null && foreignOutcome.code !== 'NOT_FOUND') failures.push(`${name}: B's id answers ${foreignOutcome.code}, not NOT_FOUND`);
      const mine = answers.own;
      if (mine.status !== 200 || mine.body.errors) failures.push(`${name} (own): ${mine.status} ${JSON.stringify(mine.body.errors)}`);
      else if (slot.ownData && !slot.ownData(mine.body.data)) failures.push(`${name} (own): the answer is not about A's thing: ${JSON.stringify(mine.body.data).slice(0, 300)}`);
    }
  }, 120_000);

  it("lists nothing of B's to A", async () => {
    const lists: [string, Record<string, unknown>][] = [
      ['query($s: String!) { fans(search: $s) { edges { node { id email displayName } } } }', { s: fanB.email! }],
      ['query($s: String!) { fans(search: $s) { edges { node { id email displayName } } } }', { s: fanB.id }],
      ['query($s: String!) { fans(search: $s) { edges { node { id email displayName } } } }', { s: marker }],
      ['{ staff { id email role } }', {}],
      ['{ applications { id name keys { id prefix } } }', {}],
      ['{ globalApiKeys { id prefix } }', {}],
      ['{ segments { id name label exportUrl } }', {}],
      [`{ auditEvents(first: 200) ${auditSelection} }`, {}],
    ];
    for (const [query, variables] of lists) {
      const answer = await call(query, variables);
      figures.calls += 1;
      if (answer.body.errors) failures.push(`${query}: ${JSON.stringify(answer.body.errors)}`);
      const leaked = textOfB(answer);
      if (leaked) failures.push(`${query} ${JSON.stringify(variables)}: the answer holds B's text ${leaked}`);
      if (variables.s !== undefined && answer.body.data?.fans.edges.length) failures.push(`${query} ${JSON.stringify(variables)}: finds ${JSON.stringify(answer.body.data.fans.edges)}`);
    }
  });

  it('found no difference, no text of B, and left B unchanged', async () => {
    // What the matrix covered, for the record: operations × slots × variants.
    console.info(`console isolation: ${figures.operations.size} operations, ${figures.slots} id slots × 3 variants, ${figures.calls} calls`);
    expect(failures).toEqual([]);
    expect(await snapshot(t, b.accountId)).toEqual(before);
  });
});
