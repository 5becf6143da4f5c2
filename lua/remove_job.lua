-- remove_job: delete one job that no worker holds, from whichever set lists it.
-- KEYS[1] emq:{q}:job:<id>        the job row
-- KEYS[2] emq:{q}:job:<id>:logs
-- KEYS[3] emq:{q}:job:<id>:lock
-- KEYS[4] emq:{q}:pending
-- KEYS[5] emq:{q}:active
-- KEYS[6] emq:{q}:schedule
-- KEYS[7] emq:{q}:dead
-- KEYS[8] emq:{q}:de:<did>        optional: a dedup key released only if it points at this job
-- ARGV[1] id
-- ARGV[2] emq:{q}:   the queue base (a grouped job leaves its lane, or gives its lane slot back)
-- Reply:  1 removed, -1 gone (no row)
-- Refuses: EMQLOCK job is locked, when the :lock marker exists, the row has a lock field, or the
--          job holds an unexpired lease in active.
--- @include "server_time"
--- @include "lanes"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
local lease = redis.call('ZSCORE', KEYS[5], ARGV[1])
local locked = redis.call('EXISTS', KEYS[3]) == 1 or redis.call('HEXISTS', KEYS[1], 'lock') == 1
if not locked and lease then
  locked = tonumber(lease) > server_ms()
end
if locked then
  return redis.error_reply('EMQLOCK job is locked')
end
unclaim(ARGV[2], ARGV[1], redis.call('HGET', KEYS[1], 'group') or nil)
for i = 6, 7 do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
if KEYS[8] and redis.call('GET', KEYS[8]) == ARGV[1] then
  redis.call('DEL', KEYS[8])
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
