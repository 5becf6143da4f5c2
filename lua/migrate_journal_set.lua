-- migrate_journal_set: write fields of one queue's journal, fenced by the migrator's token.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token (from migrate_journal_lock acquire)
-- ARGV[2..] field, value, field, value, ...
-- Reply:  1; EMQLOCK when the token is not the current one (a zombie migrator).
--- @include "lease"
if not holds_lease(KEYS[1], 'lock_token', ARGV[1]) then
  return lease_lost()
end
if #ARGV > 1 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 2))
end
return 1
