--- @include "due"
--- @include "flow"
--- @include "bulk"
-- return_due(set, base, limit, verb, released): takes up to limit due members off set and returns
-- them to pending (a grouped job to its lane). Every row's type is read before the first write: a
-- member whose row is gone is dropped; one whose row is not a hash is dead-lettered as
-- '<verb>: the job row is not a hash' (counted in metrics:failed; the row as found). released(id),
-- when given, runs for each row just before it is requeued. Returns the number of members taken.
local function return_due(set, base, limit, verb, released)
  local ids = due(set, limit)
  local types = row_types(base, ids)
  zrem_all(set, ids)
  for i, id in ipairs(ids) do
    if types[i] == 'hash' then
      if released then
        released(id)
      end
      requeue(base, id)
    elseif types[i] ~= 'none' then
      dead_letter(base, id, verb .. ': the job row is not a hash', false)
    end
  end
  return #ids
end
