-- reprocess: send a dead job back to the flat pending set, a row with a group too, as the reference
-- does (v2 protocol §4.6): a lanes consumer never serves it (attempts are kept; the next claim
-- continues them).
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:dead
-- KEYS[3] emq:{q}:pending
-- ARGV[1] id
-- Reply:  1 requeued, -1 gone (no row)
-- Refuses: EMQSTATE not dead (the job is not in the dead set; nothing changed).
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
if redis.call('ZREM', KEYS[2], ARGV[1]) ~= 1 then
  return redis.error_reply('EMQSTATE not dead')
end
redis.call('HDEL', KEYS[1], 'last_error', 'stalled')
redis.call('ZADD', KEYS[3], 0, ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'pending')
return 1
