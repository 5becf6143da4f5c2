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
-- exactly one place per job, whatever the earlier run had reached. The batch's rows are deleted
-- with one DEL and its set members added with one ZADD per set; a row key given twice is deleted
-- again before its second HSET, so the end state is that of writing the rows one after another.
local CHUNK = 500
local rows = #KEYS - 3
local first = {}
local distinct = {}
for k = 4, #KEYS do
  if not first[KEYS[k]] then
    first[KEYS[k]] = k
    distinct[#distinct + 1] = KEYS[k]
  end
end
local a = 1
for k = 4, #KEYS do
  local set = tonumber(ARGV[a + 1])
  local n = tonumber(ARGV[a + 3])
  if not set or set < 0 or set > 3 or not n or n < 2 or n % 2 ~= 0 or (set > 0 and not tonumber(ARGV[a + 2])) then
    return redis.error_reply('EMQARGS migrate_write_jobs: bad record for ' .. KEYS[k])
  end
  a = a + 4 + n
end
if a ~= #ARGV + 1 then
  return redis.error_reply('EMQARGS migrate_write_jobs: ' .. rows .. ' rows but ' .. #ARGV .. ' arguments')
end
local existed = 0
for from = 1, #distinct, CHUNK do
  existed = existed + redis.call('DEL', unpack(distinct, from, math.min(#distinct, from + CHUNK - 1)))
end
local members = {{}, {}, {}}
a = 1
for k = 4, #KEYS do
  local id = ARGV[a]
  local set = tonumber(ARGV[a + 1])
  local score = ARGV[a + 2]
  local n = tonumber(ARGV[a + 3])
  local from = a + 4
  local last = from + n - 1
  if first[KEYS[k]] ~= k then
    redis.call('DEL', KEYS[k])
  end
  redis.call('HSET', KEYS[k], unpack(ARGV, from, last))
  if set > 0 then
    local m = members[set]
    m[#m + 1] = score
    m[#m + 1] = id
  end
  a = last + 1
end
for set = 1, 3 do
  local m = members[set]
  for from = 1, #m, 2 * CHUNK do
    redis.call('ZADD', KEYS[set], unpack(m, from, math.min(#m, from + 2 * CHUNK - 1)))
  end
end
return #distinct - existed
