-- lane_pause: take a lane out of rotation; its backlog and its jobs in flight are untouched.
-- KEYS[1] emq:{q}:paused   the set of paused lanes
-- KEYS[2] emq:{q}:ring
-- ARGV[1] group
-- Reply:  1
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('LREM', KEYS[2], 0, ARGV[1])
return 1
