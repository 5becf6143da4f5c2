-- lane_reap: return one lane's expired leases (active score <= server TIME) to that lane; the
-- expired jobs of other lanes and flat jobs stay in active for the queue-wide reap.
-- KEYS[1] emq:{q}:active
-- ARGV[1] emq:{q}:   the queue base
-- ARGV[2] group
-- ARGV[3] limit, the most expired leases examined in one call
-- Reply:  the number of jobs recovered
-- Every row is read before the first write; a row that is not a hash is left for the queue-wide reap.
--- @include "due"
--- @include "lanes"
local base = ARGV[1]
local expired = due(KEYS[1], tonumber(ARGV[3]))
local types = row_types(base, expired)
local mine = {}
for i, id in ipairs(expired) do
  if types[i] == 'hash' and redis.call('HGET', base .. 'job:' .. id, 'group') == ARGV[2] then
    mine[#mine + 1] = id
  end
end
for _, id in ipairs(mine) do
  redis.call('ZREM', KEYS[1], id)
  give_back_slot(base, ARGV[2])
  requeue(base, id)
end
return #mine
