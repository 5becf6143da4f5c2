-- repeat_register: register a repeatable job (the reference's repeat_register): the record
-- emq:{q}:repeat:<name> holds every_ms and the payload template, the registry emq:{q}:repeat scores
-- the name by its next run (Unix ms).
-- KEYS[1] emq:{q}:repeat
-- KEYS[2] emq:{q}:repeat:<name>
-- ARGV[1] name
-- ARGV[2] every_ms (>= 1)
-- ARGV[3] template (the payload of every occurrence)
-- ARGV[4] ms from server TIME to the first occurrence (>= 0)
-- Reply:  1 registered, 0 a registration of that name exists (nothing changed)
--- @include "server_time"
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
redis.call('HSET', KEYS[2], 'every_ms', ARGV[2], 'template', ARGV[3])
redis.call('ZADD', KEYS[1], server_ms() + tonumber(ARGV[4]), ARGV[1])
return 1
