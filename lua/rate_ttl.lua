-- rate_ttl: how long the rate limit still holds claims off (the reference's rate_ttl).
-- KEYS[1] emq:{q}:limiter
-- KEYS[2] emq:{q}:meta
-- ARGV[1] max claims per window; 0 reads meta.max
-- Reply:  the limiter's remaining ms when max > 0 claims were counted in the window, else 0
local max = tonumber(ARGV[1])
if max == 0 then
  max = tonumber(redis.call('HGET', KEYS[2], 'max') or '0')
end
if max > 0 and max <= tonumber(redis.call('GET', KEYS[1]) or '0') then
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl > 0 then
    return pttl
  end
end
return 0
