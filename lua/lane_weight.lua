-- lane_weight: set a lane's fair share per weighted turn; serviceability does not depend on it.
-- KEYS[1] emq:{q}:gweight
-- ARGV[1] group
-- ARGV[2] weight (>= 1)
-- Reply:  1
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
