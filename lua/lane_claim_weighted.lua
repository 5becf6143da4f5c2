-- lane_claim_weighted: rotate the ring one step and lease the rotated lane its fair share in one
-- turn (the reference's gwclaim): K = min(gweight of the lane (absent or < 1 counts 1), its depth,
-- its glimit headroom); the K jobs share one lease deadline.
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
local w = tonumber(redis.call('HGET', ARGV[1] .. 'gweight', g) or '1') or 1
if w < 1 then
  w = 1
end
local k = math.min(w, redis.call('ZCARD', lane_key(ARGV[1], g)))
local served = serve(ARGV[1], g, headroom(ARGV[1], g, math.min(k, room)), tonumber(ARGV[2]))
count_claims(ARGV[1], #served)
return served
