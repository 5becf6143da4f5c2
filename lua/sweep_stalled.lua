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
-- Reads every row before the first write: a row that is not a hash, or whose stalled count is not
-- an integer from 0 to 2^53-2, is dead-lettered with the reason (counted in metrics:failed) instead
-- of failing the sweep. A member whose row is gone is dropped from active.
--- @include "due"
--- @include "flow"
--- @include "bulk"
--- @include "counts"
local base, max_stalled = ARGV[1], tonumber(ARGV[2])
local expired = due(KEYS[1], tonumber(ARGV[3]))
local types = row_types(base, expired)
local rows = {}
for i, id in ipairs(expired) do
  if types[i] == 'hash' then
    rows[i] = redis.call('HMGET', base .. 'job:' .. id, 'group', 'stalled')
  end
end
zrem_all(KEYS[1], expired)
local recovered, dead = {}, {}
for i, id in ipairs(expired) do
  local f = rows[i]
  if types[i] == 'none' then
    -- the row is gone: dropped
  elseif not f then
    dead_letter(base, id, 'sweep_stalled: the job row is not a hash', false)
    dead[#dead + 1] = id
  else
    if f[1] then
      give_back_slot(base, f[1])
    end
    local stalled = f[2] or nil
    if not is_count(stalled) then
      dead_letter(base, id, "sweep_stalled: stalled '" .. stalled .. "' is not a count from 0 to 2^53-2", true)
      dead[#dead + 1] = id
    elseif redis.call('HINCRBY', base .. 'job:' .. id, 'stalled', 1) >= max_stalled then
      dead_letter(base, id, 'stalled', true)
      dead[#dead + 1] = id
    else
      requeue(base, id)
      recovered[#recovered + 1] = id
    end
  end
end
return {recovered, dead}
