-- reap: return jobs whose lease has expired (active score <= server TIME) to pending.
-- Attempts are left alone: the next claim mints the next token, which fences out the old holder.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] limit, the most jobs recovered in one call
-- A member whose row is gone is dropped from the set.
-- Reply:  the number of jobs recovered
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  local row = ARGV[1] .. 'job:' .. id
  if redis.call('EXISTS', row) == 1 then
    redis.call('ZADD', KEYS[2], 0, id)
    redis.call('HSET', row, 'state', 'pending')
  end
end
return #expired
