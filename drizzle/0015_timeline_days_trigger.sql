-- Custom SQL migration file, put your code below! --
-- A change to the daily rollup of a day the timeline keeps marks that day stale (see timeline_days
-- in src/db/schema/scoring.ts). The change first takes the account's score-windows lock shared (the
-- lock of src/modules/scoring/score-windows.locks.ts, the same name hashed the same way): the worker
-- makes days holding it exclusively, so a change either is in the worker's snapshot or sees its
-- kept-day row and marks the day.
CREATE FUNCTION timeline_days_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('score-windows:' || a.account_id, 0))
  FROM (SELECT DISTINCT account_id FROM changed ORDER BY 1) a;
  INSERT INTO timeline_days_stale (account_id, day)
  SELECT DISTINCT c.account_id, c.day FROM changed c
  WHERE NOT c.one_time AND c.brand_id IS NOT NULL
    AND EXISTS (SELECT 1 FROM timeline_days_kept k WHERE k.account_id = c.account_id AND k.day = c.day)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER timeline_days_inserted AFTER INSERT ON member_activity_daily
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION timeline_days_changed();
--> statement-breakpoint
CREATE TRIGGER timeline_days_updated AFTER UPDATE ON member_activity_daily
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION timeline_days_changed();
--> statement-breakpoint
CREATE TRIGGER timeline_days_deleted AFTER DELETE ON member_activity_daily
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION timeline_days_changed();
