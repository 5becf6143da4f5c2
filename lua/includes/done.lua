--- @include "flow"
-- Completion, shared by complete and complete_batch.
-- done_fields(row): the fields a completion reads, {attempts, group, parent, parent_queue} (false
-- when absent); a read that never fails: for a row that is not a hash, the error ({err = ...}).
local function done_fields(row)
  return redis.pcall('HMGET', row, 'attempts', 'group', 'parent', 'parent_queue')
end

-- finish(base, id, f, result): the writes of one completion, after its token was checked against
-- f (done_fields): off active (the lane slot given back), the flow parent told, the row, its :logs
-- and its :lock deleted. The caller counts it in metrics:completed.
local function finish(base, id, f, result)
  unclaim(base, id, f[2] or nil)
  child_done(base, id, result, f[3] or nil, f[4] or nil)
  local row = base .. 'job:' .. id
  redis.call('DEL', row, row .. ':logs', row .. ':lock')
end
