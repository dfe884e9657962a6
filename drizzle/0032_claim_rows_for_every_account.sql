-- Custom SQL migration file, put your code below! ---- Every account has its row of score_window_claims from its creation, claiming nothing
-- ('-infinity') until the worker's first claim: a statement that stores records holds that row
-- `for share`, so the first claim waits for those records as every later one does, and a new
-- account's records are stored in one statement instead of a transaction (docs/kept-data.md).
-- Accounts made before this get theirs here. Each insert names one account, as on a Citus
-- cluster a statement on a distributed table reading the accounts reference table would not.
DO $$
DECLARE
  a integer;
BEGIN
  FOR a IN SELECT id FROM accounts ORDER BY id LOOP
    INSERT INTO score_window_claims (account_id, claimed_until) VALUES (a, '-infinity') ON CONFLICT (account_id) DO NOTHING;
  END LOOP;
END
$$;
