-- lane_claim_batch: rotate the ring one step and lease the rotated lane a batch in one turn (the
-- reference's gbclaim): K = min(the lane's depth, its glimit headroom); every member comes from
-- that one lane and shares one lease deadline.
-- KEYS[1] emq:{q}:ring
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] lease in ms
-- Reply:  {} when paused, the ring is empty or the lane had no job or no headroom (it leaves the
--         ring), else {{id, payload, attempts, group}, ...} in the lane's order.
--- @include "lane_serve"
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then
  return {}
end
local g = rotate(ARGV[1])
if not g then
  return {}
end
local k = redis.call('ZCARD', lane_key(ARGV[1], g))
return serve(ARGV[1], g, headroom(ARGV[1], g, k), tonumber(ARGV[2]))
