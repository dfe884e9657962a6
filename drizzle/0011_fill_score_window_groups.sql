-- Custom SQL migration file, put your code below! --
-- Databases whose per-member totals were kept before the groups: the groups of every per-brand
-- total, by each member's profile now (the keys of src/modules/scoring/score-window-groups.queries.ts).
INSERT INTO score_window_groups (account_id, window_id, brand_id, dimension, key, members, activity_count)
SELECT t.account_id, t.window_id, t.brand_id, k.dimension, k.key, count(*)::int, sum(t.activity_count)::int
FROM score_window_totals t
JOIN members m ON m.account_id = t.account_id AND m.id = t.member_id
CROSS JOIN LATERAL (VALUES ('country', coalesce(upper(m.country), '')), ('gender', coalesce(m.gender::text, '')),
  ('birth_date', coalesce(m.birth_date::text, ''))) AS k(dimension, key)
WHERE t.brand_id <> 0
GROUP BY 1, 2, 3, 4, 5;
