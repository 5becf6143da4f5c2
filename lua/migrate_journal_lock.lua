-- migrate_journal_lock: the migrator's lease on one queue's journal, with a fencing token.
-- KEYS[1] {emq}:migration:<q>   the journal hash
-- ARGV[1] op: acquire | release | hold (renewals go through migrate_journals, many queues in one call)
-- ARGV[2] owner (host:pid:nonce of the migrator)
-- ARGV[3] token (release; ignored by acquire)
-- ARGV[4] lease in ms (acquire)
-- A new journal starts with expected_rows 0 (migrate_journal_set and _forget keep it exact).
-- Reply:  acquire -> {the new fencing token (an integer, HINCRBY lock_fence), the journal's uid}: lock_uid,
--                    set (server time) when the journal first gets a lease, tells this journal's tokens
--                    from another's (the v1 side is fenced with <uid>:<token>, see migrate_v1_fence);
--         release -> 1; hold -> 1 (the caller's token is current: nothing written).
--         EMQLOCK when another live owner holds the lease, or the caller's token is not current.
--- @include "server_time"
--- @include "lease"
local now = server_ms()
local op = ARGV[1]
if op == 'acquire' then
  local held = redis.call('HMGET', KEYS[1], 'lock_owner', 'lock_until')
  if held[1] and tonumber(held[2]) > now then
    return redis.error_reply('EMQLOCK queue is being migrated by ' .. held[1] .. ' for ' .. (tonumber(held[2]) - now) .. ' ms more')
  end
  if redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('HSET', KEYS[1], 'expected_rows', 0)
  end
  local token = redis.call('HINCRBY', KEYS[1], 'lock_fence', 1)
  local t = redis.call('TIME')
  redis.call('HSETNX', KEYS[1], 'lock_uid', t[1] .. '-' .. t[2])
  redis.call('HSET', KEYS[1], 'lock_owner', ARGV[2], 'lock_token', token, 'lock_until', now + tonumber(ARGV[4]))
  return {token, redis.call('HGET', KEYS[1], 'lock_uid')}
end
if not holds_lease(KEYS[1], 'lock_token', ARGV[3]) then
  return lease_lost()
end
if op == 'hold' then
  return 1
end
if op == 'release' then
  redis.call('HDEL', KEYS[1], 'lock_owner', 'lock_token', 'lock_until')
  return 1
end
return redis.error_reply('EMQSTATE unknown lock op ' .. tostring(op))
