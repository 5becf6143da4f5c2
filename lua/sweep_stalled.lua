-- sweep_stalled: recover jobs whose lease lapsed, counting the stall on the row; dead-letter a job
-- once it has stalled max_stalled times. A grouped job gives its lane slot back and is recovered
-- into its own lane; a dead-lettered flow child applies its parent's policy (as retry does).
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:pending
-- KEYS[3] emq:{q}:dead
-- ARGV[1] emq:{q}:   the queue base (job rows and metrics are derived from it)
-- ARGV[2] max_stalled (>= 1)
-- ARGV[3] limit, the most jobs examined in one call
-- Reply:  {recovered_ids, dead_ids}
--- @include "take_due"
--- @include "flow"
local base = ARGV[1]
local expired = take_due(KEYS[1], tonumber(ARGV[3]))
local recovered, dead = {}, {}
for _, id in ipairs(expired) do
  local row = base .. 'job:' .. id
  if redis.call('EXISTS', row) == 1 then
    local g = redis.call('HGET', row, 'group')
    if g then
      give_back_slot(base, g)
    end
    local stalled = redis.call('HINCRBY', row, 'stalled', 1)
    if stalled >= tonumber(ARGV[2]) then
      redis.call('HSET', row, 'state', 'dead', 'last_error', 'stalled')
      redis.call('ZADD', KEYS[3], 0, id)
      redis.call('HINCRBY', base .. 'metrics:failed', 'count', 1)
      child_died(base, id, 'stalled')
      dead[#dead + 1] = id
    else
      requeue(base, id)
      recovered[#recovered + 1] = id
    end
  end
end
return {recovered, dead}
