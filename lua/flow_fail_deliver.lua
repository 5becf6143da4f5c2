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
--     children (or pending): state=dead, last_error, ZADD dead, metrics:failed +1; a parent that is
--     itself a flow child then tells its own parent (this queue at once, another via flow:outbox).
-- id: the child is recorded in :unsuccessful, :dependencies is decremented, and the parent is
--     released to pending at 0 if it is still awaiting its children.
-- Reply:  3 parent dead-lettered, 2 parent released, 1 recorded (parent unchanged), 0 already
--         recorded (a re-delivery: nothing changed), -1 parent gone (no row: nothing written)
--- @include "flow"
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
if ARGV[5] == 'id' then
  return count_child(ARGV[4], ARGV[3], 'unsuccessful', ARGV[1], ARGV[2])
end
return fail_parent(ARGV[4], ARGV[3], ARGV[1], ARGV[2])
