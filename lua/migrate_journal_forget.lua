-- migrate_journal_forget: delete fields of one queue's journal, fenced by the migrator's token.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token
-- ARGV[2..] fields to delete (history rows on repair; the identity mapping on abandon)
-- Reply:  the number of fields deleted; EMQLOCK when the token is not the current one.
-- Keeps expected_rows and carried_records exact: each r: (dedup:, receipt:, scheduler:) field deleted counts one off
-- (see migrate_journal_set).
--- @include "lease"
--- @include "expected_rows"
--- @include "carried_records"
if not holds_lease(KEYS[1], 'lock_token', ARGV[1]) then
  return lease_lost()
end
local deleted, forgotten, uncarried = 0, 0, 0
for i = 2, #ARGV do
  local gone = redis.call('HDEL', KEYS[1], ARGV[i])
  deleted = deleted + gone
  if is_expectation(ARGV[i]) then
    forgotten = forgotten + gone
  elseif is_carried(ARGV[i]) then
    uncarried = uncarried + gone
  end
end
count_expected_rows(KEYS[1], -forgotten)
count_carried(KEYS[1], -uncarried)
return deleted
