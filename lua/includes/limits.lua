-- Queue limits, read from emq:{q}:meta: concurrency (at most that many jobs active at once), max
-- and duration (at most max claims per duration ms, counted in emq:{q}:limiter with a TTL).
-- allowance(base, want): how many of want jobs a claim may take now, and when the rate limit is
-- what stops it, the ms until its window ends (else 0).
local function allowance(base, want)
  local meta = base .. 'meta'
  local cap = tonumber(redis.call('HGET', meta, 'concurrency') or '0') or 0
  if cap > 0 then
    want = math.min(want, cap - redis.call('ZCARD', base .. 'active'))
  end
  local max = tonumber(redis.call('HGET', meta, 'max') or '0') or 0
  if max > 0 and want > 0 then
    local used = tonumber(redis.call('GET', base .. 'limiter') or '0')
    if used >= max then
      local ttl = redis.call('PTTL', base .. 'limiter')
      if ttl > 0 then
        return 0, ttl
      end
      redis.call('DEL', base .. 'limiter')
      used = 0
    end
    want = math.min(want, max - used)
  end
  return math.max(want, 0), 0
end

-- count_claims(base, n): count n claims against the rate limit (the window opens at the first).
local function count_claims(base, n)
  local max = tonumber(redis.call('HGET', base .. 'meta', 'max') or '0') or 0
  if n > 0 and max > 0 and redis.call('INCRBY', base .. 'limiter', n) == n then
    redis.call('PEXPIRE', base .. 'limiter', tonumber(redis.call('HGET', base .. 'meta', 'duration') or '1000'))
  end
end

-- rate_limited(ttl): the refusal a claim answers while the rate limit's window is spent.
local function rate_limited(ttl)
  return redis.error_reply('EMQRATE rate limited, retry after ' .. ttl .. ' ms')
end
