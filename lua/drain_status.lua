-- drain_status: what is left for a consumer draining the queue.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:schedule
-- ARGV[1] horizon in ms: scheduled jobs due before server TIME + horizon are counted as due
-- Reply:  {pending, active, scheduled, scheduled due within the horizon}
--- @include "server_time"
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCOUNT', KEYS[3], '-inf', server_ms() + tonumber(ARGV[1]))}
