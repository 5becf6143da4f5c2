-- is_maxed: the concurrency gate, consulted before claiming (the reference's is_maxed).
-- KEYS[1] emq:{q}:meta
-- KEYS[2] emq:{q}:active
-- Reply:  0 below the ceiling (or none set)
-- Refuses: EMQRATE at concurrency ceiling, when meta.concurrency > 0 jobs are active.
local cap = tonumber(redis.call('HGET', KEYS[1], 'concurrency') or '0')
if cap > 0 and redis.call('ZCARD', KEYS[2]) >= cap then
  return redis.error_reply('EMQRATE at concurrency ceiling')
end
return 0
