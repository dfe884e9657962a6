-- Members registered without a username get one, by the rule new registrations follow
-- (src/modules/members/usernames.ts): the email's local part with accents dropped, lower case,
-- only a-z 0-9 . _ - kept, at most 30 characters, `member` when nothing is left; the oldest member
-- of a base gets the base itself unless another member of the account already has it (in any case),
-- the others `<base>-<id>`. Members merged into another keep no name of their own.
-- The names taken are joined, not looked up by a correlated subquery, which a Citus cluster refuses.
with candidates as (
  select account_id, id,
         coalesce(nullif(left(regexp_replace(lower(normalize(split_part(coalesce(email, ''), '@', 1), NFKD)), '[^a-z0-9._-]', '', 'g'), 30), ''), 'member') as base
  from members
  where username is null and merged_into_id is null
), taken as (
  select account_id, lower(username) as name from members where username is not null group by account_id, lower(username)
), ranked as (
  select c.account_id, c.id, c.base,
         row_number() over (partition by c.account_id, c.base order by c.id) as rank,
         t.name is not null as taken
  from candidates c left join taken t on t.account_id = c.account_id and t.name = c.base
)
update members m
set username = case when r.rank = 1 and not r.taken then r.base else r.base || '-' || r.id::text end
from ranked r
where m.account_id = r.account_id and m.id = r.id;
