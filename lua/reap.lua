-- reap: return jobs whose lease has expired (active score <= server TIME) to pending; a grouped job
-- gives its lane slot back and returns to its own lane.
-- Attempts are left alone: the next claim mints the next token, which fences out the old holder.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] limit, the most jobs recovered in one call
-- A member whose row is gone is dropped from the set; one whose row is not a hash is dead-lettered
-- (counted in metrics:failed; the row as found). Every row's type is read before the first write.
-- Reply:  the number of jobs recovered
--- @include "return_due"
local base = ARGV[1]
return return_due(KEYS[1], base, tonumber(ARGV[2]), 'reap', function(id)
  local g = redis.call('HGET', base .. 'job:' .. id, 'group')
  if g then
    give_back_slot(base, g)
  end
end)
