import type { ListingMemberFragment, ListMembersQuery } from '../../generated/graphql.js';
import { ageInYears, formatOptionalTimestamp as time } from '../../lib/time.js';
import { displayName, isLoginNetwork } from '../../modules/networks/networks.js';
import { serviceRecord } from './members.js';
import { optInRecord } from './segments.js';

/** A member as a members listing's document selects it. */
export type ListingNode = ListMembersQuery['members']['edges'][number]['node'];

const age = (birthDate: string | null): string | null => (birthDate ? String(ageInYears(birthDate)) : null);

/** In listings a service names its network in full ("Spotify", "Last.fm") and tells when its token expires. */
function listingService(service: ListingMemberFragment['services'][number]) {
  return {
    ...serviceRecord(service),
    Service: isLoginNetwork(service.network) ? displayName(service.network) : service.network,
    Expires: time(service.expiresAt),
  };
}

/** The fields every listing item has. */
function commonItem(member: ListingMemberFragment) {
  return {
    ID: member.id,
    UUID: member.uuid,
    FirstName: member.firstName,
    Surname: member.surname,
    Username: member.username,
    Email: member.email,
    Gender: member.gender === 'OTHER' ? 'Other' : member.gender,
    Bio: member.bio,
    City: member.city,
    State: member.state,
    Country: member.country,
    Address: member.address,
    Addressline2: member.addressLine2,
    PostCode: member.postCode,
    HomePhone: member.homePhone,
    MobilePhone: member.mobilePhone,
    GeoCity: member.geo.city,
    GeoRegion: member.geo.region,
    GeoCountry: member.geo.country,
    GeoLat: member.geo.lat,
    GeoLong: member.geo.long,
    CountryCode: member.country,
    Services: member.services.map(listingService),
    // The seed shows null for a member without opt-ins in listings.
    OptIns: member.optins.length ? member.optins.map(optInRecord) : null,
    VerifiedEmail: member.verifiedEmail,
  };
}

export function activeListingItem(node: ListingNode, brand: ListMembersQuery['members']['brand']) {
  const last = node.lastActivity;
  return {
    ...commonItem(node),
    BrandName: brand?.name ?? null,
    BrandType: brand?.type ?? null,
    LastVisited: time(node.lastLoginAt),
    Score: String(node.score?.points ?? 0),
    ActivityCount: String(node.score?.activityCount ?? 0),
    BrandID: brand?.id ?? null,
    MemberAvatarURL: node.avatarUrl,
    LastActivity: last ? { ID: last.id, Name: last.activity.name, ActivityID: last.activityId, Content: last.content, Link: last.link, CompleteDate: time(last.completedAt) } : null,
    Brand: brand ? { ID: brand.id, Name: brand.name, Type: brand.type } : null,
  };
}

export function listingItem(node: ListingNode) {
  return {
    ...commonItem(node),
    BirthDate: node.birthDate,
    Age: age(node.birthDate),
    Joined: time(node.joinedAt),
    AvatarURL: node.avatarUrl,
    ...(node.extended ? { Extended: node.extended } : {}),
  };
}
