import type { ActivityDefinitionFragment } from '../../generated/graphql.js';
import { formatOptionalTimestamp as time } from '../../lib/time.js';
import { activityTypeWords } from '../enums.js';

/** An activity definition as the `/v1.1` activity operations show it. */
export function activityDefinitionRecord(activity: ActivityDefinitionFragment) {
  return {
    ID: activity.id,
    Name: activity.name,
    ShortName: activity.shortName,
    Type: activityTypeWords.word(activity.type),
    Service: activity.service,
    BrandID: activity.brandId,
    Points: String(activity.points),
    OneTime: activity.oneTime ? '1' : '0',
    URL: activity.tracking.url,
    TrackIDs: activity.tracking.trackIds,
    AlbumIDs: activity.tracking.albumIds,
    Created: time(activity.createdAt),
  };
}
