-- lane_resume: lift a lane's pause; it rejoins the ring (with a push on wake) when it can be served.
-- KEYS[1] emq:{q}:paused   the set of paused lanes
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] group
-- Reply:  1
--- @include "lanes"
redis.call('SREM', KEYS[1], ARGV[2])
ring_lane(ARGV[1], ARGV[2])
return 1
