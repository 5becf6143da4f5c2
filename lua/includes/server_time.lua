-- server_ms(): the server clock (TIME) in Unix milliseconds; no host timestamp crosses a lease.
local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
