-- reprocess: send a dead job back to pending, or to its lane (attempts are kept; the next claim
-- continues them).
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:dead
-- KEYS[3] emq:{q}:pending
-- ARGV[1] id
-- ARGV[2] emq:{q}:   the queue base (a grouped job goes back to its lane)
-- Reply:  1 requeued, -1 gone (no row)
-- Refuses: EMQSTATE not dead (the job is not in the dead set; nothing changed).
--- @include "lanes"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
if redis.call('ZREM', KEYS[2], ARGV[1]) ~= 1 then
  return redis.error_reply('EMQSTATE not dead')
end
redis.call('HDEL', KEYS[1], 'last_error', 'stalled')
requeue(ARGV[2], ARGV[1])
return 1
