-- migrate_write_job: write one migrated job's v2 row and its place, idempotently.
-- KEYS[1] emq:{q}:job:<id>      the row
-- KEYS[2] the set it belongs to: emq:{q}:pending | schedule | dead, or the row key again for a
--         flow parent held in no set (awaiting_children)
-- ARGV[1] the branded id
-- ARGV[2] score in KEYS[2] (0, or the run-at ms for schedule); ignored when KEYS[2] == KEYS[1]
-- ARGV[3..] field, value pairs of the row: state, attempts, payload, and optional last_error,
--         parent, parent_queue, parent_policy, progress
-- Reply:  1 when the row was written now, 0 when an identical re-run found it already there.
-- The row is replaced whole (DEL then HSET), so a re-run after a crash leaves exactly one row in
-- exactly one place, whatever the earlier run had reached.
local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if KEYS[2] ~= KEYS[1] then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
end
return 1 - existed
