-- migrate_count_completed: fold v1's finished jobs into the v2 metrics, each exactly once: the completed jobs
-- into metrics:completed, the failed ones (each a dead row) into metrics:failed.
-- KEYS[1] emq:{q}:meta   field migration = the fencing token of the migrator that owns the queue
-- KEYS[2..n] a metrics hash each: emq:{q}:metrics:completed, emq:{q}:metrics:failed
-- ARGV[1] the caller's fencing token
-- ARGV[2i-2], ARGV[2i-1] for KEYS[i]: the field that holds the number already folded into it (migrated_completed,
--         migrated_failed), and the number of such v1 jobs now
-- Reply:  the counts after the call, one a metrics hash. The folded field makes a re-run after a crash add nothing
--         and a re-sync add only the jobs v1 finished since (or take back those it no longer lists).
--         EMQLOCK (nothing written) when the token is not the one held: another migrator took over.
--- @include "lease"
if not holds_lease(KEYS[1], 'migration', ARGV[1]) then
  return lease_lost()
end
local counts = {}
for i = 2, #KEYS do
  local field, now = ARGV[2 * i - 2], ARGV[2 * i - 1]
  local folded = tonumber(redis.call('HGET', KEYS[i], field) or '0')
  if tonumber(now) ~= folded then
    redis.call('HINCRBY', KEYS[i], 'count', tonumber(now) - folded)
    redis.call('HSET', KEYS[i], field, now)
  end
  counts[i - 1] = tonumber(redis.call('HGET', KEYS[i], 'count') or '0')
end
return counts
