-- migrate_v2_fence: the migrator's fence on one v2 queue, so a migrator whose lease lapsed can write nothing.
-- KEYS[1] emq:{q}:meta   field migration = the fencing token of the migrator that owns the queue
-- ARGV[1] op: claim | pause | resume | release
-- ARGV[2] the caller's fencing token (from migrate_journal_lock acquire; tokens only grow)
-- Reply:  claim   -> 1: the token is now the queue's (a newer token than the one held, or the same);
--         pause   -> 1 if meta.paused was already set, else 0 (it is set now);
--         resume  -> 1 (meta.paused deleted);
--         release -> 1 (the fence field deleted: the migration is over).
--         EMQLOCK when a newer token holds the queue (claim) or the caller's token is not the one held
--         (every other op): another migrator took over, and nothing was written.
--- @include "lease"
local held = redis.call('HGET', KEYS[1], 'migration')
if ARGV[1] == 'claim' then
  if held and tonumber(held) > tonumber(ARGV[2]) then
    return redis.error_reply('EMQLOCK lease lost: another migrator took over this queue (token ' .. held .. ' holds it)')
  end
  redis.call('HSET', KEYS[1], 'migration', ARGV[2])
  return 1
end
if held ~= ARGV[2] then
  return lease_lost()
end
if ARGV[1] == 'pause' then
  return redis.call('HSETNX', KEYS[1], 'paused', '1') == 1 and 0 or 1
end
if ARGV[1] == 'resume' then
  redis.call('HDEL', KEYS[1], 'paused')
  return 1
end
if ARGV[1] == 'release' then
  redis.call('HDEL', KEYS[1], 'migration')
  return 1
end
return redis.error_reply('EMQSTATE unknown fence op ' .. tostring(ARGV[1]))
