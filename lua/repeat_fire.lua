-- repeat_fire: fire every due registration once and advance it, in one step, so however many
-- pumps beat on a queue each occurrence is enqueued exactly once.
-- KEYS[1] emq:{q}:repeat
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (records and job rows are derived from it)
-- ARGV[2..] fresh JOB ids minted by the caller in ascending order, one per occurrence this call may
--          fire (their number is the limit)
-- An occurrence due at score s is enqueued as a pending job (payload = the template, fields
-- repeat = name and occurrence = s) and the registration advances to s + every_ms; occurrences
-- missed while no pump ran are coalesced (the next score is the first s + k * every_ms after now).
-- A name without a record is dropped from the registry.
-- Reply:  {{id, name, occurrence}, ...} in due order
--- @include "server_time"
local now = server_ms()
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, #ARGV - 1)
local fired = {}
for i = 1, #due, 2 do
  local name, at = due[i], tonumber(due[i + 1])
  local rec = redis.call('HMGET', ARGV[1] .. 'repeat:' .. name, 'every_ms', 'template')
  local every = tonumber(rec[1])
  if not every or every < 1 or not rec[2] then
    redis.call('ZREM', KEYS[1], name)
  else
    local id = ARGV[#fired + 2]
    redis.call('HSET', ARGV[1] .. 'job:' .. id, 'state', 'pending', 'attempts', '0', 'payload', rec[2],
      'repeat', name, 'occurrence', string.format('%d', at))
    redis.call('ZADD', KEYS[2], 0, id)
    redis.call('ZADD', KEYS[1], at + every * (math.floor((now - at) / every) + 1), name)
    fired[#fired + 1] = {id, name, string.format('%d', at)}
  end
end
return fired
