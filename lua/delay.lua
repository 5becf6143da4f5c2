-- delay: move a claimed job back to the schedule without counting a failure (attempts and payload kept).
-- KEYS[1] emq:{q}:job:<id>   the job row
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:schedule
-- ARGV[1] id
-- ARGV[2] token (the attempts value the claim returned)
-- ARGV[3] 'in' (ARGV[4] is a delay from server TIME) or 'at' (ARGV[4] is Unix ms)
-- ARGV[4] milliseconds
-- ARGV[5] emq:{q}:   the queue base (a grouped job gives its lane slot back)
-- Reply:  1
-- Refuses: EMQKIND (not a JOB id); EMQSTALE job gone (no row); EMQSTALE delay token mismatch.
--- @include "server_time"
--- @include "lanes"
--- @include "held"
if string.sub(ARGV[1], 1, 3) ~= 'JOB' then
  return redis.error_reply('EMQKIND job id must be JOB-namespaced')
end
local f, stale = held(KEYS[1], ARGV[2], 'delay')
if not f then
  return stale
end
local score = due_ms(ARGV[3], ARGV[4])
unclaim(ARGV[5], ARGV[1], f[2] or nil)
redis.call('HSET', KEYS[1], 'state', 'scheduled')
redis.call('ZADD', KEYS[3], score, ARGV[1])
return 1
