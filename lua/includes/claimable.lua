-- take_claimable(pending, dead, job_base): remove and return the id at the head of pending whose row
-- a claim can write (a hash, or no row yet, whose attempts is absent or an integer from 0 to 2^53-2,
-- so HINCRBY cannot fail and the token stays exact); nil when pending holds none. A job whose row
-- cannot be claimed is moved to dead on the way (its state dead and last_error saying why, when the
-- row is a hash), so no claim fails after a write and no job is left in no set.
local function unclaimable(row)
  local attempts = redis.pcall('HGET', row, 'attempts')
  if type(attempts) == 'table' then
    return 'claim: the job row is not a hash'
  end
  if not attempts or ((attempts == '0' or string.match(attempts, '^[1-9]%d*$')) and #attempts <= 16
      and tonumber(attempts) <= 9007199254740990) then
    return nil
  end
  return "claim: attempts '" .. attempts .. "' is not a count from 0 to 2^53-2"
end

local function take_claimable(pending, dead, job_base)
  while true do
    local head = redis.call('ZRANGE', pending, 0, 0)
    if #head == 0 then
      return nil
    end
    local id = head[1]
    local why = unclaimable(job_base .. id)
    redis.call('ZREM', pending, id)
    if not why then
      return id
    end
    if redis.call('TYPE', job_base .. id).ok == 'hash' then
      redis.call('HSET', job_base .. id, 'state', 'dead', 'last_error', why)
    end
    redis.call('ZADD', dead, 0, id)
  end
end
