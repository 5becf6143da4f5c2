-- counts: the size of each requested set, then each requested metric count.
-- KEYS    the set keys to measure (any of emq:{q}:pending, active, schedule, dead)
-- ARGV[1] emq:{q}:   the queue base (metrics hashes are derived from it)
-- ARGV[2..] metric names ('completed', 'failed')
-- Reply:  {ZCARD KEYS[1], ..., count of metrics:<ARGV[2]>, ...} (0 for an absent metric)
local out = {}
for i = 1, #KEYS do
  out[#out + 1] = redis.call('ZCARD', KEYS[i])
end
for i = 2, #ARGV do
  out[#out + 1] = tonumber(redis.call('HGET', ARGV[1] .. 'metrics:' .. ARGV[i], 'count') or '0')
end
return out
