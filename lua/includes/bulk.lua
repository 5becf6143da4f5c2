-- Commands over many members or keys, one command per 500 (unpack has a limit), so a call of any
-- size cannot fail half way.
-- zrem_all(key, members); zadd_all(key, pairs), pairs {score, member, score, member, ...};
-- del_all(keys); hmget_all(key, fields), the values in order (false where a field is absent).
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

local function del_all(keys)
  for i = 1, #keys, 500 do
    redis.call('DEL', unpack(keys, i, math.min(#keys, i + 499)))
  end
end

local function hmget_all(key, fields)
  local values = {}
  for i = 1, #fields, 1000 do
    local part = redis.call('HMGET', key, unpack(fields, i, math.min(#fields, i + 999)))
    for j = 1, #part do
      values[#values + 1] = part[j]
    end
  end
  return values
end
