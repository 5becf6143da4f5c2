-- lane_reassign: move a waiting job from its lane (read from the row's group) to another lane at
-- score 0 (its mint order kept); the destination rejoins the ring when it can be served, the
-- source leaves it when now empty.
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:g:<dst>:pending
-- ARGV[1] id
-- ARGV[2] dst group
-- ARGV[3] emq:{q}:   the queue base
-- Reply:  1 moved, 0 already in dst, -1 no row or a row without a group, -2 not waiting in its lane
--         (claimed, scheduled or dead: nothing changed)
--- @include "lanes"
local g = redis.call('HGET', KEYS[1], 'group')
if not g then
  return -1
end
if g == ARGV[2] then
  return 0
end
if redis.call('ZREM', lane_key(ARGV[3], g), ARGV[1]) == 0 then
  return -2
end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('HSET', KEYS[1], 'group', ARGV[2])
ring_lane(ARGV[3], ARGV[2])
unring_if_empty(ARGV[3], g)
return 1
