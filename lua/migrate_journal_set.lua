-- migrate_journal_set: write fields of one queue's journal, fenced by the migrator's token.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token (from migrate_journal_lock acquire)
-- ARGV[2..] field, value, field, value, ...
-- Reply:  1; EMQLOCK when the token is not the current one (a zombie migrator).
-- Keeps expected_rows (the number of r: fields) exact: each r: field this call adds counts one, when
-- the journal has the counter (a journal begun before it had none until Expectations.count records it).
--- @include "lease"
--- @include "expected_rows"
if not holds_lease(KEYS[1], 'lock_token', ARGV[1]) then
  return lease_lost()
end
-- expectations and other fields go in one HSET each per chunk: its reply counts the expectations added
local expected, other = {}, {}
for i = 2, #ARGV, 2 do
  local into = is_expectation(ARGV[i]) and expected or other
  into[#into + 1] = ARGV[i]
  into[#into + 1] = ARGV[i + 1]
end
local CHUNK = 1000
local added = 0
for from = 1, #expected, CHUNK do
  added = added + redis.call('HSET', KEYS[1], unpack(expected, from, math.min(#expected, from + CHUNK - 1)))
end
for from = 1, #other, CHUNK do
  redis.call('HSET', KEYS[1], unpack(other, from, math.min(#other, from + CHUNK - 1)))
end
count_expected_rows(KEYS[1], added)
return 1
