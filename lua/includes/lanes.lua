-- Lanes (v2 protocol, fair lanes): a grouped job waits in emq:{q}:g:<group>:pending; the list
-- emq:{q}:ring holds exactly the lanes that can be served now (nonempty, not in the emq:{q}:paused
-- set, gactive below glimit); emq:{q}:wake gets a push whenever a lane joins the ring.
-- lane_key(base, g): the pending set of lane g.
local function lane_key(base, g)
  return base .. 'g:' .. g .. ':pending'
end

-- lane_active(base, g) and lane_limit(base, g): lane g's jobs in flight (gactive; 0 when absent)
-- and its ceiling (glimit; nil when it has none). A value that is not a number reads as absent, so
-- no lane script fails on it after a write.
local function lane_active(base, g)
  return tonumber(redis.call('HGET', base .. 'gactive', g) or '0') or 0
end

local function lane_limit(base, g)
  return tonumber(redis.call('HGET', base .. 'glimit', g) or '')
end

-- add_active(base, g, n): count n more (or, negative, fewer) jobs of lane g in flight; at 0 or
-- below the field goes.
local function add_active(base, g, n)
  local act = lane_active(base, g) + n
  if act <= 0 then
    redis.call('HDEL', base .. 'gactive', g)
  else
    redis.call('HSET', base .. 'gactive', g, act)
  end
end

-- ring_lane(base, g): put lane g on the ring if it is serviceable and not on it yet.
local function ring_lane(base, g)
  if redis.call('SISMEMBER', base .. 'paused', g) == 1 or redis.call('ZCARD', lane_key(base, g)) == 0 then
    return
  end
  local lim = lane_limit(base, g)
  if (not lim or lane_active(base, g) < lim) and not redis.call('LPOS', base .. 'ring', g) then
    redis.call('RPUSH', base .. 'ring', g)
    redis.call('LPUSH', base .. 'wake', '1')
    redis.call('LTRIM', base .. 'wake', 0, 63)
  end
end

-- unring_if_empty(base, g): a lane with nothing pending leaves the ring.
local function unring_if_empty(base, g)
  if redis.call('ZCARD', lane_key(base, g)) == 0 then
    redis.call('LREM', base .. 'ring', 0, g)
  end
end

-- give_back_slot(base, g): a claimed job of lane g stopped running; the lane may serve again.
local function give_back_slot(base, g)
  add_active(base, g, -1)
  ring_lane(base, g)
end

-- requeue(base, id): put a job back in line, in its lane (row field group) or the flat pending set.
local function requeue(base, id)
  local row = base .. 'job:' .. id
  local g = redis.call('HGET', row, 'group')
  if g then
    redis.call('ZADD', lane_key(base, g), 0, id)
    ring_lane(base, g)
  else
    redis.call('ZADD', base .. 'pending', 0, id)
  end
  redis.call('HSET', row, 'state', 'pending')
end

-- leave_line(base, id, g): take a waiting job out of line: its lane g (the row's group; nil when it
-- has none) and the flat pending set, where a grouped job waits too once released as a flow parent
-- or reprocessed from dead (as the reference puts them).
local function leave_line(base, id, g)
  if g then
    redis.call('ZREM', lane_key(base, g), id)
    unring_if_empty(base, g)
  end
  redis.call('ZREM', base .. 'pending', id)
end

-- unclaim(base, id, g): take a job off active, giving the slot of its lane g (the row's group, read
-- by the caller; nil when it has none) back; a job that was not active is taken out of line instead
-- (leave_line). Returns true when the job was active.
local function unclaim(base, id, g)
  local was_active = redis.call('ZREM', base .. 'active', id) == 1
  if not was_active then
    leave_line(base, id, g)
  elseif g then
    give_back_slot(base, g)
  end
  return was_active
end

-- out_of_line(base, id): take a waiting job out of line (leave_line), its group read from its row.
local function out_of_line(base, id)
  leave_line(base, id, redis.call('HGET', base .. 'job:' .. id, 'group') or nil)
end

-- known_lanes(base): the groups named by the ring, the paused set, gactive, glimit or gweight; a
-- lane with jobs waiting is always among them (on the ring, paused, or at its limit).
local function known_lanes(base)
  local seen, out = {}, {}
  local function add(g)
    if g and not seen[g] then
      seen[g] = true
      out[#out + 1] = g
    end
  end
  for _, g in ipairs(redis.call('LRANGE', base .. 'ring', 0, -1)) do add(g) end
  for _, g in ipairs(redis.call('SMEMBERS', base .. 'paused')) do add(g) end
  for _, h in ipairs({'gactive', 'glimit', 'gweight'}) do
    for _, g in ipairs(redis.call('HKEYS', base .. h)) do add(g) end
  end
  return out
end
