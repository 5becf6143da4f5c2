-- lane_reap: return one lane's expired leases (active score <= server TIME) to that lane; the
-- expired jobs of other lanes and flat jobs stay in active for the queue-wide reap.
-- KEYS[1] emq:{q}:active
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] group
-- ARGV[3] limit, the most expired leases examined in one call
-- Reply:  the number of jobs recovered
--- @include "server_time"
--- @include "lanes"
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', server_ms(), 'LIMIT', 0, tonumber(ARGV[3]))
local n = 0
for _, id in ipairs(expired) do
  if redis.call('HGET', ARGV[1] .. 'job:' .. id, 'group') == ARGV[2] then
    redis.call('ZREM', KEYS[1], id)
    give_back_slot(ARGV[1], ARGV[2])
    requeue(ARGV[1], id)
    n = n + 1
  end
end
return n
