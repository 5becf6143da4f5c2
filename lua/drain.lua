-- drain: delete every waiting job (and optionally every scheduled job); active jobs are untouched.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:schedule   optional
-- ARGV[1] emq:{q}:   the queue base (job rows are derived from it)
-- Reply:  the number of jobs deleted
local total = 0
for k = 1, #KEYS do
  while true do
    local ids = redis.call('ZRANGE', KEYS[k], 0, 499)
    if #ids == 0 then break end
    for _, id in ipairs(ids) do
      local row = ARGV[1] .. 'job:' .. id
      redis.call('DEL', row, row .. ':logs')
    end
    redis.call('ZREM', KEYS[k], unpack(ids))
    total = total + #ids
  end
end
return total
