-- flow_fail_deliver: deliver one cross-queue child death to its parent; runs on the parent's slot.
-- KEYS[1] emq:{pq}:job:<parent>:dependencies   the parent's outstanding child count
-- KEYS[2] emq:{pq}:job:<parent>:failed         child id -> error (fail-parent children)
-- KEYS[3] emq:{pq}:job:<parent>:unsuccessful   child id -> error (ignore-dependency children)
-- KEYS[4] emq:{pq}:job:<parent>                the parent row
-- ARGV[1] child id
-- ARGV[2] the child's error
-- ARGV[3] parent id
-- ARGV[4] emq:{pq}:   the parent queue's base (pending, dead and metrics:failed are derived from it)
-- ARGV[5] policy: 'fp' fail-parent, 'id' ignore-dependency
-- fp: the child is recorded in :failed; the first death dead-letters a parent still awaiting its
--     children (or pending): state=dead, last_error, ZADD dead, metrics:failed +1.
-- id: the child is recorded in :unsuccessful, :dependencies is decremented, and the parent is
--     released to pending at 0 if it is still awaiting its children.
-- Reply:  3 parent dead-lettered, 2 parent released, 1 recorded (parent unchanged), 0 already
--         recorded (a re-delivery: nothing changed), -1 parent gone (no row: nothing written)
local record = KEYS[2]
if ARGV[5] == 'id' then
  record = KEYS[3]
end
if redis.call('HEXISTS', record, ARGV[1]) == 1 then
  return 0
end
if redis.call('EXISTS', KEYS[4]) == 0 then
  return -1
end
redis.call('HSETNX', record, ARGV[1], ARGV[2])
local base = ARGV[4]
local state = redis.call('HGET', KEYS[4], 'state')
if ARGV[5] == 'id' then
  local left = redis.call('DECR', KEYS[1])
  if left <= 0 and state == 'awaiting_children' then
    redis.call('HSET', KEYS[4], 'state', 'pending')
    redis.call('ZADD', base .. 'pending', 0, ARGV[3])
    return 2
  end
  return 1
end
if state == 'awaiting_children' or state == 'pending' then
  redis.call('ZREM', base .. 'pending', ARGV[3])
  redis.call('HSET', KEYS[4], 'state', 'dead', 'last_error', 'child ' .. ARGV[1] .. ' failed: ' .. ARGV[2])
  redis.call('ZADD', base .. 'dead', 0, ARGV[3])
  redis.call('HINCRBY', base .. 'metrics:failed', 'count', 1)
  return 3
end
return 1
