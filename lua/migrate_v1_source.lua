-- migrate_v1_source: the migration's reads and its destructive writes on a v1 (BullMQ 5.x) queue:
-- measure its fingerprint, read or digest some of its jobs, retire its structures if nothing moved
-- since the re-sync, then retire its jobs a batch at a time, each only if it still holds what v2 holds.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:id          the add counter: every v1 add INCRs it
-- KEYS[3..10] <prefix>:<q>: wait, paused, active, prioritized, delayed, waiting-children, failed, completed
-- KEYS[11..] read, digest, retire_jobs: for each job, <prefix>:<q>:<id> (its hash) and <prefix>:<q>:<id>:logs;
--            retire: further queue-level keys to delete (pc, marker, events, stalled, repeat, ...)
-- ARGV[1] op: measure | read | digest | retire | retire_jobs
-- ARGV[2] retire: the fingerprint of the source the last re-sync brought v2 in line with;
--         retire_jobs: the tombstone, echomq:2.0.0-migrated
-- ARGV[3] retire: the tombstone; retire_jobs: ARGV[3..] the digest v2 holds of each job of KEYS[11..], in order
-- Reply:  measure -> the fingerprint "<id counter>|<size of wait>|...|<size of completed>|<sha1>", the
--                    sha1 taken over every member of the eight structures in order, with its score for
--                    a zset (TYPE-safe: a key of a wrong type contributes its type name): an add, a
--                    removal, a move or a reorder changes it. O(members), read in chunks of 1000.
--         digest  -> one digest per job of KEYS[11..], in order: the first 16 hex digits of the SHA-1
--                    over the hash's "<length>:<field><length>:<value>" pairs, sorted, then, when the
--                    job has any of them, the length and last entry of its logs list and, for a flow
--                    parent, the sizes of its :dependencies, :processed, :failed and :unsuccessful
--                    (built on the hash key, as BullMQ builds them; a key of another type contributes
--                    its type name). Reads only. Commands: one HGETALL a job, one EXISTS over the logs
--                    and flow keys of the whole batch, and one EXISTS a job only when that found any.
--         read    -> for each job of KEYS[11..], its digest then its fields and values (HGETALL; empty
--                    when it has no hash), read at one instant. Reads only.
--         retire  -> the number of keys deleted; 0 when the tombstone is already there. Deletes only
--                    if the fingerprint is ARGV[2]: otherwise EMQSTATE (a producer or worker is still at
--                    work) and nothing is deleted. Then the structures and the queue-level keys go,
--                    meta.version and the add counter get the tombstone, over the frozen one whose saved
--                    value (meta.migrating-id) is dropped (a v1 producer still adding
--                    then fails: INCR of a non-integer, instead of adding a job no migration sees).
--                    O(members): the jobs themselves are retired by retire_jobs.
--         retire_jobs -> {deleted, i...}: each job of KEYS[11..] whose digest is still the one v2 holds
--                    (ARGV) has its hash and logs deleted in this same step; the 1-based positions i of
--                    the jobs whose digest moved (an edit since the re-sync) are returned and those jobs
--                    are left whole for the caller to copy again. A job without a hash was retired
--                    already. EMQSTATE, nothing deleted, unless the queue bears the tombstone (the jobs
--                    of a live queue are never deleted). O(jobs given).
local CHUNK = 1000
local function fingerprint()
  local sizes = {redis.call('GET', KEYS[2]) or ''}
  local parts = {}
  for i = 3, 10 do
    local key = KEYS[i]
    local t = redis.call('TYPE', key)['ok']
    local n = 0
    if t == 'list' then
      n = redis.call('LLEN', key)
      for from = 0, n - 1, CHUNK do
        local chunk = redis.call('LRANGE', key, from, from + CHUNK - 1)
        for j = 1, #chunk do
          chunk[j] = #chunk[j] .. ':' .. chunk[j]
        end
        parts[#parts + 1] = redis.sha1hex(table.concat(chunk))
      end
    elseif t == 'zset' then
      n = redis.call('ZCARD', key)
      for from = 0, n - 1, CHUNK do
        local chunk = redis.call('ZRANGE', key, from, from + CHUNK - 1, 'WITHSCORES')
        for j = 1, #chunk do
          chunk[j] = #chunk[j] .. ':' .. chunk[j]
        end
        parts[#parts + 1] = redis.sha1hex(table.concat(chunk))
      end
    elseif t ~= 'none' then
      n = t
    end
    sizes[#sizes + 1] = tostring(n)
    parts[#parts + 1] = '/'
  end
  sizes[#sizes + 1] = redis.sha1hex(table.concat(parts))
  return table.concat(sizes, '|')
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
local function digest(hash, logs, t, flat)
  local parts = {}
  if t == 'hash' then
    for i = 1, #flat, 2 do
      parts[#parts + 1] = length(flat[i]) .. flat[i] .. length(flat[i + 1]) .. flat[i + 1]
    end
    table.sort(parts)
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
if ARGV[1] == 'measure' then
  return fingerprint()
end
if ARGV[1] == 'digest' then
  extras = any_extras()
  local out = {}
  for k = 11, #KEYS, 2 do
    out[#out + 1] = read(k)
  end
  return out
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
if ARGV[1] == 'retire' then
  if redis.call('HGET', KEYS[1], 'version') == ARGV[3] then
    return 0
  end
  local now = fingerprint()
  if now ~= ARGV[2] then
    return redis.error_reply('EMQSTATE source changed since the last re-sync: ' .. ARGV[2] .. ' -> ' .. now)
  end
  local deleted = 0
  for i = 3, #KEYS do
    deleted = deleted + redis.call('DEL', KEYS[i])
  end
  redis.call('SET', KEYS[2], ARGV[3])
  redis.call('HSET', KEYS[1], 'version', ARGV[3])
  redis.call('HDEL', KEYS[1], 'migrating-id')
  return deleted
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
