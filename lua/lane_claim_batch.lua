-- lane_claim_batch: rotate the ring one step and lease the rotated lane a batch in one turn (the
-- reference's gbclaim): K = min(the lane's depth, its glimit headroom); every member comes from
-- that one lane and shares one lease deadline.
-- KEYS[1] emq:{q}:ring
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] lease in ms
-- Reply:  {} when paused or at meta.concurrency, the ring is empty or the lane had no job or no headroom (it leaves the
--         ring), else {{id, payload, attempts, group}, ...} in the lane's order.
--- @include "lane_turn"
local g, room = lane_turn(KEYS[1], KEYS[3], ARGV[1])
if not g then
  return room
end
local k = redis.call('ZCARD', lane_key(ARGV[1], g))
local served = serve(ARGV[1], g, headroom(ARGV[1], g, math.min(k, room)), tonumber(ARGV[2]))
count_claims(ARGV[1], #served)
return served
