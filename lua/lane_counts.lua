-- lane_counts: jobs waiting in each named lane, in one read (the reference's lane_counts).
-- KEYS[1] emq:{q}:ring   (pins the queue's slot)
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2..] groups
-- Reply:  {ZCARD of lane ARGV[2], ...}
--- @include "lanes"
local out = {}
for i = 2, #ARGV do
  out[#out + 1] = redis.call('ZCARD', lane_key(ARGV[1], ARGV[i]))
end
return out
