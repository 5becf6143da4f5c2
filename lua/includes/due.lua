--- @include "server_time"
-- due(set, limit): up to limit members of set whose score (a due time or a lease deadline in Unix
-- ms) is at or before the server clock. Reads only: the caller reads their rows, then takes them.
local function due(set, limit)
  return redis.call('ZRANGEBYSCORE', set, '-inf', server_ms(), 'LIMIT', 0, limit)
end

-- row_types(base, ids): the TYPE of each job's row ('hash', 'none' when gone, or another type), read
-- before a script writes, so a row no verb can read is known before anything moved.
local function row_types(base, ids)
  local types = {}
  for i, id in ipairs(ids) do
    types[i] = redis.call('TYPE', base .. 'job:' .. id).ok
  end
  return types
end
