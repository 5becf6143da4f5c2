-- state_lookup: where a job is, read by set membership.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:schedule
-- KEYS[4] emq:{q}:dead
-- KEYS[5] emq:{q}:job:<id>   the job row
-- ARGV[1] id
-- ARGV[2] emq:{q}:   the queue base (a grouped row's lane is derived from it)
-- Reply:  'pending' (in pending, or waiting in its lane) | 'active' | 'scheduled' | 'dead' |
--         'awaiting_children' | 'unknown' (row in no set) | 'absent' (no row)
--- @include "lanes"
local names = {'pending', 'active', 'scheduled', 'dead'}
for i = 1, 4 do
  if redis.call('ZSCORE', KEYS[i], ARGV[1]) then
    return names[i]
  end
end
local group = redis.call('HGET', KEYS[5], 'group')
if group and redis.call('ZSCORE', lane_key(ARGV[2], group), ARGV[1]) then
  return 'pending'
end
local state = redis.call('HGET', KEYS[5], 'state')
if state == 'awaiting_children' then
  return state
end
if redis.call('EXISTS', KEYS[5]) == 1 then
  return 'unknown'
end
return 'absent'
