-- Custom SQL migration file, put your code below! --
-- Databases whose per-member totals were kept before the activity totals: each covered window's
-- records per brand, member, activity and network, then the groups of the dimensions activity, type
-- and service made from them (the keys of src/modules/scoring/score-window-activities.queries.ts).
INSERT INTO score_window_activity_totals (account_id, window_id, brand_id, member_id, activity_id, service, activity_count)
SELECT w.account_id, w.window_id, r.brand_id, r.member_id, r.activity_id, coalesce(r.service, ''), count(*)::int
FROM score_windows w
JOIN activity_records r ON r.account_id = w.account_id AND r.completed_at >= w.covered_from AND r.completed_at < w.covered_until
WHERE NOT r.one_time AND r.brand_id IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6
ORDER BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
INSERT INTO score_window_groups (account_id, window_id, brand_id, dimension, key, members, activity_count)
SELECT account_id, window_id, brand_id, dimension, key, count(*)::int, sum(records)::int
FROM (
  SELECT a.account_id, a.window_id, a.brand_id, a.member_id, k.dimension, k.key, sum(a.activity_count) AS records
  FROM score_window_activity_totals a
  JOIN activity_definitions d ON d.account_id = a.account_id AND d.id = a.activity_id
  CROSS JOIN LATERAL (VALUES ('activity', a.activity_id::text), ('type', d.type), ('service', a.service)) AS k(dimension, key)
  GROUP BY 1, 2, 3, 4, 5, 6
) per_member
GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- Statistics for the planner now, not whenever autovacuum next looks (if it runs at all).
ANALYZE score_window_activity_totals;
--> statement-breakpoint
ANALYZE score_window_groups;
