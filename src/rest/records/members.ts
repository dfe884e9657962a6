import type { LinkedServiceFragment, MemberRecordFragment, ServiceRecordFragment } from '../../generated/graphql.js';
import { formatOptionalTimestamp as time } from '../../lib/time.js';
import { optInRecord } from './segments.js';

const flag = (value: boolean) => (value ? '1' : '0');
const count = (value: number | null) => (value === null ? null : String(value));

export function serviceRecord(service: ServiceRecordFragment) {
  return serviceFields(service, { Token: service.token, TokenSecret: service.tokenSecret });
}

/**
 * A linked service without its network tokens, for `/v1.1/auth?details=1`: the interface shows
 * tokens in the envelopes of register, login, update and member show, never in the sign-in check,
 * whose answer reaches the application's server from a widget sign-in.
 */
export function linkedServiceRecord(service: LinkedServiceFragment) {
  return serviceFields(service, {});
}

/** The service record's fields in the seed's order, the tokens (or none) in their place. */
function serviceFields(service: LinkedServiceFragment, tokens: { Token?: string | null; TokenSecret?: string | null }) {
  return {
    Service: service.network,
    Valid: flag(service.valid),
    ActivitySharing: flag(service.activitySharing),
    ID: service.id,
    UserID: service.userId,
    Username: service.username,
    UserURL: service.userUrl,
    ...tokens,
    LastUpdated: time(service.lastUpdated),
    LastLogin: time(service.lastLogin),
    VerifiedEmail: service.verifiedEmail,
    PaidAccount: flag(service.paidAccount),
    Followers: count(service.followers),
    Likes: count(service.likes),
    PartnerCode: service.partnerCode,
    PartnerID: service.partnerId,
    Domains: service.domains,
  };
}

/** A member's profile as the member record reads it, whatever else the document selects. */
export type MemberProfile = Omit<MemberRecordFragment, 'services' | 'optins'>;

/** The member record of the seed: ID is a number; every other value a string or null. */
export function memberRecord(member: MemberProfile) {
  return {
    ID: Number(member.id),
    Email: member.email,
    FirstName: member.firstName,
    Surname: member.surname,
    Username: member.username,
    Gender: member.gender === 'OTHER' ? 'Other' : member.gender,
    Bio: member.bio,
    AccessToken: member.accessToken,
    AvatarURL: member.avatarUrl,
    Country: member.country,
    City: member.city,
    State: member.state,
    PostCode: member.postCode,
    // Not in the seed's record: the website update stores is read back here.
    Website: member.website,
    CountryCode: member.country,
    GeoCountry: member.geo.country,
    GeoCity: member.geo.city,
    GeoRegion: member.geo.region,
    GeoLat: member.geo.lat,
    GeoLong: member.geo.long,
    VerifiedEmail: member.verifiedEmail,
  };
}

/** `{data, optins, services, jwt}`: optins are the member's current opt-ins, empty when none. */
export function envelopeBody(member: MemberRecordFragment, jwt: string | null, data: Record<string, unknown> = memberRecord(member)) {
  return { data, optins: member.optins.map(optInRecord), services: member.services.map(serviceRecord), jwt };
}
