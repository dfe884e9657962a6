-- Custom SQL migration file, put your code below! --
-- Repairs what concurrent merges and opt-outs could leave behind, before the next migration adds
-- the check rules that forbid it.

-- Merge pointers that loop (a member merged into itself, or members merged into each other): the
-- lowest id of each loop is a member again, and the others of the loop point at it.
WITH RECURSIVE walk(start_id, at_id, seen) AS (
  SELECT id, merged_into_id, ARRAY[id] FROM members WHERE merged_into_id IS NOT NULL
  UNION ALL
  SELECT w.start_id, m.merged_into_id, w.seen || m.id
  FROM walk w JOIN members m ON m.id = w.at_id
  WHERE m.merged_into_id IS NOT NULL AND w.at_id <> w.start_id AND NOT (m.id = ANY (w.seen))
)
UPDATE members SET merged_into_id = NULL
WHERE id IN (SELECT (SELECT min(x) FROM unnest(seen) AS x) FROM walk WHERE at_id = start_id);
--> statement-breakpoint
-- Every merged member points straight at its survivor (a lookup follows a few pointers at most).
WITH RECURSIVE chain(id, root_id, depth) AS (
  SELECT id, merged_into_id, 1 FROM members WHERE merged_into_id IS NOT NULL
  UNION ALL
  SELECT c.id, m.merged_into_id, c.depth + 1
  FROM chain c JOIN members m ON m.id = c.root_id
  WHERE m.merged_into_id IS NOT NULL AND c.depth < 1000
)
UPDATE members SET merged_into_id = c.root_id
FROM chain c JOIN members r ON r.id = c.root_id AND r.merged_into_id IS NULL
WHERE members.id = c.id AND members.merged_into_id <> c.root_id;
--> statement-breakpoint
-- An opt-out stamped by the application's clock before the database's opt-in time.
UPDATE optins SET opted_out_at = opted_in_at WHERE opted_out_at < opted_in_at;
