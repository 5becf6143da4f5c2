-- obliterate: delete a paused queue entirely, within a budget of jobs per call.
-- KEYS[1] emq:{q}:meta
-- KEYS[2] emq:{q}:pending
-- KEYS[3] emq:{q}:active
-- KEYS[4] emq:{q}:schedule
-- KEYS[5] emq:{q}:dead
-- ARGV[1] emq:{q}:   the queue base (rows, subkeys and auxiliary keys are derived from it)
-- ARGV[2] 'force' to obliterate even with active jobs, else ''
-- ARGV[3] budget: the most jobs deleted in this call
-- Lanes: every lane named by the ring, the paused set, gactive, glimit, gweight or an active row is
-- deleted with its jobs (lane jobs count against the budget like the others).
-- Reply:  0 done (nothing of the queue is left but de: keys), 1 more to do (call again)
-- Refuses: EMQSTATE not paused; EMQSTATE active jobs present (without 'force').
--- @include "lanes"
if redis.call('HEXISTS', KEYS[1], 'paused') == 0 then
  return redis.error_reply('EMQSTATE not paused')
end
if ARGV[2] ~= 'force' and redis.call('ZCARD', KEYS[3]) > 0 then
  return redis.error_reply('EMQSTATE active jobs present')
end
local base = ARGV[1]
local budget = tonumber(ARGV[3])
local subs = {'', ':logs', ':lock', ':dependencies', ':processed', ':failed', ':unsuccessful'}
local function delete_job(id)
  local row = base .. 'job:' .. id
  local parent = redis.call('HGET', row, 'parent')
  for _, s in ipairs(subs) do
    redis.call('DEL', row .. s)
  end
  if parent then
    local prow = base .. 'job:' .. parent
    for _, s in ipairs(subs) do
      redis.call('DEL', prow .. s)
    end
  end
end
local sets = {KEYS[2], KEYS[4], KEYS[5]}
local lanes = known_lanes(base)
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local g = redis.call('HGET', base .. 'job:' .. id, 'group')
  if g then
    lanes[#lanes + 1] = g
  end
end
for _, g in ipairs(lanes) do
  sets[#sets + 1] = lane_key(base, g)
end
sets[#sets + 1] = KEYS[3]
for _, set in ipairs(sets) do
  while true do
    if budget <= 0 then
      return 1
    end
    local ids = redis.call('ZRANGE', set, 0, math.min(budget, 500) - 1)
    if #ids == 0 then break end
    for _, id in ipairs(ids) do
      delete_job(id)
    end
    redis.call('ZREM', set, unpack(ids))
    budget = budget - #ids
  end
end
for _, name in ipairs(redis.call('ZRANGE', base .. 'repeat', 0, -1)) do
  redis.call('DEL', base .. 'repeat:' .. name)
end
local aux = {'metrics:completed', 'metrics:failed', 'metrics:completed:data', 'metrics:failed:data',
  'gactive', 'glimit', 'gweight', 'ring', 'wake', 'paused', 'repeat', 'limiter', 'flow:outbox'}
for _, name in ipairs(aux) do
  redis.call('DEL', base .. name)
end
redis.call('DEL', KEYS[1])
return 0
