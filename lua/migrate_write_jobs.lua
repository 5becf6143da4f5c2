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
local NEW, KNOWN = string.byte('n'), string.byte('k')
local SETS = {KEYS[2], KEYS[3], KEYS[4]}
-- the records, in KEYS order (row r's key is KEYS[r + 5]), one array per part: no table a row
local rows = #KEYS - 5
local ids, sets, scores, kinds, attempts, froms, lasts = {}, {}, {}, {}, {}, {}, {}
local a = 2
for r = 1, rows do
  local set = tonumber(ARGV[a + 1])
  local guard = ARGV[a + 3]
  local n = tonumber(ARGV[a + 4])
  local tried = guard and tonumber(string.sub(guard, 2))
  local kind = guard and string.byte(guard, 1)
  if not set or set < -1 or set > 3 or not n or n % 2 ~= 0 or (set >= 0 and n < 2) or (set < 0 and n ~= 0)
      or (set > 0 and not tonumber(ARGV[a + 2])) or not tried or (kind ~= NEW and kind ~= KNOWN) then
    return redis.error_reply('EMQARGS migrate_write_jobs: bad record for ' .. KEYS[r + 5])
  end
  ids[r], sets[r], scores[r], kinds[r], attempts[r], froms[r], lasts[r] = ARGV[a], set, ARGV[a + 2], kind, tried, a + 5, a + 4 + n
  a = a + 5 + n
end
if a ~= #ARGV + 1 then
  return redis.error_reply('EMQARGS migrate_write_jobs: ' .. rows .. ' rows but ' .. #ARGV .. ' arguments')
end
-- how many of these keys exist (a key listed twice counts twice): one EXISTS per chunk
local function count_existing(keys)
  local n = 0
  for from = 1, #keys, CHUNK do
    n = n + redis.call('EXISTS', unpack(keys, from, math.min(#keys, from + CHUNK - 1)))
  end
  return n
end
-- a row not written before (guard n) is most often absent: one EXISTS per chunk over those rows' keys,
-- and when it finds none, none of them is read one by one (each would read as no state, not existing)
local fresh = {}
for r = 1, rows do
  if kinds[r] == NEW then
    fresh[#fresh + 1] = KEYS[r + 5]
  end
end
local absent = count_existing(fresh) == 0
-- every record's guard n and none of their keys exists: nothing to read or check, nothing to replace
local all_new = absent and #fresh == rows
-- what each row held before this call, read only when some may exist: its state, attempts and group
-- (false when it has no hash); and whether each key existed, decided at its first record
local read = {}
local before = {}
if not all_new then
  local unsure = {}
  local ABSENT = {false, false, false}
  for r = 1, rows do
    local key = KEYS[r + 5]
    local row = ABSENT
    if kinds[r] ~= NEW or not absent then
      row = redis.call('HMGET', key, 'state', 'attempts', 'group')
    end
    read[r] = row
    if before[key] == nil then
      before[key] = row[1] and true or false
      if not row[1] and row ~= ABSENT then
        unsure[#unsure + 1] = key
      end
    end
  end
  -- a key with no state may still exist: asked one by one only when one EXISTS per chunk finds any
  if count_existing(unsure) > 0 then
    for _, key in ipairs(unsure) do
      before[key] = redis.call('EXISTS', key) == 1
    end
  end
  local outOfLine = {}
  for r = 1, rows do
    local row = read[r]
    local problem
    if row[1] then
      if row[1] == 'active' or redis.call('ZSCORE', KEYS[5], ids[r]) then
        problem = 'is active'
      elseif tonumber(row[2]) ~= attempts[r] then
        problem = 'has attempts ' .. tostring(row[2]) .. ', not ' .. attempts[r]
      end
    elseif kinds[r] == KNOWN and sets[r] >= 0 then
      problem = 'has no row any more'
    end
    if problem then
      outOfLine[#outOfLine + 1] = ids[r] .. ' ' .. problem
    end
  end
  if #outOfLine > 0 then
    return redis.error_reply('EMQSTATE out-of-line ' .. table.concat(outOfLine, '; ', 1, math.min(5, #outOfLine))
      .. (#outOfLine > 5 and ('; and ' .. (#outOfLine - 5) .. ' more') or ''))
  end
end
local base = string.sub(KEYS[1], 1, #KEYS[1] - #'meta')
-- the group a pending row names (its lane), false when none
local function group_of(r)
  for i = froms[r], lasts[r], 2 do
    if ARGV[i] == 'group' then
      return ARGV[i + 1]
    end
  end
  return false
end
local members = {}
local order = {}
local lanes = {}
local rewritten = {}
local new = 0
for r = 1, rows do
  local key, id, set = KEYS[r + 5], ids[r], sets[r]
  -- what the row held before this call, as read above; read again for a key this call wrote already
  local left, exists = false, false
  if not all_new then
    left, exists = read[r][3], before[key]
  end
  if rewritten[key] then
    left, exists = redis.call('HGET', key, 'group'), true
  end
  rewritten[key] = r
  if left then
    redis.call('ZREM', lane_key(base, left), id)
  end
  if exists then
    redis.call('DEL', key)
  end
  if set >= 0 then
    redis.call('HSET', key, unpack(ARGV, froms[r], lasts[r]))
  end
  if set > 0 then
    local into = SETS[set]
    local group = set == 1 and group_of(r)
    if group then
      into = lane_key(base, group)
      lanes[group] = true
    end
    local m = members[into]
    if not m then
      m = {}
      members[into] = m
      order[#order + 1] = into
    end
    m[#m + 1] = scores[r]
    m[#m + 1] = id
  end
end
for from = 1, rows, CHUNK do
  local part = {unpack(ids, from, math.min(rows, from + CHUNK - 1))}
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
-- a row is new when its key did not exist before this call and its last record wrote it
for key, last in pairs(rewritten) do
  if not before[key] and sets[last] >= 0 then
    new = new + 1
  end
end
return new
