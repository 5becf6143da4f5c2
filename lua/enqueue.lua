-- enqueue: admit one job into the flat pending set.
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:pending
-- ARGV[1] id (a JOB branded id)
-- ARGV[2] payload (opaque bytes)
-- Reply:  1 admitted, 0 duplicate (row already exists; nothing changed)
-- Refuses: EMQKIND when the id is not JOB-namespaced.
--- @include "admit"
local refused = admission_refusal(ARGV[1], KEYS[1])
if refused then
  return refused
end
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
