-- schedule: admit one job into the schedule set, due at an absolute time or after a delay.
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:schedule
-- ARGV[1] id (a JOB branded id)
-- ARGV[2] payload (opaque bytes)
-- ARGV[3] 'in' (ARGV[4] is a delay from server TIME) or 'at' (ARGV[4] is Unix ms)
-- ARGV[4] milliseconds
-- Reply:  1 scheduled, 0 duplicate (row already exists; nothing changed)
-- Refuses: EMQKIND when the id is not JOB-namespaced.
--- @include "server_time"
--- @include "admit"
local refused = admission_refusal(ARGV[1], KEYS[1])
if refused then
  return refused
end
local score = due_ms(ARGV[3], ARGV[4])
redis.call('HSET', KEYS[1], 'state', 'scheduled', 'attempts', '0', 'payload', ARGV[2])
redis.call('ZADD', KEYS[2], score, ARGV[1])
return 1
