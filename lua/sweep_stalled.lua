-- sweep_stalled: recover jobs whose lease lapsed, counting the stall on the row; dead-letter a job
-- once it has stalled max_stalled times.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:pending
-- KEYS[3] emq:{q}:dead
-- ARGV[1] emq:{q}:   the queue base (job rows and metrics are derived from it)
-- ARGV[2] max_stalled (>= 1)
-- ARGV[3] limit, the most jobs examined in one call
-- Reply:  {recovered_ids, dead_ids}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local recovered, dead = {}, {}
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  local row = ARGV[1] .. 'job:' .. id
  if redis.call('EXISTS', row) == 1 then
    local stalled = redis.call('HINCRBY', row, 'stalled', 1)
    if stalled >= tonumber(ARGV[2]) then
      redis.call('HSET', row, 'state', 'dead', 'last_error', 'stalled')
      redis.call('ZADD', KEYS[3], 0, id)
      redis.call('HINCRBY', ARGV[1] .. 'metrics:failed', 'count', 1)
      dead[#dead + 1] = id
    else
      redis.call('HSET', row, 'state', 'pending')
      redis.call('ZADD', KEYS[2], 0, id)
      recovered[#recovered + 1] = id
    end
  end
end
return {recovered, dead}
