--- @include "lane_serve"
--- @include "limits"
-- lane_turn(ring, meta, base): the lane whose turn it is (the ring rotated one step) and how many
-- claims the queue's limits allow now; or false and the reply a lane claim gives instead: empty
-- when the queue is paused (meta.paused), at meta.concurrency or nothing rings, the EMQRATE refusal
-- while the rate limit's window is spent.
local function lane_turn(ring, meta, base)
  if redis.call('HEXISTS', meta, 'paused') == 1 or redis.call('LLEN', ring) == 0 then
    return false, {}
  end
  local room, ttl = allowance(base, math.huge)
  if ttl > 0 then
    return false, rate_limited(ttl)
  end
  if room == 0 then
    return false, {}
  end
  local g = rotate(base)
  if not g then
    return false, {}
  end
  return g, room
end
