--- @include "limits"
-- claim_room(pending, meta, base, want): how many of want jobs a flat claim may take now; or false
-- and the reply it gives instead: empty when the queue is paused (meta.paused), pending is empty or
-- meta.concurrency jobs are active, the EMQRATE refusal while the rate limit's window is spent.
local function claim_room(pending, meta, base, want)
  if redis.call('HEXISTS', meta, 'paused') == 1 or redis.call('ZCARD', pending) == 0 then
    return false, {}
  end
  local n, ttl = allowance(base, want)
  if ttl > 0 then
    return false, rate_limited(ttl)
  end
  if n == 0 then
    return false, {}
  end
  return n
end
