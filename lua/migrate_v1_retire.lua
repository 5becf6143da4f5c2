-- migrate_v1_retire: measure a v1 queue's fingerprint, or retire the queue if the fingerprint still holds.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:id          the add counter: every v1 add INCRs it
-- KEYS[3..10] <prefix>:<q>: wait, paused, active, prioritized, delayed, waiting-children, failed, completed
-- KEYS[11..] further queue-level keys to delete on retire (pc, marker, events, stalled, repeat, ...)
-- ARGV[1] op: measure | retire
-- ARGV[2] retire: the fingerprint of the source the last re-sync brought v2 in line with
-- ARGV[3] retire: the tombstone, echomq:2.0.0-migrated
-- Reply:  measure -> the fingerprint "<id counter>|<size of wait>|...|<size of completed>|<sha1>", the
--                    sha1 taken over every member of the eight structures in order, with its score for
--                    a zset (TYPE-safe: a key of a wrong type contributes its type name): an add, a
--                    removal, a move or a reorder changes it;
--         retire  -> the number of keys deleted; 0 when the tombstone is already there. The add counter
--                    is left holding the tombstone, so a v1 producer still adding to the queue fails
--                    (INCR of a non-integer) instead of adding a job no migration sees. EMQSTATE when
--                    the fingerprint moved since the re-sync (a producer or worker is still running),
--                    and then nothing is deleted. Job hashes and their subkeys are deleted afterwards
--                    by the caller, in batches, for the jobs this fingerprint covers.
-- Cost: O(members); the structures are read in chunks of 1000.
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
if ARGV[1] == 'measure' then
  return fingerprint()
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
  return deleted
end
return redis.error_reply('EMQSTATE unknown retire op ' .. tostring(ARGV[1]))
