-- promote: move scheduled jobs that are due (score <= server TIME) to pending, a grouped job to its
-- lane (which rejoins the ring when it can be served).
-- KEYS[1] emq:{q}:schedule
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] limit, the most jobs moved in one call
-- A member whose row is gone is dropped from the set.
-- Reply:  the number of jobs promoted
--- @include "take_due"
--- @include "lanes"
local due = take_due(KEYS[1], tonumber(ARGV[2]))
for _, id in ipairs(due) do
  if redis.call('EXISTS', ARGV[1] .. 'job:' .. id) == 1 then
    requeue(ARGV[1], id)
  end
end
return #due
