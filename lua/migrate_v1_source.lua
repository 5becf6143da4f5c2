-- migrate_v1_source: the migration's reads and its one destructive write on a v1 (BullMQ 5.x) queue:
-- measure its fingerprint, digest some of its jobs, or retire it if nothing changed since the re-sync.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:id          the add counter: every v1 add INCRs it
-- KEYS[3..10] <prefix>:<q>: wait, paused, active, prioritized, delayed, waiting-children, failed, completed
-- KEYS[11..] digest: for each job, <prefix>:<q>:<id> (its hash) and <prefix>:<q>:<id>:logs;
--            retire: further queue-level keys to delete (pc, marker, events, stalled, repeat, ...)
-- ARGV[1] op: measure | digest | retire
-- ARGV[2] retire: the fingerprint of the source the last re-sync brought v2 in line with
-- ARGV[3] retire: the content sum that re-sync read (see below)
-- ARGV[4] retire: the tombstone, echomq:2.0.0-migrated
-- ARGV[5] retire: the queue's key base <prefix>:<q>: (the job keys it checks are built on it, as
--         BullMQ's own scripts build theirs: a queue's jobs cannot all be declared)
-- Reply:  measure -> the fingerprint "<id counter>|<size of wait>|...|<size of completed>|<sha1>", the
--                    sha1 taken over every member of the eight structures in order, with its score for
--                    a zset (TYPE-safe: a key of a wrong type contributes its type name): an add, a
--                    removal, a move or a reorder changes it. O(members), read in chunks of 1000.
--         digest  -> one digest per job of KEYS[11..], in order: the first 16 hex digits of the SHA-1
--                    over the hash's fields and values sorted by field, then the length and last entry
--                    of its logs list, then, for a flow parent, the sizes of its :dependencies,
--                    :processed, :failed and :unsuccessful (built on the hash key, as BullMQ builds
--                    them; a key of another type contributes its type name). Reads only.
--         retire  -> the number of keys deleted; 0 when the tombstone is already there. Deletes only
--                    if the fingerprint is ARGV[2] and the content sum is ARGV[3]: the sum, mod 2^48,
--                    of the first 12 hex digits of the digest of every distinct job with a hash
--                    listed in wait, paused, active (not under a live lock), prioritized, delayed,
--                    waiting-children or failed. Otherwise EMQSTATE (a producer, worker or editor is
--                    still at work) and nothing is deleted. Then the structures go, meta.version and
--                    the add counter get the tombstone (a v1 producer still adding then fails: INCR of
--                    a non-integer, instead of adding a job no migration sees); job hashes and their
--                    subkeys are deleted afterwards by the caller, in batches. O(jobs), one HGETALL each.
local CHUNK = 1000
local MOD = 281474976710656
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
local function digest(hash, logs, t)
  local parts = {}
  if t == 'hash' then
    local flat = redis.call('HGETALL', hash)
    local names = {}
    local values = {}
    for i = 1, #flat, 2 do
      names[#names + 1] = flat[i]
      values[flat[i]] = flat[i + 1]
    end
    table.sort(names)
    for i, name in ipairs(names) do
      local value = values[name]
      parts[i] = #name .. ':' .. name .. #value .. ':' .. value
    end
  else
    parts[1] = t
  end
  local lt = redis.call('TYPE', logs)['ok']
  if lt == 'list' then
    local last = redis.call('LINDEX', logs, -1)
    parts[#parts + 1] = '|' .. redis.call('LLEN', logs) .. ':' .. #last .. ':' .. last
  else
    parts[#parts + 1] = '|' .. lt
  end
  local flow = {hash .. ':dependencies', hash .. ':processed', hash .. ':failed', hash .. ':unsuccessful'}
  if redis.call('EXISTS', unpack(flow)) > 0 then
    for _, key in ipairs(flow) do
      local ft = redis.call('TYPE', key)['ok']
      local size = ft == 'set' and redis.call('SCARD', key) or ft == 'hash' and redis.call('HLEN', key) or ft
      parts[#parts + 1] = '|' .. size
    end
  end
  return string.sub(redis.sha1hex(table.concat(parts)), 1, 16)
end
local function contentSum(base)
  local seen = {}
  local sum = 0
  local function add(id, structure)
    if seen[id] then
      return
    end
    seen[id] = true
    local hash = base .. id
    if redis.call('TYPE', hash)['ok'] ~= 'hash' then
      return
    end
    if structure == 5 and redis.call('EXISTS', hash .. ':lock') == 1 then
      return
    end
    sum = (sum + tonumber(string.sub(digest(hash, hash .. ':logs', 'hash'), 1, 12), 16)) % MOD
  end
  for i = 3, 9 do
    local key = KEYS[i]
    local t = redis.call('TYPE', key)['ok']
    if t == 'list' then
      for from = 0, redis.call('LLEN', key) - 1, CHUNK do
        for _, id in ipairs(redis.call('LRANGE', key, from, from + CHUNK - 1)) do
          if string.sub(id, 1, 2) ~= '0:' then
            add(id, i)
          end
        end
      end
    elseif t == 'zset' then
      for from = 0, redis.call('ZCARD', key) - 1, CHUNK do
        for _, id in ipairs(redis.call('ZRANGE', key, from, from + CHUNK - 1)) do
          add(id, i)
        end
      end
    end
  end
  return string.format('%.0f', sum)
end
if ARGV[1] == 'measure' then
  return fingerprint()
end
if ARGV[1] == 'digest' then
  local out = {}
  for k = 11, #KEYS, 2 do
    out[#out + 1] = digest(KEYS[k], KEYS[k + 1], redis.call('TYPE', KEYS[k])['ok'])
  end
  return out
end
if ARGV[1] == 'retire' then
  if redis.call('HGET', KEYS[1], 'version') == ARGV[4] then
    return 0
  end
  local now = fingerprint()
  if now ~= ARGV[2] then
    return redis.error_reply('EMQSTATE source changed since the last re-sync: ' .. ARGV[2] .. ' -> ' .. now)
  end
  local content = contentSum(ARGV[5])
  if content ~= ARGV[3] then
    return redis.error_reply('EMQSTATE a job changed since the last re-sync (content ' .. ARGV[3] .. ' -> ' .. content .. ')')
  end
  local deleted = 0
  for i = 3, #KEYS do
    deleted = deleted + redis.call('DEL', KEYS[i])
  end
  redis.call('SET', KEYS[2], ARGV[4])
  redis.call('HSET', KEYS[1], 'version', ARGV[4])
  return deleted
end
return redis.error_reply('EMQSTATE unknown op ' .. tostring(ARGV[1]))
