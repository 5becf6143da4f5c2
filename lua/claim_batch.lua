-- claim_batch: take up to N oldest pending jobs on one shared lease.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (every member's lease ends at the same server TIME + lease)
-- ARGV[3] N, the largest batch wanted (>= 1)
-- Reply:  {} when paused or empty, else {{id, payload, attempts}, ...} in pop (mint) order;
--         fewer than N members when pending holds fewer.
--- @include "server_time"
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then
  return {}
end
local popped = redis.call('ZPOPMIN', KEYS[1], tonumber(ARGV[3]))
if #popped == 0 then
  return {}
end
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
return out
