/**
 * The six months of activity records, generated inside PostgreSQL: one `INSERT … SELECT` per range
 * of record numbers over `generate_series`, each record's random choices drawn from
 * `hashint8extended(record number, seed + k)`, a 64-bit hash, so a seed gives the same records
 * whichever session builds which range, and in any order.
 *
 * The distributions are those of the Node generator it replaces:
 * - the member is the one at rank ⌊members · u³⌋ of a shuffled ranking (`ranks` table), so a few
 *   members do most of the activity and the busiest are spread over the id range;
 * - the brand is the member's favourite 70 % of the time, otherwise any brand;
 * - the activity is Listened, Watched, Shared or Visited in the proportions 10 : 5 : 2 : 3;
 * - the day is one of the last `weeks` whole weeks (26 unless the plan says: 182 days), with weekends weighing 1, Fridays 0.85 and
 *   other days 0.6; the hour is min(23, ⌊8 + 10u + 6u′⌋), minute and second uniform. A time later
 *   than now (today, late hours) moves one week back, to the same weekday;
 * - a listen carries `{ track: "Track 1…500", artist: "Brand <id>" }`; recorded one second after.
 *
 * Each range is inserted in time order. A live database stores records about when they happen, so
 * the records of an hour sit on a few pages of the table; drawn in random order, every record of
 * a span of time was on a page of its own, and reads by time (the kept windows' folds and
 * corrections, the feed) read a page per record (docs/performance.md, "The data's order on disk").
 */

export interface RecordsPlan {
  accountId: number;
  seed: number;
  memberCount: number;
  brandCount: number;
  /** Milliseconds since the epoch: the generator's "now". */
  now: number;
  /** Schema holding `ranks (rank, member_id, favourite)` and `definitions (brand_index, kind, …)`. */
  scratch: string;
  /** How many whole weeks back the records go; 26 (six months) by default. */
  weeks?: number;
}

/** The kinds of repeatable activity, in the order the `definitions` table numbers them. */
export const repeatableKinds = ['Listened', 'Watched', 'Shared', 'Visited'] as const;
/** Weight of each repeatable kind, in the same order. */
const kindWeights = [10, 5, 2, 3];

const mask21 = 2 ** 21 - 1;
/** The n-th 21-bit slice of a 64-bit hash, as a uniform number in [0, 1). */
const slice = (hash: string, n: number) => `(((${hash} >> ${21 * n}) & ${mask21})::float8 / ${2 ** 21})`;
/** The low 53 bits of a hash, as a uniform number in [0, 1). */
const wide = (hash: string) => `((${hash} & ${2 ** 53 - 1})::float8 / ${2 ** 53})`;
/** `case` over cumulative thresholds: the index of the first threshold above `u`. */
const bucket = (u: string, weights: number[]) => {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let running = 0;
  const arms = weights.slice(0, -1).map((weight, index) => {
    running += weight;
    return `when ${u} < ${running / total} then ${index}`;
  });
  return `case ${arms.join(' ')} else ${weights.length - 1} end`;
};

/** Weight of a day by its weekday (0 Sunday … 6 Saturday): weekends busier, Fridays nearly. */
export const dayWeight = (weekday: number) => (weekday === 0 || weekday === 6 ? 1 : weekday === 5 ? 0.85 : 0.6);

/** The statement that inserts records number `from` to `to` (inclusive). */
export function recordsStatement(plan: RecordsPlan, from: number, to: number): string {
  const seed = (k: number) => plan.seed * 16 + k;
  const dayMs = 86_400_000;
  const midnight = Math.floor(plan.now / dayMs) * 86_400;
  const nowSeconds = plan.now / 1000;
  const today = new Date(plan.now).getUTCDay();
  // Day offsets 7w + k (w < weeks, k < 7) cover the weeks' days, every weekday once a week: pick
  // the week uniformly and k in proportion to the weight of the weekday it falls on.
  const weeks = plan.weeks ?? 26;
  const weekdayWeights = Array.from({ length: 7 }, (_, k) => dayWeight((today - k + 7) % 7));
  return `
    insert into activity_records (account_id, member_id, activity_id, brand_id, service, points, one_time, content, completed_at, recorded_at)
    select ${plan.accountId}, m.member_id, d.activity_id, d.brand_id, d.service, d.points, false,
      case when g.kind = 0 then jsonb_build_object('track', 'Track ' || (1 + floor(500 * ${slice(`hashint8extended(g.i, ${seed(5)})`, 0)}))::int, 'artist', 'Brand ' || d.brand_id) end,
      to_timestamp(g.at), to_timestamp(g.at + 1)
    from (
      select i, rank, favourite, other, kind, case when at >= ${nowSeconds} then at - 604800 else at end as at
      from (
        select i,
          floor(${plan.memberCount} * power(${wide('h1')}, 3))::int as rank,
          ${slice('h2', 0)} < 0.7 as favourite,
          floor(${plan.brandCount} * ${slice('h2', 1)})::int as other,
          ${bucket(slice('h2', 2), kindWeights)} as kind,
          ${midnight} - 86400 * (7 * floor(${weeks} * ${slice('h3', 0)}) + ${bucket(slice('h3', 1), weekdayWeights)})
            + 3600 * least(23, floor(8 + 10 * ${slice('h3', 2)} + 6 * ${slice('h4', 0)}))
            + 60 * floor(60 * ${slice('h4', 1)}) + floor(60 * ${slice('h4', 2)}) as at
        from (
          select i, hashint8extended(i, ${seed(1)}) as h1, hashint8extended(i, ${seed(2)}) as h2,
            hashint8extended(i, ${seed(3)}) as h3, hashint8extended(i, ${seed(4)}) as h4
          from generate_series(${from}::bigint, ${to}::bigint) as i
          offset 0
        ) h
        offset 0
      ) c
      offset 0
    ) g
    join ${plan.scratch}.ranks m on m.rank = g.rank
    join ${plan.scratch}.definitions d on d.kind = g.kind and d.brand_index = case when g.favourite then m.favourite else g.other end
    order by g.at`;
}
