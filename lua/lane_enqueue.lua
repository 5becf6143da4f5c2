-- lane_enqueue: admit one job into a lane (the reference's genqueue); the lane joins the ring when
-- it can be served (not paused, below its glimit), with a push on wake.
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:g:<group>:pending
-- ARGV[1] id (a JOB branded id)
-- ARGV[2] payload (opaque bytes)
-- ARGV[3] group (a branded id)
-- ARGV[4] emq:{q}:   the queue base (ring, paused, glimit, gactive and wake are derived from it)
-- Reply:  1 admitted, 0 duplicate (row already exists; nothing changed)
-- Refuses: EMQKIND when the id is not JOB-namespaced.
--- @include "lanes"
--- @include "admit"
local refused = admission_refusal(ARGV[1], KEYS[1])
if refused then
  return refused
end
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2], 'group', ARGV[3])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
ring_lane(ARGV[4], ARGV[3])
return 1
