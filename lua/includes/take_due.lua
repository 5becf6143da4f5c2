--- @include "server_time"
-- take_due(set, limit): remove and return up to limit members of set whose score (a due time or a
-- lease deadline in Unix ms) is at or before the server clock.
local function take_due(set, limit)
  local due = redis.call('ZRANGEBYSCORE', set, '-inf', server_ms(), 'LIMIT', 0, limit)
  if #due > 0 then
    redis.call('ZREM', set, unpack(due))
  end
  return due
end
