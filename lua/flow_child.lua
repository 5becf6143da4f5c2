-- flow_child: admit a flow leaf, claimable at once (the reference's enqueue_flow_child), its row
-- naming its parent, the parent's queue and the parent's policy on its death.
-- KEYS[1] emq:{q}:job:<id>   the child's row
-- KEYS[2] emq:{q}:pending
-- ARGV[1] id (a JOB branded id)
-- ARGV[2] payload
-- ARGV[3] parent id
-- ARGV[4] parent queue ('' : this queue)
-- ARGV[5] parent policy: 'fp' fail-parent or 'id' ignore-dependency
-- Reply:  1 admitted, 0 duplicate (row already exists; nothing changed)
-- Refuses: EMQKIND when the id is not JOB-namespaced.
--- @include "admit"
local refused = admission_refusal(ARGV[1], KEYS[1])
if refused then
  return refused
end
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2], 'parent', ARGV[3],
  'parent_queue', ARGV[4], 'parent_policy', ARGV[5])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
