-- repeat_cancel: remove a registration and its record; no further occurrence is fired.
-- KEYS[1] emq:{q}:repeat
-- KEYS[2] emq:{q}:repeat:<name>
-- ARGV[1] name
-- Reply:  1 cancelled, 0 no such registration
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return removed
