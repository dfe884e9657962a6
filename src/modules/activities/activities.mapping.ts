import type { DefinitionRow, RecordRow } from './activities.queries.js';
import type { Activity, ActivityRecord } from './activities.types.js';
import type { ActivityType } from './activity-types.js';

export function toActivity(row: DefinitionRow): Activity {
  return {
    id: row.id,
    name: row.name,
    shortName: row.shortName,
    // Written only through the service's check (activityType), so always a word of the list.
    type: row.type as ActivityType,
    service: row.service,
    brandId: row.brandId,
    points: row.points,
    oneTime: row.oneTime,
    tracking: { url: row.tracking.url ?? null, trackIds: row.tracking.trackIds ?? [], albumIds: row.tracking.albumIds ?? [] },
    createdAt: row.createdAt,
  };
}

export function toActivityRecord(row: RecordRow): ActivityRecord {
  return {
    id: row.id,
    marker: row.marker,
    memberId: row.memberId,
    activityId: row.activityId,
    brandId: row.brandId,
    service: row.service,
    points: row.points,
    link: row.link,
    media: row.media,
    category: row.category,
    content: row.content,
    value: row.value,
    geo: row.geoCountry ? { country: row.geoCountry, city: row.geoCity, region: row.geoRegion, lat: row.geoLat, long: row.geoLong } : null,
    completedAt: row.completedAt,
    recordedAt: row.recordedAt,
  };
}
