-- lane_claim: rotate the ring one step and lease the head of that lane (the reference's gclaim).
-- KEYS[1] emq:{q}:ring
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:   the queue base (lanes, job rows, gactive and glimit are derived from it)
-- ARGV[2] lease in ms (the lease ends at server TIME + lease)
-- Reply:  {} when the queue is paused (meta.paused) or at meta.concurrency, the ring is empty or the rotated lane had
--         nothing to serve (it leaves the ring), else {id, payload, attempts, group}; attempts is
--         the fencing token. The lane leaves the ring when it is empty or reached its glimit.
--- @include "lane_turn"
local g, room = lane_turn(KEYS[1], KEYS[3], ARGV[1])
if not g then
  return room
end
local served = serve(ARGV[1], g, 1, tonumber(ARGV[2]))
count_claims(ARGV[1], #served)
if #served == 0 then
  return {}
end
return served[1]
