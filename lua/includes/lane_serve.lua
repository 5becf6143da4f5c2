--- @include "server_time"
--- @include "lanes"
-- rotate(base): move the ring's head lane to its tail and return it (false: the ring is empty).
local function rotate(base)
  return redis.call('LMOVE', base .. 'ring', base .. 'ring', 'LEFT', 'RIGHT')
end

-- headroom(base, g, want): want clamped to lane g's glimit headroom (want when it has no limit).
local function headroom(base, g, want)
  local lim = redis.call('HGET', base .. 'glimit', g)
  if not lim then
    return want
  end
  local room = tonumber(lim) - tonumber(redis.call('HGET', base .. 'gactive', g) or '0')
  if room < want then
    return room
  end
  return want
end

-- serve(base, g, k, lease): lease the k oldest jobs of lane g to the caller on one deadline, count
-- them in gactive, and take the lane off the ring when it is empty or at its limit. A lane with
-- nothing to serve (k < 1) leaves the ring. Returns {{id, payload, attempts, group}, ...}.
local function serve(base, g, k, lease)
  local lane = lane_key(base, g)
  if k < 1 then
    redis.call('LREM', base .. 'ring', 0, g)
    return {}
  end
  local deadline = server_ms() + lease
  local served = {}
  for _ = 1, k do
    local popped = redis.call('ZPOPMIN', lane)
    if #popped == 0 then
      break
    end
    local id = popped[1]
    local row = base .. 'job:' .. id
    local attempts = redis.call('HINCRBY', row, 'attempts', 1)
    redis.call('HSET', row, 'state', 'active')
    redis.call('ZADD', base .. 'active', deadline, id)
    served[#served + 1] = {id, redis.call('HGET', row, 'payload'), attempts, g}
  end
  if #served > 0 then
    redis.call('HINCRBY', base .. 'gactive', g, #served)
  end
  local lim = redis.call('HGET', base .. 'glimit', g)
  local act = tonumber(redis.call('HGET', base .. 'gactive', g) or '0')
  if (lim and act >= tonumber(lim)) or redis.call('ZCARD', lane) == 0 then
    redis.call('LREM', base .. 'ring', 0, g)
  end
  return served
end
