-- drain_status: what is left for a consumer draining the queue.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:schedule
-- ARGV[1] horizon in ms: scheduled jobs due before server TIME + horizon are counted as due
-- ARGV[2] emq:{q}:   the queue base (the lanes are derived from it)
-- Reply:  {pending, active, scheduled, scheduled due within the horizon, waiting in lanes that are
--         not paused (a paused lane serves nothing until resumed)}
--- @include "server_time"
--- @include "lanes"
local in_lanes = 0
for _, g in ipairs(known_lanes(ARGV[2])) do
  if redis.call('SISMEMBER', ARGV[2] .. 'paused', g) == 0 then
    in_lanes = in_lanes + redis.call('ZCARD', lane_key(ARGV[2], g))
  end
end
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCOUNT', KEYS[3], '-inf', server_ms() + tonumber(ARGV[1])), in_lanes}
