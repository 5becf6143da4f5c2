-- server_ms(): the server clock (TIME) in Unix milliseconds; no host timestamp crosses a lease.
local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- due_ms(mode, ms): when a job is due, in Unix ms: ms itself ('at'), or ms after the server clock ('in').
local function due_ms(mode, ms)
  if mode == 'in' then
    return server_ms() + tonumber(ms)
  end
  return tonumber(ms)
end
