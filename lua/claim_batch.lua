-- claim_batch: take up to N oldest pending jobs on one shared lease.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (every member's lease ends at the same server TIME + lease)
-- ARGV[3] N, the largest batch wanted (>= 1)
-- ARGV[4] emq:{q}:   the queue base (the limiter is derived from it)
-- Reply:  {} when paused, empty or at meta.concurrency, else {{id, payload, attempts}, ...} in pop
--         (mint) order; fewer than N members when pending holds fewer or the limits allow fewer.
-- Refuses: EMQRATE rate limited, retry after <ms> ms (see claim).
--- @include "server_time"
--- @include "limits"
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 or redis.call('ZCARD', KEYS[1]) == 0 then
  return {}
end
local n, ttl = allowance(ARGV[4], tonumber(ARGV[3]))
if ttl > 0 then
  return rate_limited(ttl)
end
if n == 0 then
  return {}
end
local popped = redis.call('ZPOPMIN', KEYS[1], n)
local deadline = server_ms() + tonumber(ARGV[2])
local out = {}
for i = 1, #popped, 2 do
  local id = popped[i]
  local row = ARGV[1] .. id
  local attempts = redis.call('HINCRBY', row, 'attempts', 1)
  redis.call('HSET', row, 'state', 'active')
  redis.call('ZADD', KEYS[2], deadline, id)
  out[#out + 1] = {id, redis.call('HGET', row, 'payload'), attempts}
end
count_claims(ARGV[4], #out)
return out
