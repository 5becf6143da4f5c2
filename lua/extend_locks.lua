-- extend_locks: push the leases of many claimed jobs to one server TIME + lease.
-- KEYS[1] emq:{q}:active
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] lease in ms
-- ARGV[3], ARGV[4], ... pairs of id, token
-- Reply:  the ids NOT extended: token mismatch (re-claimed), row gone, or no longer in active
--- @include "server_time"
local deadline = server_ms() + tonumber(ARGV[2])
local failed = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local attempts = redis.call('HGET', ARGV[1] .. 'job:' .. id, 'attempts')
  if attempts == ARGV[i + 1] and redis.call('ZSCORE', KEYS[1], id) then
    redis.call('ZADD', KEYS[1], deadline, id)
  else
    failed[#failed + 1] = id
  end
end
return failed
