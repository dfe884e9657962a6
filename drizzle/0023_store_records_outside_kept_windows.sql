-- Custom SQL migration file, put your code below! ---- Lets a batch of records be stored in one statement, outside an explicit transaction, when none of
-- its records lies inside the span the kept score windows already cover (the common case: records
-- of now). Called by that statement after its insert, with the completion times of the repeatable
-- records it stored: takes the account's score-windows lock shared (held until the statement's
-- implicit transaction commits; the lock of src/modules/score-windows/score-windows.locks.ts, the
-- same name hashed the same way), then reads the coverage. The function is volatile, so that read
-- has a snapshot of its own, taken after the lock: a worker that moved the windows before the lock
-- was granted has committed, and its coverage is seen. A record inside the coverage would have to
-- be counted into the totals in the same transaction (countRecordsIn), which one statement cannot
-- do: the function then fails the statement with SQLSTATE MQW01 and nothing is stored; the caller
-- stores the batch again in a transaction that counts them (insertRecords).
CREATE FUNCTION score_windows_admit_records(account integer, completed timestamptz[]) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  covered_start timestamptz;
  covered_end timestamptz;
BEGIN
  IF completed IS NULL OR cardinality(completed) = 0 THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('score-windows:' || account, 0));
  SELECT min(covered_from), max(covered_until) INTO covered_start, covered_end
  FROM score_windows WHERE account_id = account;
  IF EXISTS (SELECT 1 FROM unnest(completed) AS t(at) WHERE t.at >= covered_start AND t.at < covered_end) THEN
    RAISE EXCEPTION 'records inside the kept score windows must be counted in a transaction'
      USING ERRCODE = 'MQW01';
  END IF;
END
$$;
