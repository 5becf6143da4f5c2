-- claim: take the oldest pending job and lease it to the caller.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (the lease ends at server TIME + lease)
-- Reply:  {} when the queue is paused (meta.paused) or pending is empty,
--         else {id, payload, attempts}; attempts is the fencing token for settling the job.
--- @include "server_time"
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then
  return {}
end
local popped = redis.call('ZPOPMIN', KEYS[1])
if #popped == 0 then
  return {}
end
local id = popped[1]
local row = ARGV[1] .. id
local attempts = redis.call('HINCRBY', row, 'attempts', 1)
redis.call('HSET', row, 'state', 'active')
redis.call('ZADD', KEYS[2], server_ms() + tonumber(ARGV[2]), id)
return {id, redis.call('HGET', row, 'payload'), attempts}
