-- migrate_write_jobs: write (or remove) a batch of migrated jobs of one queue, their v2 rows and
-- places, in one call fenced by the lease token. Every key is of the same queue (one hash slot).
-- KEYS[1] emq:{q}:meta      field migration = the fencing token of the migrator that owns the queue
-- KEYS[2] emq:{q}:pending   KEYS[3] emq:{q}:schedule   KEYS[4] emq:{q}:dead   KEYS[5] emq:{q}:active
-- KEYS[6..] emq:{q}:job:<id>, one row per job, in the order of ARGV's records
-- ARGV[1] the caller's fencing token
-- ARGV[2..] one record per job, in KEYS order:
--           the branded id,
--           the set it belongs to: 1 pending, 2 schedule, 3 dead, 0 none (a flow parent held in no
--           set: awaiting_children), -1 remove the row (the v1 job is gone),
--           its score in that set (0, or the run-at ms for schedule; ignored for sets 0 and -1),
--           the guard: 'n<attempts>' for a row not written before (absent, or left by an interrupted
--           write: present with those attempts), 'k<attempts>' for a row written before (present
--           with those attempts; for a removal, absent is also in line),
--           n, the number of field, value items that follow (even; 0 for a removal),
--           n items: field, value pairs of the row: state, attempts, payload, and optional
--           last_error, parent, parent_queue, parent_policy, progress, group (the row's lane: a
--           pending row then waits in emq:{q}:g:<group>:pending instead of KEYS[2], and the lane joins
--           the ring emq:{q}:ring when it can be served; lane keys derive from the base of KEYS[1])
-- Reply:  how many rows are new to the target (an identical re-run finds them all in place: 0).
--         EMQLOCK when the token is not the one held (another migrator took over); EMQARGS for a
--         malformed batch; EMQSTATE "out-of-line <id> ..." when a guard fails: the v2 runtime claimed
--         or finished that job (its attempts moved, it is active, or its row is gone). In all three
--         cases nothing is written: every record is checked before the first write.
-- A row is replaced whole (DEL then HSET) and taken out of every other set, so a re-run after a crash,
-- or a re-sync after the v1 job moved, leaves exactly one row in exactly one place per job.
--- @include "lease"
--- @include "lanes"
if not holds_lease(KEYS[1], 'migration', ARGV[1]) then
  return lease_lost()
end
local CHUNK = 500
local SETS = {KEYS[2], KEYS[3], KEYS[4]}
local records = {}
local a = 2
for k = 6, #KEYS do
  local set = tonumber(ARGV[a + 1])
  local guard = ARGV[a + 3]
  local n = tonumber(ARGV[a + 4])
  local attempts = guard and tonumber(string.sub(guard, 2))
  local kind = guard and string.sub(guard, 1, 1)
  if not set or set < -1 or set > 3 or not n or n % 2 ~= 0 or (set >= 0 and n < 2) or (set < 0 and n ~= 0)
      or (set > 0 and not tonumber(ARGV[a + 2])) or not attempts or (kind ~= 'n' and kind ~= 'k') then
    return redis.error_reply('EMQARGS migrate_write_jobs: bad record for ' .. KEYS[k])
  end
  -- every field named here (row and group are set below), so the table is sized once
  records[#records + 1] = {key = KEYS[k], id = ARGV[a], set = set, score = ARGV[a + 2], kind = kind,
    attempts = attempts, from = a + 5, last = a + 4 + n, row = false, group = false}
  a = a + 5 + n
end
if a ~= #ARGV + 1 then
  return redis.error_reply('EMQARGS migrate_write_jobs: ' .. #records .. ' rows but ' .. #ARGV .. ' arguments')
end
-- how many of these keys exist: one EXISTS per chunk
local function count_existing(keys)
  local n = 0
  for from = 1, #keys, CHUNK do
    n = n + redis.call('EXISTS', unpack(keys, from, math.min(#keys, from + CHUNK - 1)))
  end
  return n
end
local outOfLine = {}
local before = {}
local unsure = {}
-- a row not written before (guard n) is most often absent: one EXISTS per chunk over those rows' keys,
-- and when it finds none, none of them is read one by one (each would read as no state, not existing)
local fresh = {}
local listed = {}
for _, r in ipairs(records) do
  if r.kind == 'n' and not listed[r.key] then
    listed[r.key] = true
    fresh[#fresh + 1] = r.key
  end
end
local present = count_existing(fresh)
local ABSENT = {false, false, false}
for _, r in ipairs(records) do
  if r.kind == 'n' and present == 0 then
    r.row = ABSENT
    before[r.key] = false
  else
    r.row = redis.call('HMGET', r.key, 'state', 'attempts', 'group')
  end
  if before[r.key] == nil then
    before[r.key] = r.row[1] and true
    if not r.row[1] then
      unsure[#unsure + 1] = r.key
    end
  end
end
-- a key with no state may still exist: asked one by one only when one EXISTS per chunk finds any
local found = count_existing(unsure)
for _, key in ipairs(unsure) do
  before[key] = found > 0 and redis.call('EXISTS', key) == 1
end
for _, r in ipairs(records) do
  local row = r.row
  r.group = row[3]
  local problem
  if row[1] then
    if row[1] == 'active' or redis.call('ZSCORE', KEYS[5], r.id) then
      problem = 'is active'
    elseif tonumber(row[2]) ~= r.attempts then
      problem = 'has attempts ' .. tostring(row[2]) .. ', not ' .. r.attempts
    end
  elseif r.kind == 'k' and r.set >= 0 then
    problem = 'has no row any more'
  end
  if problem then
    outOfLine[#outOfLine + 1] = r.id .. ' ' .. problem
  end
end
if #outOfLine > 0 then
  return redis.error_reply('EMQSTATE out-of-line ' .. table.concat(outOfLine, '; ', 1, math.min(5, #outOfLine))
    .. (#outOfLine > 5 and ('; and ' .. (#outOfLine - 5) .. ' more') or ''))
end
local base = string.sub(KEYS[1], 1, #KEYS[1] - #'meta')
local function field_of(r, name)
  for i = r.from, r.last, 2 do
    if ARGV[i] == name then
      return ARGV[i + 1]
    end
  end
  return false
end
local members = {}
local order = {}
local taken = {}
local lanes = {}
local rewritten = {}
for _, r in ipairs(records) do
  -- what the row held before this call, as read above; read again for a key this call wrote already
  local left, exists = r.group, before[r.key]
  if rewritten[r.key] then
    left, exists = redis.call('HGET', r.key, 'group'), true
  end
  rewritten[r.key] = true
  if left then
    redis.call('ZREM', lane_key(base, left), r.id)
  end
  if exists then
    redis.call('DEL', r.key)
  end
  taken[#taken + 1] = r.id
  if r.set >= 0 then
    redis.call('HSET', r.key, unpack(ARGV, r.from, r.last))
  end
  if r.set > 0 then
    local set = SETS[r.set]
    local group = r.set == 1 and field_of(r, 'group')
    if group then
      set = lane_key(base, group)
      lanes[group] = true
    end
    if not members[set] then
      members[set] = {}
      order[#order + 1] = set
    end
    local m = members[set]
    m[#m + 1] = r.score
    m[#m + 1] = r.id
  end
end
for from = 1, #taken, CHUNK do
  local part = {unpack(taken, from, math.min(#taken, from + CHUNK - 1))}
  for set = 1, 3 do
    redis.call('ZREM', SETS[set], unpack(part))
  end
end
for _, set in ipairs(order) do
  local m = members[set]
  for from = 1, #m, 2 * CHUNK do
    redis.call('ZADD', set, unpack(m, from, math.min(#m, from + 2 * CHUNK - 1)))
  end
end
local rung = {}
for group in pairs(lanes) do
  rung[#rung + 1] = group
end
table.sort(rung)
for _, group in ipairs(rung) do
  ring_lane(base, group)
end
local written = {}
for _, r in ipairs(records) do
  written[r.key] = r.set >= 0
end
local new = 0
for key, existed in pairs(before) do
  if not existed and written[key] then
    new = new + 1
  end
end
return new
