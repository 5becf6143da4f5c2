-- holds_lease(key, field, token): whether the hash field that holds a migration's fencing token (the
-- journal's lock_token, or the v2 queue's meta.migration) holds this caller's token.
-- lease_lost(): the refusal for a caller that does not: its lease lapsed and another migrator took over.
local function holds_lease(key, field, token)
  return redis.call('HGET', key, field) == token
end
local function lease_lost()
  return redis.error_reply('EMQLOCK lease lost: another migrator took over this queue')
end
