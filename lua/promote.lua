-- promote: move scheduled jobs that are due (score <= server TIME) to pending.
-- KEYS[1] emq:{q}:schedule
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- ARGV[2] limit, the most jobs moved in one call
-- A member whose row is gone is dropped from the set.
-- Reply:  the number of jobs promoted
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  local row = ARGV[1] .. 'job:' .. id
  if redis.call('EXISTS', row) == 1 then
    redis.call('ZADD', KEYS[2], 0, id)
    redis.call('HSET', row, 'state', 'pending')
  end
end
return #due
