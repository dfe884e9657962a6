/**
 * A member's opt-ins as the members' pages read them with the member. The opt-ins are the segments
 * module's (optins.queries.ts writes and reads them); a page of members reads its members' current
 * opt-ins in its own statement, so the statement's fragment and its row live here, below segments.
 */

/** An opt-in with the names of its list, as every read of opt-ins answers it. */
export type OptInRow = {
  id: number;
  memberId: number;
  kind: 'brand' | 'segment' | 'global';
  brandId: number | null;
  segmentId: number | null;
  optedInAt: Date;
  optedOutAt: Date | null;
  brandName: string | null;
  segmentName: string | null;
  segmentLabel: string | null;
};

/**
 * Current opt-ins of one member as a JSON array, the same rows as `currentOptInsOf`
 * (segments/optins.queries.ts; opt-in times as text), as SQL text over the given account and member
 * expressions: for a page of members that reads them in its own statement.
 */
export function currentOptInsJson(accountId: string, memberId: string): string {
  return `select coalesce(json_agg(json_build_object('id', o.id, 'memberId', o.member_id, 'kind', o.kind, 'brandId', o.brand_id,
      'segmentId', o.segment_id, 'optedInAt', o.opted_in_at, 'optedOutAt', o.opted_out_at,
      'brandName', b.name, 'segmentName', s.name, 'segmentLabel', s.label) order by o.id), '[]'::json)
    from optins o
    left join brands b on b.id = o.brand_id and b.account_id = o.account_id
    left join segments s on s.id = o.segment_id and s.account_id = o.account_id
    where o.account_id = ${accountId} and o.member_id = ${memberId} and o.opted_out_at is null
      and (o.brand_id is null or b.deleted_at is null) and (o.segment_id is null or s.deleted_at is null)`;
}
