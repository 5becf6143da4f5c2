-- promote: move scheduled jobs that are due (score <= server TIME) to pending, a grouped job to its
-- lane (which rejoins the ring when it can be served).
-- KEYS[1] emq:{q}:schedule
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] limit, the most jobs moved in one call
-- A member whose row is gone is dropped from the set; one whose row is not a hash is dead-lettered
-- (counted in metrics:failed; the row as found). Every row's type is read before the first write.
-- Reply:  the number of jobs promoted
--- @include "due"
--- @include "flow"
--- @include "bulk"
local base = ARGV[1]
local ids = due(KEYS[1], tonumber(ARGV[2]))
local types = row_types(base, ids)
zrem_all(KEYS[1], ids)
for i, id in ipairs(ids) do
  if types[i] == 'hash' then
    requeue(base, id)
  elseif types[i] ~= 'none' then
    dead_letter(base, id, 'promote: the job row is not a hash', false)
  end
end
return #ids
