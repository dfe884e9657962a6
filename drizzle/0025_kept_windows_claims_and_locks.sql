-- Custom SQL migration file, put your code below! --
-- The kept score windows' worker no longer makes records of now wait while it folds (see
-- src/modules/score-windows/score-windows.locks.ts). Its old lock, `score-windows:<account>`, is
-- split in two: `timeline-days:<account>`, which rollup changes take shared (the trigger below)
-- and the worker takes exclusively while it makes kept timeline days; and `score-coverage:<account>`,
-- which the worker holds exclusively while it folds and transactions that count records into the
-- totals hold shared. A batch stored in one statement takes neither of the two beyond the trigger's:
-- it takes `score-claims:<account>` shared and is admitted when every repeatable record completes
-- at or after the account's claim (score_window_claims), which the worker moves, holding that lock
-- exclusively for a moment, before each fold. Lock names are hashed as db/transaction-lock.ts does.

-- Accounts whose windows are covered already: their coverage is their claim.
INSERT INTO score_window_claims (account_id, claimed_until)
SELECT account_id, max(covered_until) FROM score_windows GROUP BY account_id
ON CONFLICT (account_id) DO NOTHING;
--> statement-breakpoint
-- Called by the one-statement insert after it stored records, with the completion times of the
-- repeatable ones. The lock is held until the statement's implicit transaction commits, so a
-- worker's next claim waits for the records and its fold sees them. The function is volatile, so
-- the claim is read in a snapshot of its own, taken after the lock. A record before the claim
-- may lie in a stretch a fold is counting now, or has counted: it has to be stored in a
-- transaction that waits for the fold and counts it (countRecordsIn). The function then fails the
-- statement with SQLSTATE MQW01 and nothing is stored; the caller stores the batch again that way.
CREATE OR REPLACE FUNCTION score_windows_admit_records(account integer, completed timestamptz[]) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  claimed timestamptz;
BEGIN
  IF completed IS NULL OR cardinality(completed) = 0 THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('score-claims:' || account, 0));
  SELECT claimed_until INTO claimed FROM score_window_claims WHERE account_id = account;
  IF EXISTS (SELECT 1 FROM unnest(completed) AS t(at) WHERE t.at < claimed) THEN
    RAISE EXCEPTION 'records before the kept score windows'' claim must be counted in a transaction'
      USING ERRCODE = 'MQW01';
  END IF;
END
$$;
--> statement-breakpoint
-- A change to the daily rollup of a day the timeline keeps marks that day stale, as before; the
-- lock it takes first is now `timeline-days`, which the worker holds exclusively while it makes
-- days: a change either is in the worker's snapshot or sees its kept-day row and marks the day.
CREATE OR REPLACE FUNCTION timeline_days_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('timeline-days:' || a.account_id, 0))
  FROM (SELECT DISTINCT account_id FROM changed ORDER BY 1) a;
  INSERT INTO timeline_days_stale (account_id, day)
  SELECT DISTINCT c.account_id, c.day FROM changed c
  WHERE NOT c.one_time AND c.brand_id IS NOT NULL
    AND EXISTS (SELECT 1 FROM timeline_days_kept k WHERE k.account_id = c.account_id AND k.day = c.day)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
