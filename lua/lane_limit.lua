-- lane_limit: set a lane's concurrency ceiling (glimit); at or below the jobs it has in flight
-- (gactive) the lane leaves the ring, above them it may rejoin it.
-- KEYS[1] emq:{q}:glimit
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] group
-- ARGV[3] limit (>= 1)
-- Reply:  1
-- Refuses: EMQSTATE when the limit is not an integer of at least 1 (nothing written).
--- @include "lanes"
local limit = tonumber(ARGV[3])
if not limit or limit < 1 or limit ~= math.floor(limit) then
  return redis.error_reply('EMQSTATE lane limit must be an integer of at least 1')
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
if lane_active(ARGV[1], ARGV[2]) >= limit then
  redis.call('LREM', ARGV[1] .. 'ring', 0, ARGV[2])
else
  ring_lane(ARGV[1], ARGV[2])
end
return 1
