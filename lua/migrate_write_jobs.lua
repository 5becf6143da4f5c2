-- migrate_write_jobs: write a batch of migrated jobs of one queue (their v2 rows and places),
-- idempotently, in one call. Every key is of the same queue (one hash slot).
-- KEYS[1] emq:{q}:pending   KEYS[2] emq:{q}:schedule   KEYS[3] emq:{q}:dead
-- KEYS[4..] emq:{q}:job:<id>, one row per job, in the order of ARGV's records
-- ARGV    one record per job, in KEYS order:
--           the branded id,
--           the set it belongs to: 1 pending, 2 schedule, 3 dead, 0 none (a flow parent held in
--           no set: awaiting_children),
--           its score in that set (0, or the run-at ms for schedule; ignored for set 0),
--           n, the number of field, value items that follow (even),
--           n items: field, value pairs of the row: state, attempts, payload, and optional
--           last_error, parent, parent_queue, parent_policy, progress
-- Reply:  how many rows were written now (an identical re-run finds the others already there).
-- Each row is replaced whole (DEL then HSET), so a re-run after a crash leaves exactly one row in
-- exactly one place per job, whatever the earlier run had reached.
local written = 0
local a = 1
for k = 4, #KEYS do
  local id = ARGV[a]
  local set = tonumber(ARGV[a + 1])
  local score = ARGV[a + 2]
  local n = tonumber(ARGV[a + 3])
  local first = a + 4
  local last = first + n - 1
  written = written + 1 - redis.call('DEL', KEYS[k])
  redis.call('HSET', KEYS[k], unpack(ARGV, first, last))
  if set > 0 then
    redis.call('ZADD', KEYS[set], score, id)
  end
  a = last + 1
end
if a ~= #ARGV + 1 then
  return redis.error_reply('EMQARGS migrate_write_jobs: ' .. (#KEYS - 3) .. ' rows but ' .. #ARGV .. ' arguments')
end
return written
