-- extend_lock: push the lease of one claimed job to server TIME + lease.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:job:<id>   the job row
-- ARGV[1] id
-- ARGV[2] token (the attempts value the claim returned)
-- ARGV[3] lease in ms
-- Reply:  1 extended; -1 gone (no row, or no longer in active: the lease lapsed and was reaped)
-- Refuses: EMQSTALE extend token mismatch (the job was re-claimed by another worker).
--- @include "server_time"
local attempts = redis.call('HGET', KEYS[2], 'attempts')
if not attempts then
  return -1
end
if attempts ~= ARGV[2] then
  return redis.error_reply('EMQSTALE extend token mismatch')
end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return -1
end
redis.call('ZADD', KEYS[1], server_ms() + tonumber(ARGV[3]), ARGV[1])
return 1
