-- migrate_v1_retire: measure a v1 queue's fingerprint, or retire it if the fingerprint still holds.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:id          the add counter: every v1 add INCRs it
-- KEYS[3..10] <prefix>:<q>: wait, paused, active, prioritized, delayed, waiting-children, failed, completed
-- KEYS[11..] further queue-level keys to delete on retire (pc, marker, events, stalled, repeat, de:*, ...)
-- ARGV[1] op: measure | retire
-- ARGV[2] retire: the fingerprint measured after the last absorbed pass
-- ARGV[3] retire: the tombstone, echomq:2.0.0-migrated
-- Reply:  measure -> the fingerprint "<id counter>|<card wait>|...|<card completed>" (TYPE-safe);
--         retire  -> the number of keys deleted; EMQSTATE when the source changed since the pass
--                    (a producer or worker is still running), in which case nothing is deleted.
--         Job hashes and their subkeys are deleted afterwards by the caller, in batches.
local function card(key)
  local t = redis.call('TYPE', key)['ok']
  if t == 'list' then return redis.call('LLEN', key) end
  if t == 'zset' then return redis.call('ZCARD', key) end
  if t == 'none' then return 0 end
  return t
end
local function fingerprint()
  local parts = {redis.call('GET', KEYS[2]) or ''}
  for i = 3, 10 do
    parts[#parts + 1] = tostring(card(KEYS[i]))
  end
  return table.concat(parts, '|')
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
    return redis.error_reply('EMQSTATE source changed since the last pass: ' .. ARGV[2] .. ' -> ' .. now)
  end
  local deleted = 0
  for i = 2, #KEYS do
    deleted = deleted + redis.call('DEL', KEYS[i])
  end
  redis.call('HSET', KEYS[1], 'version', ARGV[3])
  return deleted
end
return redis.error_reply('EMQSTATE unknown retire op ' .. tostring(ARGV[1]))
