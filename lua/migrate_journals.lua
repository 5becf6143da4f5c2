-- migrate_journals: one call about the journals of many queues (every journal is in the {emq} slot, so
-- one call reaches them all also on a cluster): renews their leases, or writes one field into each (a
-- step's history row); each journal fenced by its own migrator's token, as migrate_journal_lock's
-- renew and migrate_journal_set do for one.
-- KEYS[1..n]  {emq}:migration:<q>
-- ARGV[1]     op: renew | set
-- ARGV[2]     lease in ms (renew; ignored by set)
-- ARGV[2+i]   the token of KEYS[i]
-- ARGV[2+n+2i-1], ARGV[2+n+2i]   set only: the field and value for KEYS[i] (never an r: expectation,
--             whose count migrate_journal_set keeps)
-- Reply: one element per key, in order: 1, or the EMQLOCK text when its token is not the current one
-- (that journal is left untouched; the others are written). Malformed calls are refused before any write.
--- @include "server_time"
--- @include "lease"
--- @include "expected_rows"
local n = #KEYS
local op = ARGV[1]
if op == 'renew' then
  if #ARGV ~= 2 + n or not tonumber(ARGV[2]) then
    return redis.error_reply('EMQSTATE renew takes a lease in ms and one token per journal')
  end
elseif op == 'set' then
  if #ARGV ~= 2 + 3 * n then
    return redis.error_reply('EMQSTATE set takes one token, field and value per journal')
  end
  for i = 1, n do
    if is_expectation(ARGV[2 + n + 2 * i - 1]) then
      return redis.error_reply('EMQSTATE set writes no expectation (' .. ARGV[2 + n + 2 * i - 1] .. '): use migrate_journal_set')
    end
  end
else
  return redis.error_reply('EMQSTATE unknown journals op ' .. tostring(op))
end
local until_ms = op == 'renew' and server_ms() + tonumber(ARGV[2]) or nil
local out = {}
for i = 1, n do
  if not holds_lease(KEYS[i], 'lock_token', ARGV[2 + i]) then
    out[i] = 'EMQLOCK lease lost: another migrator took over this queue'
  elseif op == 'renew' then
    redis.call('HSET', KEYS[i], 'lock_until', until_ms)
    out[i] = 1
  else
    redis.call('HSET', KEYS[i], ARGV[2 + n + 2 * i - 1], ARGV[2 + n + 2 * i])
    out[i] = 1
  end
end
return out
