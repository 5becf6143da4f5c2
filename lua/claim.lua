-- claim: take the oldest pending job and lease it to the caller.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (the lease ends at server TIME + lease)
-- ARGV[3] emq:{q}:   the queue base (the limiter is derived from it)
-- Reply:  {} when the queue is paused (meta.paused), pending is empty or meta.concurrency jobs are
--         active, else {id, payload, attempts}; attempts is the fencing token for settling the job.
-- Refuses: EMQRATE rate limited, retry after <ms> ms: meta.max claims were made within the current
--          meta.duration window (nothing changed).
--- @include "server_time"
--- @include "limits"
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 or redis.call('ZCARD', KEYS[1]) == 0 then
  return {}
end
local n, ttl = allowance(ARGV[3], 1)
if ttl > 0 then
  return rate_limited(ttl)
end
if n == 0 then
  return {}
end
local popped = redis.call('ZPOPMIN', KEYS[1])
local id = popped[1]
local row = ARGV[1] .. id
local attempts = redis.call('HINCRBY', row, 'attempts', 1)
redis.call('HSET', row, 'state', 'active')
redis.call('ZADD', KEYS[2], server_ms() + tonumber(ARGV[2]), id)
count_claims(ARGV[3], 1)
return {id, redis.call('HGET', row, 'payload'), attempts}
