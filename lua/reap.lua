-- reap: return jobs whose lease has expired (active score <= server TIME) to pending; a grouped job
-- gives its lane slot back and returns to its own lane.
-- Attempts are left alone: the next claim mints the next token, which fences out the old holder.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] limit, the most jobs recovered in one call
-- A member whose row is gone is dropped from the set.
-- Reply:  the number of jobs recovered
--- @include "take_due"
--- @include "lanes"
local expired = take_due(KEYS[1], tonumber(ARGV[2]))
for _, id in ipairs(expired) do
  local row = ARGV[1] .. 'job:' .. id
  if redis.call('EXISTS', row) == 1 then
    local g = redis.call('HGET', row, 'group')
    if g then
      give_back_slot(ARGV[1], g)
    end
    requeue(ARGV[1], id)
  end
end
return #expired
