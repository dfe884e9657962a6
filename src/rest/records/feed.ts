import type { FeedItemFragment } from '../../generated/graphql.js';
import { formatTimestamp } from '../../lib/time.js';
import { activityTypeWords } from '../enums.js';

/** A record as the seed's activity feed item. */
export function feedItem(record: FeedItemFragment) {
  const name = [record.member.firstName, record.member.surname].filter(Boolean).join(' ');
  return {
    ID: record.id,
    Marker: record.marker,
    BrandID: record.brandId,
    BrandName: record.brand?.name ?? null,
    Link: record.link,
    Media: record.media,
    Category: record.category,
    Content: record.content,
    CompleteDate: formatTimestamp(new Date(record.completedAt)),
    Name: record.activity.name,
    ShortName: record.activity.shortName,
    // Where the action happened, from the ip it was recorded with (null without one).
    GeoData: record.geo ? { Country: record.geo.country, City: record.geo.city, Region: record.geo.region, Lat: record.geo.lat, Long: record.geo.long } : null,
    MemberName: name || null,
    Value: record.value === null ? null : String(record.value),
    ActivityID: record.activityId,
    ActivityType: activityTypeWords.word(record.activity.type),
    ServiceType: record.service,
    MemberID: record.memberId,
    ServiceUserName: record.serviceUser?.username ?? null,
    RemoteUserURL: record.serviceUser?.userUrl ?? null,
    ServiceUserID: record.serviceUser?.userId ?? null,
    MemberEmail: record.member.email,
    Username: record.member.username,
    MemberAvatarURL: record.member.avatarUrl,
  };
}
