import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../core/context.js';
import { selectedFields, selectsOnly } from '../../core/selection.js';
import { formatTimestamp } from '../../lib/time.js';
import {
  readOptInsJson,
  readWith,
  type DomainRow,
  type MemberReads,
  type MemberRow,
  type MemberRowWith,
  type NarrowMemberRow,
  type ReadWith,
  type ServiceLinkRow,
  type ServiceSummaryRow,
} from './members.queries.js';
import { Gender, type Member, type MemberDomain, type ServiceLink } from './members.types.js';

/**
 * A member as GraphQL shows it. From a narrow row (a list page whose selection reads no other
 * field, see `listedMemberSelection`) only the row's fields: the others are never read. What the
 * row's statement read besides (`readWith`) goes with it, for the fields that show it.
 */
export function toMember(row: MemberRowWith | NarrowMemberRow): Member {
  if (!('createdAt' in row)) {
    const { id, email, firstName, surname, username, services, optins } = row;
    const member: Pick<Member, keyof typeof row & keyof Member> & ReadWithMember = { id, email, firstName, surname, username };
    if (services || optins) member[readWith] = { serviceSummaries: services, optins: optins && readOptInsJson(optins) };
    return member as Member;
  }
  const full = row;
  const member: Member & ReadWithMember = {
    id: full.id,
    uuid: full.uuid,
    email: full.email,
    verifiedEmail: full.verifiedEmail,
    firstName: full.firstName,
    surname: full.surname,
    username: full.username,
    gender: (full.gender as Gender | null) ?? null,
    birthDate: full.birthDate,
    bio: full.bio,
    avatarUrl: full.avatarUrl,
    address: full.address,
    addressLine2: full.addressLine2,
    city: full.city,
    state: full.state,
    country: full.country,
    postCode: full.postCode,
    homePhone: full.homePhone,
    mobilePhone: full.mobilePhone,
    website: full.website,
    geo: { country: full.geoCountry, city: full.geoCity, region: full.geoRegion, lat: full.geoLat, long: full.geoLong },
    joinedAt: full.createdAt,
    updatedAt: full.updatedAt,
    lastLoginAt: full.lastLoginAt,
  };
  if (full[readWith]) member[readWith] = full[readWith];
  return member;
}

/**
 * A sealed secret (a network token, the member access token) opened for an answer, or null when it
 * cannot be opened: sealed under another SECRET_KEY (rows brought from another deployment) or
 * altered. The answer then shows the member as one without it, and the error log names `subject`
 * (which row and field, never the sealed value). Thrown instead, it failed the whole answer (500),
 * and from the service links' getters it escaped the GraphQL execution: the response never came.
 */
export function openForAnswer(context: Context, sealed: string, subject: Record<string, string | number>): string | null {
  try {
    return context.identity.cipher.open(sealed);
  } catch (error) {
    context.log.error({ ...subject, err: error }, 'A sealed secret could not be opened: it was sealed under another SECRET_KEY, or altered.');
    return null;
  }
}

/**
 * A linked service as the caller may see it. Network tokens go to API-key callers only (they sent
 * them); a password hash never leaves the server, whoever asks.
 */
export function toServiceLink(row: ServiceLinkRow, domains: DomainRow[], context: Context): ServiceLink {
  const mayReadTokens = context.caller.kind === 'application';
  const open = (sealed: string | null, field: 'token' | 'tokenSecret') => (mayReadTokens && sealed && row.network !== 'email' ? openForAnswer(context, sealed, { serviceLinkId: row.id, field }) : null);
  const link: ServiceLink = {
    id: row.id,
    network: row.network,
    valid: row.valid,
    activitySharing: row.activitySharing,
    userId: row.uid,
    username: row.username,
    userUrl: row.userUrl,
    token: null,
    tokenSecret: null,
    expiresAt: row.expiresAt,
    lastUpdated: row.updatedAt,
    lastLogin: row.lastLoginAt,
    verifiedEmail: row.verifiedEmail,
    paidAccount: row.paidAccount,
    followers: row.followers,
    likes: row.likes,
    partnerCode: row.partnerCode,
    partnerId: row.partnerId,
    domains: domains.filter((domain) => domain.serviceId === row.id).map((domain) => domain.domain),
  };
  // Opening a sealed token is an AES-GCM decryption: done only when the response asks for it.
  return Object.defineProperties(link, {
    token: { get: () => open(row.tokenSealed, 'token'), enumerable: true },
    tokenSecret: { get: () => open(row.tokenSecretSealed, 'tokenSecret'), enumerable: true },
  });
}

/**
 * Member fields a narrow row serves: its columns, and fields whose resolvers need no more than the
 * member's id (they load what they show). accessToken, extended and every profile field take the
 * whole row; so does any field added later until it is listed here.
 */
const narrowMemberFields: ReadonlySet<string> = new Set([
  '__typename',
  'id',
  'email',
  'firstName',
  'surname',
  'username',
  'services',
  'domains',
  'optins',
  'jwt',
  'score',
  'position',
  'lastActivity',
  'topBrands',
  'activities',
]);

/**
 * How a members connection reads its page: undefined for whole rows, or the narrow columns when
 * the nodes (`edges.node`) select only fields a narrow row serves, with the services' summaries
 * (when those are all the services' selection asks) and the current opt-ins read by the same statement.
 */
export function listedMemberSelection(info: GraphQLResolveInfo): { services: boolean; optins: boolean } | undefined {
  if (!selectsOnly(info, narrowMemberFields, ['edges', 'node'])) return undefined;
  const node = selectedFields(info, ['edges', 'node']);
  return {
    services: node.has('services') && selectsOnly(info, serviceSummaryFields, ['edges', 'node', 'services']),
    optins: node.has('optins'),
  };
}

/** A Member carrying what its statement read besides its columns (see `ReadWith`). */
export interface ReadWithMember {
  [readWith]?: ReadWith;
}

/**
 * What member(id), or a ranking's page, reads in the member's own statement, from the selection
 * (at `path` below the field, `edges.node` for a page): the services (summaries when those are all
 * their selection asks), the domains (of the member, or of its services), the current opt-ins.
 * Each would otherwise be one more statement through its loader.
 */
export function memberReadsOf(info: GraphQLResolveInfo, path: readonly string[] = []): MemberReads | undefined {
  const fields = selectedFields(info, path);
  const services = fields.has('services');
  const reads: MemberReads = {
    services: services ? (selectsOnly(info, serviceSummaryFields, [...path, 'services']) ? 'summary' : 'whole') : undefined,
    domains: fields.has('domains') || (services && selectedFields(info, [...path, 'services']).has('domains')),
    optins: fields.has('optins'),
  };
  return reads.services || reads.domains || reads.optins ? reads : undefined;
}

/** The fields of a service a summary row carries; only for selections that ask no others (see `services`). */
export const serviceSummaryFields: ReadonlySet<string> = new Set(['__typename', 'id', 'network', 'userId', 'valid']);

export function toServiceSummary(row: ServiceSummaryRow): ServiceLink {
  return { id: row.id, network: row.network, userId: row.uid, valid: row.valid } as ServiceLink;
}

/** A member's domains across services: first and last visit over all of them. */
export function memberDomainsOf(rows: DomainRow[]): MemberDomain[] {
  const byDomain = new Map<string, MemberDomain>();
  for (const row of rows) {
    const seen = byDomain.get(row.domain);
    if (!seen) {
      byDomain.set(row.domain, { domain: row.domain, firstVisit: row.firstVisit, lastVisit: row.lastVisit, registered: row.registered });
      continue;
    }
    if (row.firstVisit < seen.firstVisit) seen.firstVisit = row.firstVisit;
    if (row.lastVisit > seen.lastVisit) seen.lastVisit = row.lastVisit;
    seen.registered ||= row.registered;
  }
  return [...byDomain.values()].sort((a, b) => a.firstVisit.getTime() - b.firstVisit.getTime());
}

/**
 * The Extended node of member show: the stored profile in the interface's own vocabulary, the
 * domains, one profile per linked network, and the account's custom fields. Never a password hash.
 */
export function extendedNode(row: MemberRow, services: ServiceLink[], domains: MemberDomain[]): Record<string, unknown> {
  const time = (date: Date | null) => (date ? formatTimestamp(date) : null);
  // The stored fields, then the profile's over them, as a spread would put them. A spread of a
  // profile with many custom fields followed by a dozen more rebuilds the object's shape property
  // by property: on Node 20, a page of 150 members with 60 custom fields took 4.2 ms and 10.7 KB a
  // member that way, 0.5 ms and 4.2 KB this way, and was a quarter of what a page of them allocated.
  // On a prototype-less object a stored "__proto__" stays a field, as with a spread.
  return Object.assign(Object.create(null) as Record<string, unknown>, row.extended, {
    aeid: row.id,
    uuid: row.uuid,
    created: time(row.createdAt),
    lastLogin: time(row.lastLoginAt),
    lastUpdated: time(row.updatedAt),
    givenName: row.firstName,
    familyName: row.surname,
    displayName: [row.firstName, row.surname].filter(Boolean).join(' ') || row.username,
    email: row.email,
    gender: row.gender,
    emailVerified: row.emailVerifiedAt !== null,
    cellPhone: row.mobilePhone,
    domains: domains.map((domain) => ({ domain: domain.domain, firstVisit: time(domain.firstVisit), lastVisit: time(domain.lastVisit) })),
    profiles: services
      .filter((service) => service.network !== 'email')
      .map((service) => ({
        domain: service.domains[0] ?? null,
        profile: { username: service.username, url: service.userUrl, followers: service.followers, likes: service.likes },
        accessCredentials: { accessToken: service.token, type: service.network, uid: service.userId, expires: time(service.expiresAt) },
        identifier: service.userId,
        paidAccount: service.paidAccount,
      })),
  });
}

/** Keeps the named (dotted) paths of a node; an empty list keeps everything. */
export function pickFields(node: Record<string, unknown>, fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields?.length) return node;
  const picked: Record<string, unknown> = {};
  for (const path of fields) {
    const parts = path.split('.');
    let source: unknown = node;
    for (const part of parts) source = source && typeof source === 'object' ? (source as Record<string, unknown>)[part] : undefined;
    if (source === undefined) continue;
    let target = picked;
    parts.slice(0, -1).forEach((part) => {
      target[part] = target[part] ?? {};
      target = target[part] as Record<string, unknown>;
    });
    target[parts.at(-1)!] = source;
  }
  return picked;
}
