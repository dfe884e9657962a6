import type { OptInRecordFragment, PresaveJobRecordFragment, SegmentKind, SegmentRecordFragment } from '../../generated/graphql.js';
import { formatTimestamp, formatOptionalTimestamp as time } from '../../lib/time.js';

const kindNames: Record<SegmentKind, string> = { LIST: 'list', FILTER: 'filter' };

export function segmentRecord(segment: SegmentRecordFragment) {
  return {
    ID: segment.id,
    Name: segment.name,
    Label: segment.label,
    Type: kindNames[segment.kind],
    BrandID: segment.brandId,
    Filter: segment.filter,
    Created: formatTimestamp(new Date(segment.createdAt)),
  };
}

/**
 * The seed's opt-in record. SegmentID names the list opted into: the segment, or the brand for a
 * brand list; the global list has none.
 */
export function optInRecord(optIn: OptInRecordFragment) {
  return {
    ID: optIn.id,
    Type: optIn.kind === 'BRAND' ? 'Brand' : optIn.kind === 'SEGMENT' ? 'Segment' : 'Global',
    SegmentID: optIn.segmentId ?? optIn.brandId,
    Label: optIn.label,
    Name: optIn.name,
  };
}

/** A presave job: its items, its state, counts and the result for each member and network. */
export function presaveJobRecord(job: PresaveJobRecordFragment) {
  return {
    ID: job.id,
    SegmentID: job.segmentId,
    Status: job.status.toLowerCase(),
    Runs: String(job.runs),
    Items: job.items.map((item) => ({ Service: item.network, Type: item.kind.toLowerCase(), ID: item.id })),
    Created: formatTimestamp(new Date(job.createdAt)),
    Started: time(job.startedAt),
    Finished: time(job.finishedAt),
    Saved: String(job.counts.saved),
    Skipped: String(job.counts.skipped),
    Failed: String(job.counts.failed),
    Pending: String(job.counts.pending),
    Results: job.results.map((result) => ({
      MemberID: result.memberId,
      Service: result.network,
      Status: result.status.toLowerCase(),
      Reason: result.reason,
    })),
  };
}
