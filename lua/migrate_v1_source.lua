-- migrate_v1_source: the migration's reads and its job retirement on a v1 (BullMQ 5.x) queue: measure
-- its sizes, read some of its jobs with their digests, then retire its jobs a batch at a time, each only
-- if it still holds what v2 holds. (The structures are retired by a WATCHed transaction: SourceGuard.java.)
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:id          the add counter: every v1 add INCRs it
-- KEYS[3..10] <prefix>:<q>: wait, paused, active, prioritized, delayed, waiting-children, failed, completed
-- KEYS[11..] read, retire_jobs: for each job, <prefix>:<q>:<id> (its hash) and <prefix>:<q>:<id>:logs
-- ARGV[1] op: sizes | read | retire_jobs
-- ARGV[2] retire_jobs: the tombstone, echomq:2.0.0-migrated
-- ARGV[3..] retire_jobs: the digest v2 holds of each job of KEYS[11..], in order
-- Reply:  sizes   -> "<id counter>|<size of wait>|...|<size of completed>" (a key of a wrong type gives
--                    its type name). O(1): what refusals compare to say what moved.
--         read    -> for each job of KEYS[11..], its digest then its fields and values (HGETALL; empty
--                    when it has no hash), read at one instant. Reads only. The digest: the first 16 hex
--                    digits of the SHA-1 over the hash's "<length>:<field><length>:<value>" pairs in
--                    byte order (compared byte by byte, never by the server's locale), or over its type
--                    name when it is no hash ("none" when absent), then, when the job has any of them,
--                    the length and last entry of its logs list and, for a flow parent, the sizes of its
--                    :dependencies, :processed, :failed and :unsuccessful (built on the hash key, as
--                    BullMQ builds them; a key of another type contributes its type name). SourceFence.java
--                    computes the same digest of a job without logs or flow keys from a plain HGETALL.
--                    Commands: one HGETALL a job, one EXISTS over the logs and flow keys of the whole
--                    batch, and one EXISTS a job only when that found any.
--         retire_jobs -> {deleted, i...}: each job of KEYS[11..] whose digest is still the one v2 holds
--                    (ARGV) has its hash and logs deleted in this same step; the 1-based positions i of
--                    the jobs whose digest moved (an edit since the re-sync) are returned and those jobs
--                    are left whole for the caller to copy again. A job without a hash was retired
--                    already. EMQSTATE, nothing deleted, unless the queue bears the tombstone (the jobs
--                    of a live queue are never deleted). O(jobs given).
local CHUNK = 1000
-- The add counter and the size of each structure (a key of a wrong type gives its type name). O(1).
local function sizes()
  local out = {redis.call('GET', KEYS[2]) or ''}
  for i = 3, 10 do
    local t = redis.call('TYPE', KEYS[i])['ok']
    local n = t == 'list' and redis.call('LLEN', KEYS[i]) or t == 'zset' and redis.call('ZCARD', KEYS[i])
        or t == 'none' and 0 or t
    out[#out + 1] = tostring(n)
  end
  return table.concat(out, '|')
end
local function flow_keys(hash)
  return {hash .. ':dependencies', hash .. ':processed', hash .. ':failed', hash .. ':unsuccessful'}
end
-- Whether any job of KEYS[11..] has a logs list or a flow key: when none has (one EXISTS per chunk of
-- keys), no job's digest need look for them one by one.
local function any_extras()
  local keys = {}
  local found = 0
  for k = 11, #KEYS, 2 do
    keys[#keys + 1] = KEYS[k + 1]
    for _, key in ipairs(flow_keys(KEYS[k])) do
      keys[#keys + 1] = key
    end
    if #keys >= CHUNK or k + 2 > #KEYS then
      found = found + redis.call('EXISTS', unpack(keys))
      keys = {}
    end
  end
  return found > 0
end
local extras = false -- set by the ops that digest jobs, before they do
local lengths = {} -- '<n>:' by n, each number formatted once per call
local function length(s)
  local text = lengths[#s]
  if not text then
    text = #s .. ':'
    lengths[#s] = text
  end
  return text
end
-- whether a comes before b in byte order (Lua's own string order follows the server's locale)
local function in_byte_order(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end
local function digest(hash, logs, t, flat)
  local parts = {}
  if t == 'hash' then
    for i = 1, #flat, 2 do
      parts[#parts + 1] = length(flat[i]) .. flat[i] .. length(flat[i + 1]) .. flat[i + 1]
    end
    table.sort(parts, in_byte_order)
  else
    parts[1] = t
  end
  local flow = extras and flow_keys(hash)
  if extras and redis.call('EXISTS', logs, unpack(flow)) > 0 then
    local lt = redis.call('TYPE', logs)['ok']
    if lt == 'list' then
      local last = redis.call('LINDEX', logs, -1)
      parts[#parts + 1] = '|' .. redis.call('LLEN', logs) .. ':' .. #last .. ':' .. last
    else
      parts[#parts + 1] = '|' .. lt
    end
    for _, key in ipairs(flow) do
      local ft = redis.call('TYPE', key)['ok']
      local size = ft == 'set' and redis.call('SCARD', key) or ft == 'hash' and redis.call('HLEN', key) or ft
      parts[#parts + 1] = '|' .. size
    end
  end
  return string.sub(redis.sha1hex(table.concat(parts)), 1, 16)
end
local function read(k)
  local flat = redis.pcall('HGETALL', KEYS[k])
  local t = #flat > 0 and 'hash' or 'none'
  if flat.err then
    t, flat = redis.call('TYPE', KEYS[k])['ok'], {}
  end
  return digest(KEYS[k], KEYS[k + 1], t, flat), flat, t
end
if ARGV[1] == 'sizes' then
  return sizes()
end
if ARGV[1] == 'read' then
  extras = any_extras()
  local out = {}
  for k = 11, #KEYS, 2 do
    local d, flat = read(k)
    out[#out + 1] = d
    out[#out + 1] = flat
  end
  return out
end
if ARGV[1] == 'retire_jobs' then
  if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then
    return redis.error_reply('EMQSTATE the queue bears no tombstone: its jobs are not retired')
  end
  if #ARGV ~= 2 + (#KEYS - 10) / 2 then
    return redis.error_reply('EMQARGS retire_jobs: ' .. (#KEYS - 10) .. ' keys but ' .. (#ARGV - 2) .. ' digests')
  end
  extras = any_extras()
  local moved = {}
  local checked = {}
  for k = 11, #KEYS, 2 do
    local d, _, t = read(k)
    checked[#checked + 1] = t ~= 'none' and d == ARGV[3 + (k - 11) / 2]
    if t ~= 'none' and not checked[#checked] then
      moved[#moved + 1] = (k - 9) / 2
    end
  end
  local deleted = 0
  local gone = {}
  for k = 11, #KEYS, 2 do
    if checked[(k - 9) / 2] then
      gone[#gone + 1] = KEYS[k]
      gone[#gone + 1] = KEYS[k + 1]
    end
  end
  for from = 1, #gone, CHUNK do
    deleted = deleted + redis.call('DEL', unpack(gone, from, math.min(#gone, from + CHUNK - 1)))
  end
  return {deleted, unpack(moved)}
end
return redis.error_reply('EMQSTATE unknown op ' .. tostring(ARGV[1]))
