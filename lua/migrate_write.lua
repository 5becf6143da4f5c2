-- migrate_write: a batch of the migrator's writes to one v2 queue (flow records, dedup keys and
-- receipts, logs, schedulers, completed counts, undo), fenced by the lease token. Every key is of the
-- same queue (one hash slot).
-- KEYS[1] emq:{q}:meta   field migration = the fencing token of the migrator that owns the queue
-- KEYS[2..] the keys the commands write (KEYS[1] too, for HSET/HDEL of meta fields other than migration:
--           the queue settings a migration carries over)
-- ARGV[1] the caller's fencing token
-- ARGV[2..] commands, one after the other: name, key index (into KEYS), n, then n arguments:
--           DEL (n=0) | DELEQ value (n=1: DEL only while the key is a string holding value)
--           | SET value px nx (n=3; px '0' = no expiry, nx '1' = only if absent)
--           | HSET field value ... | HDEL field ... | HINCRBY field by (n=2) | RPUSH value ...
--           | ZADD score member ... | ZREM member ...
-- Reply:  the number of commands run. EMQLOCK (nothing written) when the token is not the one held:
--         another migrator took over. EMQARGS (nothing written) for a malformed batch; every command
--         is checked before the first one runs.
--- @include "lease"
if not holds_lease(KEYS[1], 'migration', ARGV[1]) then
  return lease_lost()
end
local arity = {DEL = 0, DELEQ = 1, SET = 3, HSET = -2, HDEL = -1, HINCRBY = 2, RPUSH = -1, ZADD = -2, ZREM = -1}
local a = 2
local commands = 0
while a <= #ARGV do
  local want = arity[ARGV[a]]
  local k = tonumber(ARGV[a + 1])
  local n = tonumber(ARGV[a + 2])
  if not want or not k or k < 1 or k > #KEYS or not n or a + 2 + n > #ARGV
      or (want >= 0 and n ~= want) or (want < 0 and (n < -want or n % -want ~= 0)) then
    return redis.error_reply('EMQARGS migrate_write: bad command at argument ' .. a)
  end
  if k == 1 then
    local ok = ARGV[a] == 'HSET' or ARGV[a] == 'HDEL'
    if ok then
      for i = a + 3, a + 2 + n, -want do
        ok = ok and ARGV[i] ~= 'migration'
      end
    end
    if not ok then
      return redis.error_reply('EMQARGS migrate_write: the meta key takes HSET/HDEL of fields other than migration')
    end
  end
  a = a + 3 + n
  commands = commands + 1
end
a = 2
while a <= #ARGV do
  local name, key, n = ARGV[a], KEYS[tonumber(ARGV[a + 1])], tonumber(ARGV[a + 2])
  if name == 'DEL' then
    redis.call('DEL', key)
  elseif name == 'DELEQ' then
    if redis.call('TYPE', key).ok == 'string' and redis.call('GET', key) == ARGV[a + 3] then
      redis.call('DEL', key)
    end
  elseif name == 'SET' then
    local args = {key, ARGV[a + 3]}
    if ARGV[a + 4] ~= '0' then
      args[#args + 1] = 'PX'
      args[#args + 1] = ARGV[a + 4]
    end
    if ARGV[a + 5] == '1' then
      args[#args + 1] = 'NX'
    end
    redis.call('SET', unpack(args))
  else
    redis.call(name, key, unpack(ARGV, a + 3, a + 2 + n))
  end
  a = a + 3 + n
end
return commands
