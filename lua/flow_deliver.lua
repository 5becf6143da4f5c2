-- flow_deliver: deliver one cross-queue child completion to its parent; runs on the parent's slot.
-- KEYS[1] emq:{pq}:job:<parent>:dependencies   the parent's outstanding child count
-- KEYS[2] emq:{pq}:job:<parent>:processed      child id -> child result
-- KEYS[3] emq:{pq}:job:<parent>                the parent row
-- ARGV[1] child id
-- ARGV[2] child result
-- ARGV[3] parent id
-- ARGV[4] emq:{pq}:   the parent queue's base (its pending set, or the parent's lane, is derived from it)
-- Reply:  2 recorded and the parent released to pending (its last child), 1 recorded (children
--         still outstanding), 0 already recorded (a re-delivery: nothing changed), -1 parent gone
--         (no row: nothing written)
-- Effectively-once: the HSETNX on :processed gates the DECR, so an entry delivered twice (the
-- outbox is trimmed only after delivery) counts once.
--- @include "flow"
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  return 0
end
if redis.call('EXISTS', KEYS[3]) == 0 then
  return -1
end
return count_child(ARGV[4], ARGV[3], 'processed', ARGV[1], ARGV[2])
