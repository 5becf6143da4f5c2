-- lane_drain: delete every waiting job of one lane (rows and logs) and take the lane off the ring;
-- jobs in flight, gactive, the lane's pause and glimit, and every other lane are untouched.
-- KEYS[1] emq:{q}:g:<group>:pending
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] group
-- Reply:  the number of jobs deleted
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  local row = ARGV[1] .. 'job:' .. id
  redis.call('DEL', row, row .. ':logs')
end
redis.call('DEL', KEYS[1])
redis.call('LREM', ARGV[1] .. 'ring', 0, ARGV[2])
return #ids
