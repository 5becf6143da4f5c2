-- migrate_journal_known: what one queue's journal knows of some v1 jobs, read in one call: each job's
-- branded id, then the expectation of each id found. Writes nothing.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1..] the jobs' identity-map fields (v1:<v1 id>)
-- Reply:  {ids, expectations}: ids[i] the branded id of the i-th job (nil when the journal has none);
--         expectations[j] the expectation (field r:<id>) of the j-th id found, in order (nil when none).
-- Reads a thousand fields an HMGET (bulk's hmget_all), so no number of jobs exceeds what unpack can pass.
--- @include "bulk"
local ids = hmget_all(KEYS[1], ARGV)
local fields = {}
for i = 1, #ids do
  if ids[i] then
    fields[#fields + 1] = 'r:' .. ids[i]
  end
end
return {ids, hmget_all(KEYS[1], fields)}
