-- migrate_journal_known: what one queue's journal knows of some v1 jobs, read in one call: each job's
-- branded id, then the expectation of each id found. Writes nothing.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1..] the jobs' identity-map fields (v1:<v1 id>), at least one
-- Reply:  {ids, expectations}: ids[i] the branded id of the i-th job (nil when the journal has none);
--         expectations[j] the expectation (field r:<id>) of the j-th id found, in order (nil when none).
-- Reads a thousand fields an HMGET, so no number of jobs exceeds what unpack can pass.
local function hmget_all(fields)
  local values = {}
  for from = 1, #fields, 1000 do
    local part = redis.call('HMGET', KEYS[1], unpack(fields, from, math.min(#fields, from + 999)))
    for i = 1, #part do
      values[#values + 1] = part[i]
    end
  end
  return values
end
local ids = hmget_all(ARGV)
local fields = {}
for i = 1, #ids do
  if ids[i] then
    fields[#fields + 1] = 'r:' .. ids[i]
  end
end
return {ids, hmget_all(fields)}
