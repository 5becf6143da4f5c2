-- zrem_all(key, members) and zadd_all(key, pairs): one command per 500 members (unpack has a limit),
-- so a call of any size cannot fail half way; pairs is {score, member, score, member, ...}.
local function zrem_all(key, members)
  for i = 1, #members, 500 do
    redis.call('ZREM', key, unpack(members, i, math.min(#members, i + 499)))
  end
end

local function zadd_all(key, pairs)
  for i = 1, #pairs, 1000 do
    redis.call('ZADD', key, unpack(pairs, i, math.min(#pairs, i + 999)))
  end
end
