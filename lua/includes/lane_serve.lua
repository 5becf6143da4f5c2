--- @include "server_time"
--- @include "lanes"
--- @include "claimable"
-- rotate(base): move the ring's head lane to its tail and return it (false: the ring is empty).
local function rotate(base)
  return redis.call('LMOVE', base .. 'ring', base .. 'ring', 'LEFT', 'RIGHT')
end

-- headroom(base, g, want): want clamped to lane g's glimit headroom (want when it has no limit).
local function headroom(base, g, want)
  local lim = lane_limit(base, g)
  if not lim then
    return want
  end
  local room = lim - lane_active(base, g)
  if room < want then
    return room
  end
  return want
end

-- serve(base, g, k, lease_ms): lease the k oldest claimable jobs of lane g to the caller on one
-- deadline (every row read before the first write; a row no claim can count is dead-lettered on
-- the way, see claimable), count them in gactive, and take the lane off the ring when it is empty
-- or at its limit. A lane with nothing to serve (k < 1) leaves the ring.
-- Returns {{id, payload, attempts, group}, ...}.
local function serve(base, g, k, lease_ms)
  local lane = lane_key(base, g)
  if k < 1 then
    redis.call('LREM', base .. 'ring', 0, g)
    return {}
  end
  local good, bad = claimable(lane, base .. 'job:', k)
  local served = lease(lane, base, good, bad, server_ms() + lease_ms)
  for _, s in ipairs(served) do
    s[4] = g
  end
  if #served > 0 then
    add_active(base, g, #served)
  end
  local lim = lane_limit(base, g)
  if (lim and lane_active(base, g) >= lim) or redis.call('ZCARD', lane) == 0 then
    redis.call('LREM', base .. 'ring', 0, g)
  end
  return served
end
