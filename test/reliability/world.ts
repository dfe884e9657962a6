import { randomBytes } from 'node:crypto';
import { getTableColumns, sql, type Table } from 'drizzle-orm';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../src/db/schema/index.js';
import { executeRows } from '../../src/db/rows.js';
import { issueSignInToken } from '../../src/modules/widget/widget.service.js';
import type { Tenant, TestGateway } from '../support/gateway.js';
import type { IdKind } from './surface.js';
import { issueEmailLink } from '../../src/modules/email/email-links.js';

/**
 * Two accounts filled with one of everything an id can name, for suites that call the whole surface
 * as one tenant against another's ids. Every text stored for an account carries its marker, so a
 * response holding another account's data is found by searching for the marker.
 */

export interface Side {
  tenant: Tenant;
  marker: string;
  ids: Record<Exclude<IdKind, 'token'>, string>;
  email: string;
  password: string;
  /** The member's access token (as the member envelope shows it). */
  accessToken: string;
  /** An unspent sign-in token of this side's application for the member. */
  signInToken: string;
}

let counter = 0;
const unique = () => `${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`;

export async function gql<T = any>(t: TestGateway, tenant: Tenant, query: string, variables?: Record<string, unknown>): Promise<T> {
  const { status, body } = await t.graphql(tenant.apiKey, query, variables);
  if (status !== 200 || body.errors) throw new Error(`${query.slice(0, 60)}: ${status} ${JSON.stringify(body.errors)}`);
  return body.data as T;
}

export const registerDocument = `mutation ($input: RegisterMemberInput!) { registerMember(input: $input) { member { id accessToken services { id network } } } }`;

/** Makers of one new thing each, for calls that spend or delete what they are given. */
export function makers(t: TestGateway, tenant: Tenant, marker: string) {
  const make = {
    async member(email = `${marker}-${unique()}@example.com`, password = `pw-${marker}-secret`) {
      const data = await gql(t, tenant, registerDocument, {
        input: { credentials: { network: 'email', email, password }, profile: { firstName: `${marker} first`, surname: `${marker} surname`, city: `${marker} city` } },
      });
      const member = data.registerMember.member;
      return { id: member.id as string, accessToken: member.accessToken as string, service: member.services[0].id as string, email, password };
    },
    async brand() {
      const data = await gql(t, tenant, `mutation ($input: BrandInput!) { createBrand(input: $input) { brand { id } } }`, { input: { name: `${marker} brand ${unique()}` } });
      return data.createBrand.brand.id as string;
    },
    async segment(brandId?: string) {
      const data = await gql(t, tenant, `mutation ($input: SegmentInput!) { createSegment(input: $input) { id } }`, { input: { name: `${marker} segment ${unique()}`, label: `${marker} label`, brandId } });
      return data.createSegment.id as string;
    },
    async activity(brandId?: string) {
      const data = await gql(t, tenant, `mutation ($input: ActivityInput!) { createActivity(input: $input) { id } }`, {
        input: { name: `${marker} activity ${unique()}`, type: 'CUSTOM', points: 5, brandId },
      });
      return data.createActivity.id as string;
    },
    async record(activityId: string, memberId: string, brandId?: string) {
      const data = await gql(t, tenant, `mutation ($input: [RecordActivityInput!]!) { recordActivities(input: $input) { recordIds } }`, {
        input: [{ activityId, memberId, brandId, category: `${marker} category`, marker: `${marker}-${unique()}`, link: `https://${marker}.example.com/` }],
      });
      return data.recordActivities.recordIds[0] as string;
    },
    async optIn(memberId: string, segmentId: string) {
      await gql(t, tenant, `mutation ($input: OptInInput!) { optIn(input: $input) { id } }`, { input: { memberId, segmentId } });
    },
    /** A presave job, run to its end (its members have no music network, so nothing leaves the process). */
    async presaveJob(segmentId: string) {
      const data = await gql(t, tenant, `mutation ($segmentId: ID!) { presaveToSegment(segmentId: $segmentId, input: { spotify: "6rqhFgbbKwnb9MLmUQDhG6", kind: TRACK }) { id } }`, { segmentId });
      const id = data.presaveToSegment.id as string;
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const job = await gql(t, tenant, `query ($id: ID!, $segmentId: ID!) { presaveJob(id: $id, segmentId: $segmentId) { status } }`, { id, segmentId });
        if (job.presaveJob.status === 'DONE') return id;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`presave job ${id} did not finish`);
    },
    async signInToken(memberId: string) {
      // Minted under the member's generation now, as a sign-in that just checked it would be.
      const [member] = await executeRows<{ id: number; sessionGeneration: number }>(
        t.database.db,
        sql`select id, session_generation as "sessionGeneration" from members where account_id = ${tenant.accountId} and id = ${Number(memberId)}`,
      );
      return issueSignInToken(t.database.db, { accountId: tenant.accountId, applicationId: tenant.applicationId }, member);
    },
    /** A reset or verification link of a new member, as its email would carry it. */
    async emailLink(purpose: 'reset' | 'verify') {
      const member = await make.member();
      const owner = { accountId: tenant.accountId, applicationId: tenant.applicationId, memberId: Number(member.id), email: member.email };
      return issueEmailLink(t.database.db, owner, purpose);
    },
  };
  return make;
}

export async function fillSide(t: TestGateway, tenant: Tenant, marker: string): Promise<Side> {
  const make = makers(t, tenant, marker);
  const member = await make.member();
  const brand = await make.brand();
  const segment = await make.segment();
  const activity = await make.activity(brand);
  const record = await make.record(activity, member.id, brand);
  await make.optIn(member.id, segment);
  const presaveJob = await make.presaveJob(segment);
  return {
    tenant,
    marker,
    ids: { member: member.id, service: member.service, brand, segment, activity, record, presaveJob },
    email: member.email,
    password: member.password,
    accessToken: member.accessToken,
    signInToken: await make.signInToken(member.id),
  };
}

/** Tables filled by background workers from the records (kept totals), not by any call. */
const derived = /^(score_window|timeline_days)/;

/**
 * Every row of an account, or with `applicationId` the rows kept per application of one of its
 * applications, as sorted JSON: two snapshots are equal when nothing of theirs was written in between.
 */
export async function snapshot(t: TestGateway, accountId: number, applicationId?: number): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const value of Object.values(schema)) {
    if (!value || typeof value !== 'object' || !(Symbol.for('drizzle:IsDrizzleTable') in value)) continue;
    const table = value as PgTable;
    const { name } = getTableConfig(table);
    const columns = getTableColumns(table as Table);
    if (derived.test(name) || name === 'api_hits') continue;
    let where;
    if (name === 'accounts') where = sql`id = ${accountId}`;
    else if (name === 'applications') where = applicationId ? sql`id = ${applicationId}` : sql`account_id = ${accountId}`;
    else if ('applicationId' in columns && applicationId) where = sql`account_id = ${accountId} and application_id = ${applicationId}`;
    else if ('accountId' in columns && !applicationId) where = sql`account_id = ${accountId}`;
    else continue;
    const rows = await executeRows<Record<string, unknown>>(t.database.db, sql`select * from ${table} where ${where}`);
    result[name] = rows.map((row) => JSON.stringify(row, (_key, v) => (typeof v === 'bigint' ? String(v) : v))).sort();
  }
  return result;
}
