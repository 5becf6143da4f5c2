-- migrate_count_completed: fold v1's completed jobs into metrics:completed, each exactly once.
-- KEYS[1] emq:{q}:meta   field migration = the fencing token of the migrator that owns the queue
-- KEYS[2] emq:{q}:metrics:completed
-- ARGV[1] the caller's fencing token
-- ARGV[2] the number of completed v1 jobs now
-- Reply:  the count after the call. The field migrated_completed holds the number already folded in,
--         so a re-run after a crash adds nothing and a re-sync adds only the jobs v1 completed since.
--         EMQLOCK (nothing written) when the token is not the one held: another migrator took over.
--- @include "lease"
if not holds_lease(KEYS[1], 'migration', ARGV[1]) then
  return lease_lost()
end
local folded = tonumber(redis.call('HGET', KEYS[2], 'migrated_completed') or '0')
local now = tonumber(ARGV[2])
if now ~= folded then
  redis.call('HINCRBY', KEYS[2], 'count', now - folded)
  redis.call('HSET', KEYS[2], 'migrated_completed', ARGV[2])
end
return tonumber(redis.call('HGET', KEYS[2], 'count') or '0')
