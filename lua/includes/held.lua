-- held(row, token, verb): the row's {attempts, group} while the caller still holds the job (token is
-- the attempts value its claim returned); else nil and the error reply to return at once:
-- 'EMQSTALE job gone' (no row) or 'EMQSTALE <verb> token mismatch' (the job was re-claimed).
local function held(row, token, verb)
  local f = redis.call('HMGET', row, 'attempts', 'group')
  if not f[1] then
    return nil, redis.error_reply('EMQSTALE job gone')
  end
  if f[1] ~= token then
    return nil, redis.error_reply('EMQSTALE ' .. verb .. ' token mismatch')
  end
  return f
end
