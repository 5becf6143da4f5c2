-- flow_hold: admit a flow node that waits for its children (the reference's hold_parent): held in
-- no set, state awaiting_children, :dependencies = the number of its children (in any queue).
-- A node that is itself a child records its parent (a tree below the root).
-- KEYS[1] emq:{q}:job:<id>                 the node's row
-- KEYS[2] emq:{q}:job:<id>:dependencies
-- ARGV[1] id (a JOB branded id)
-- ARGV[2] payload
-- ARGV[3] number of children (>= 1)
-- ARGV[4] parent id, '' for a root
-- ARGV[5] parent queue ('' : this queue)
-- ARGV[6] parent policy: 'fp' fail-parent or 'id' ignore-dependency
-- Reply:  1 held, 0 duplicate (row already exists; nothing changed)
-- Refuses: EMQKIND when the id is not JOB-namespaced.
--- @include "admit"
local refused = admission_refusal(ARGV[1], KEYS[1])
if refused then
  return refused
end
redis.call('HSET', KEYS[1], 'state', 'awaiting_children', 'attempts', '0', 'payload', ARGV[2])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'parent', ARGV[4], 'parent_queue', ARGV[5], 'parent_policy', ARGV[6])
end
redis.call('SET', KEYS[2], tonumber(ARGV[3]))
return 1
