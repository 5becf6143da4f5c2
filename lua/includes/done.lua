--- @include "flow"
--- @include "bulk"
-- Completion, shared by complete and complete_batch.
-- done_fields(row): the fields a completion reads, {attempts, group, parent, parent_queue} (false
-- when absent); a read that never fails: for a row that is not a hash, the error ({err = ...}).
local function done_fields(row)
  return redis.pcall('HMGET', row, 'attempts', 'group', 'parent', 'parent_queue')
end

-- finish(base, done): the writes of completions whose tokens were checked, done {{id, fields,
-- result}, ...} (fields from done_fields): each job leaves active (a grouped job gives its lane slot
-- back; a job no longer active leaves pending or its lane instead), its flow parent is told, and its
-- row, :logs and :lock are deleted. Jobs without a lane leave active and pending in one command each
-- (a job is listed in one set, so removing it from the other is a no-op). The caller counts them in
-- metrics:completed.
local function finish(base, done)
  local flat, keys = {}, {}
  for _, d in ipairs(done) do
    local id, f = d[1], d[2]
    if f[2] then
      unclaim(base, id, f[2])
    else
      flat[#flat + 1] = id
    end
    child_done(base, id, d[3], f[3] or nil, f[4] or nil)
    local row = base .. 'job:' .. id
    keys[#keys + 1] = row
    keys[#keys + 1] = row .. ':logs'
    keys[#keys + 1] = row .. ':lock'
  end
  zrem_all(base .. 'active', flat)
  zrem_all(base .. 'pending', flat)
  del_all(keys)
end
