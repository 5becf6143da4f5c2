-- migrate_journal_set: write fields of one queue's journal, fenced by the migrator's token.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token (from migrate_journal_lock acquire)
-- ARGV[2..] field, value, field, value, ...
-- Reply:  1; EMQLOCK when the token is not the current one (a zombie migrator).
-- Keeps expected_rows (the number of r: fields) exact: each r: field this call adds counts one, when
-- the journal has the counter (a journal begun before it had none until Expectations.count records it);
-- keeps carried_records (the number of dedup:, receipt: and scheduler: fields) exact the same way.
--- @include "lease"
--- @include "expected_rows"
--- @include "carried_records"
if not holds_lease(KEYS[1], 'lock_token', ARGV[1]) then
  return lease_lost()
end
-- every field goes in one HSET per chunk, whose reply counts the fields new to the journal; the
-- expectations among them are those less the other fields new to it, asked before the write (a call
-- recording expectations has none)
local others_new, carried_new = 0, 0
local asked = {}
for i = 2, #ARGV, 2 do
  local field = ARGV[i]
  if not is_expectation(field) and not asked[field] then
    asked[field] = true
    local new = 1 - redis.call('HEXISTS', KEYS[1], field)
    others_new = others_new + new
    if is_carried(field) then
      carried_new = carried_new + new
    end
  end
end
local CHUNK = 1000
local added = 0
for from = 2, #ARGV, CHUNK do
  added = added + redis.call('HSET', KEYS[1], unpack(ARGV, from, math.min(#ARGV, from + CHUNK - 1)))
end
count_expected_rows(KEYS[1], added - others_new)
count_carried(KEYS[1], carried_new)
return 1
