-- is_count(v): whether v (a field's value, nil when absent) is absent or an integer from 0 to
-- 2^53-2: what HINCRBY can count, with the result still exact in Lua. Read before a script writes.
local function is_count(v)
  return not v or ((v == '0' or string.match(v, '^[1-9]%d*$') ~= nil) and #v <= 16
    and tonumber(v) <= 9007199254740990)
end
