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
--- @include "due"
--- @include "flow"
--- @include "bulk"
local base = ARGV[1]
local expired = due(KEYS[1], tonumber(ARGV[2]))
local types = row_types(base, expired)
zrem_all(KEYS[1], expired)
for i, id in ipairs(expired) do
  if types[i] == 'hash' then
    local g = redis.call('HGET', base .. 'job:' .. id, 'group')
    if g then
      give_back_slot(base, g)
    end
    requeue(base, id)
  elseif types[i] ~= 'none' then
    dead_letter(base, id, 'reap: the job row is not a hash', false)
  end
end
return #expired
