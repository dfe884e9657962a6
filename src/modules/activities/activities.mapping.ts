import { encodeCursor } from '../../core/connection.js';
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

/**
 * A page of records as a connection whose cursors are positions in the list: `rows` were read from
 * `start` with one row more than `limit`, which tells whether another page follows.
 */
export function recordPage(rows: readonly RecordRow[], limit: number, start: number, totalCount: () => Promise<number>) {
  const edges = rows.slice(0, limit).map((row, index) => ({ cursor: encodeCursor({ o: start + index }), node: toActivityRecord(row) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > limit,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}
