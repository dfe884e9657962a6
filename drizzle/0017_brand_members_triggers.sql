-- Custom SQL migration file, put your code below! --
-- The brand's members (brand_members, src/db/schema/catalogue.ts) follow the daily rollup and the
-- opt-ins. A pair that appears is added in the same transaction, with a delta row in
-- brand_member_counts; a pair that may have ended is queued in brand_member_rechecks, which readers
-- correct for and the score windows worker settles (src/modules/brands/brand-members.queries.ts).
CREATE FUNCTION brand_members_add(account_ids integer[], brand_ids integer[], member_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(account_ids), 0) = 0 THEN RETURN; END IF;
  -- Held shared until the transaction ends: the worker settles rechecks holding it exclusively, so
  -- it never removes a pair whose new rollup row or opt-in is still uncommitted.
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('brand-members:' || s.a, 0))
  FROM (SELECT DISTINCT a FROM unnest(account_ids) a ORDER BY 1) s;
  WITH added AS (
    INSERT INTO brand_members (account_id, brand_id, member_id)
    SELECT DISTINCT p.a, p.b, p.m FROM unnest(account_ids, brand_ids, member_ids) p(a, b, m) ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING
    RETURNING account_id, brand_id)
  INSERT INTO brand_member_counts (account_id, brand_id, members)
  SELECT account_id, brand_id, count(*) FROM added GROUP BY account_id, brand_id;
END
$$;
--> statement-breakpoint
CREATE FUNCTION brand_members_recheck(account_ids integer[], brand_ids integer[], member_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(account_ids), 0) = 0 THEN RETURN; END IF;
  INSERT INTO brand_member_rechecks (account_id, brand_id, member_id)
  SELECT DISTINCT p.a, p.b, p.m FROM unnest(account_ids, brand_ids, member_ids) p(a, b, m)
  ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING;
END
$$;
--> statement-breakpoint
CREATE FUNCTION brand_members_rollup_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM brand_members_add(array_agg(p.account_id), array_agg(p.brand_id), array_agg(p.member_id))
  FROM (SELECT DISTINCT account_id, brand_id, member_id FROM added WHERE brand_id IS NOT NULL) p;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Row by row, and only for updates that set the member or the brand: recordings add to a row's
-- counts (its pairs stay as they were), and this trigger is not even called for them.
CREATE FUNCTION brand_members_rollup_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.brand_id IS NOT NULL THEN
    PERFORM brand_members_add(ARRAY[NEW.account_id], ARRAY[NEW.brand_id], ARRAY[NEW.member_id]);
  END IF;
  IF OLD.brand_id IS NOT NULL THEN
    PERFORM brand_members_recheck(ARRAY[OLD.account_id], ARRAY[OLD.brand_id], ARRAY[OLD.member_id]);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION brand_members_rollup_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM brand_members_recheck(array_agg(p.account_id), array_agg(p.brand_id), array_agg(p.member_id))
  FROM (SELECT DISTINCT account_id, brand_id, member_id FROM removed WHERE brand_id IS NOT NULL) p;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION brand_members_optins_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM brand_members_add(array_agg(p.account_id), array_agg(p.brand_id), array_agg(p.member_id))
  FROM (SELECT DISTINCT account_id, brand_id, member_id FROM added WHERE brand_id IS NOT NULL AND opted_out_at IS NULL) p;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION brand_members_optins_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM brand_members_add(array_agg(p.a), array_agg(p.b), array_agg(p.m)) FROM (
    SELECT account_id a, brand_id b, member_id m FROM after_rows WHERE brand_id IS NOT NULL AND opted_out_at IS NULL
    EXCEPT SELECT account_id, brand_id, member_id FROM before_rows WHERE brand_id IS NOT NULL AND opted_out_at IS NULL) p;
  PERFORM brand_members_recheck(array_agg(p.a), array_agg(p.b), array_agg(p.m)) FROM (
    SELECT account_id a, brand_id b, member_id m FROM before_rows WHERE brand_id IS NOT NULL AND opted_out_at IS NULL
    EXCEPT SELECT account_id, brand_id, member_id FROM after_rows WHERE brand_id IS NOT NULL AND opted_out_at IS NULL) p;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION brand_members_optins_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM brand_members_recheck(array_agg(p.account_id), array_agg(p.brand_id), array_agg(p.member_id))
  FROM (SELECT DISTINCT account_id, brand_id, member_id FROM removed WHERE brand_id IS NOT NULL AND opted_out_at IS NULL) p;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER brand_members_rollup_inserted AFTER INSERT ON member_activity_daily
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION brand_members_rollup_inserted();
--> statement-breakpoint
CREATE TRIGGER brand_members_rollup_moved AFTER UPDATE OF member_id, brand_id ON member_activity_daily
  FOR EACH ROW WHEN (OLD.member_id IS DISTINCT FROM NEW.member_id OR OLD.brand_id IS DISTINCT FROM NEW.brand_id)
  EXECUTE FUNCTION brand_members_rollup_moved();
--> statement-breakpoint
CREATE TRIGGER brand_members_rollup_deleted AFTER DELETE ON member_activity_daily
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION brand_members_rollup_deleted();
--> statement-breakpoint
CREATE TRIGGER brand_members_optins_inserted AFTER INSERT ON optins
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION brand_members_optins_inserted();
--> statement-breakpoint
CREATE TRIGGER brand_members_optins_updated AFTER UPDATE ON optins
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION brand_members_optins_updated();
--> statement-breakpoint
CREATE TRIGGER brand_members_optins_deleted AFTER DELETE ON optins
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION brand_members_optins_deleted();
--> statement-breakpoint
-- Existing data: every pair of the rollup and the current opt-ins, and one count row per brand.
INSERT INTO brand_members (account_id, brand_id, member_id)
SELECT account_id, brand_id, member_id FROM member_activity_daily WHERE brand_id IS NOT NULL
UNION
SELECT account_id, brand_id, member_id FROM optins WHERE brand_id IS NOT NULL AND opted_out_at IS NULL;
--> statement-breakpoint
INSERT INTO brand_member_counts (account_id, brand_id, members)
SELECT account_id, brand_id, count(*) FROM brand_members GROUP BY account_id, brand_id;
--> statement-breakpoint
-- Autovacuum may be off where this runs; the readers' plans need statistics at once.
ANALYZE brand_members;
--> statement-breakpoint
ANALYZE brand_member_counts;
