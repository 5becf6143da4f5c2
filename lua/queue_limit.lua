-- queue_limit: set one of the queue's limits in meta; 0 lifts it.
-- KEYS[1] emq:{q}:meta
-- ARGV[1] 'concurrency' (jobs active at once), 'max' (claims per window) or 'duration' (the
--         window in ms)
-- ARGV[2] the value (>= 0)
-- Reply:  1
if ARGV[1] ~= 'concurrency' and ARGV[1] ~= 'max' and ARGV[1] ~= 'duration' then
  return redis.error_reply('EMQSTATE no such limit: ' .. ARGV[1])
end
if tonumber(ARGV[2]) == 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return 1
