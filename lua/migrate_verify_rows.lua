-- migrate_verify_rows: checks a batch of migrated rows of one queue against what the journal expects
-- of them, on the server, so that no row or payload travels to the client. Reads only.
-- KEYS[1] emq:{q}:pending   KEYS[2] emq:{q}:schedule   KEYS[3] emq:{q}:dead
-- KEYS[4..3+L] the set the pending rows of each group named in ARGV are listed in: the group's lane
--           emq:{q}:g:<group>:pending (or KEYS[1] again, for a group that is no lane id)
-- KEYS[4+L..] emq:{q}:job:<id>, one row per job, in the order of ARGV's records
-- ARGV[1] L, the number of groups named   ARGV[2..1+L] the groups, in KEYS order
-- ARGV[2+L..] one record per row, in KEYS order: the branded id, the set it must be listed in
--           (1 pending: its group's set when it has a group, else KEYS[1];
--           2 schedule, 3 dead, 0 none), its expected state, its expected attempts (as written),
--           and the SHA-1 (lowercase hex) of the payload written ('' for a row a journal written
--           before the SHA-1 was recorded holds: its payload is left to the caller)
-- Reply:  the problems only, three items each: the 1-based position of the row, what is out of line
--         (missing: no row or no state; state, attempts: the value found, '' when absent; payload:
--         its SHA-1 is not the one written, or it has none; set: the key of the set that does not
--         list it; group: a pending row's group is none of those named, and its listing is not
--         checked: the caller names the group and asks again), and the value found, the set's key,
--         or the group. Empty when every row is in line.
--         EMQARGS for a malformed batch. The listings are read with one ZMSCORE per set (Redis 6.2+).
local lanes = {}
local L = tonumber(ARGV[1])
if not L or L < 0 then
  return redis.error_reply('EMQARGS migrate_verify_rows: bad lane count')
end
for i = 1, L do
  lanes[ARGV[1 + i]] = KEYS[3 + i]
end
local first = 4 + L
if (#KEYS - first + 1) * 5 ~= #ARGV - 1 - L then
  return redis.error_reply('EMQARGS migrate_verify_rows: ' .. (#KEYS - first + 1) .. ' rows but '
    .. (#ARGV - 1 - L) .. ' record items')
end
local out = {}
local function problem(i, what, value)
  out[#out + 1] = i
  out[#out + 1] = what
  out[#out + 1] = value or ''
end
local listed = {}
local order = {}
local a = 2 + L
for k = first, #KEYS do
  local i = k - first + 1
  local id, set, state, attempts, sha1 = ARGV[a], tonumber(ARGV[a + 1]), ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  a = a + 5
  if not set or set < 0 or set > 3 then
    return redis.error_reply('EMQARGS migrate_verify_rows: bad set for ' .. KEYS[k])
  end
  local row = redis.call('HMGET', KEYS[k], 'state', 'attempts', 'payload', 'group')
  if not row[1] then
    problem(i, 'missing')
  else
    if row[1] ~= state then
      problem(i, 'state', row[1])
    end
    if row[2] ~= attempts then
      problem(i, 'attempts', row[2])
    end
    if sha1 ~= '' and (not row[3] or redis.sha1hex(row[3]) ~= sha1) then
      problem(i, 'payload')
    end
    local key = set == 1 and (row[4] and lanes[row[4]] or not row[4] and KEYS[1]) or set > 1 and KEYS[set]
    if set == 1 and row[4] and not key then
      problem(i, 'group', row[4])
    elseif key then
      if not listed[key] then
        listed[key] = {ids = {}, at = {}}
        order[#order + 1] = key
      end
      local l = listed[key]
      l.ids[#l.ids + 1] = id
      l.at[#l.at + 1] = i
    end
  end
end
for _, key in ipairs(order) do
  local l = listed[key]
  local scores = redis.call('ZMSCORE', key, unpack(l.ids))
  for j = 1, #l.ids do
    if not scores[j] then
      problem(l.at[j], 'set', key)
    end
  end
end
return out
