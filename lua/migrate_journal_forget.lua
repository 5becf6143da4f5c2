-- migrate_journal_forget: delete fields of one queue's journal, fenced by the migrator's token.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token
-- ARGV[2..] fields to delete (history rows on repair; the identity mapping on abandon)
-- Reply:  the number of fields deleted; EMQLOCK when the token is not the current one.
--- @include "lease"
if not holds_lease(KEYS[1], 'lock_token', ARGV[1]) then
  return lease_lost()
end
if #ARGV < 2 then
  return 0
end
return redis.call('HDEL', KEYS[1], unpack(ARGV, 2))
