-- state_lookup: where a job is, read by set membership.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:schedule
-- KEYS[4] emq:{q}:dead
-- KEYS[5] emq:{q}:job:<id>   the job row
-- ARGV[1] id
-- Reply:  'pending' | 'active' | 'scheduled' | 'dead' | 'awaiting_children' | 'unknown' (row in
--         no set) | 'absent' (no row)
local names = {'pending', 'active', 'scheduled', 'dead'}
for i = 1, 4 do
  if redis.call('ZSCORE', KEYS[i], ARGV[1]) then
    return names[i]
  end
end
local state = redis.call('HGET', KEYS[5], 'state')
if state == 'awaiting_children' then
  return state
end
if redis.call('EXISTS', KEYS[5]) == 1 then
  return 'unknown'
end
return 'absent'
