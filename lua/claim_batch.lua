-- claim_batch: take up to N oldest pending jobs on one shared lease.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- KEYS[4] emq:{q}:dead
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (every member's lease ends at the same server TIME + lease)
-- ARGV[3] N, the largest batch wanted (>= 1)
-- Reply:  {} when paused or empty, else {{id, payload, attempts}, ...} in pop (mint) order;
--         fewer than N members when pending holds fewer.
-- Validates each job before it writes to it: a job whose row is not a hash, or whose attempts is not
-- a count the claim can increment (an integer from 0 to 2^53-2, so the token stays exact), is never
-- claimed: it is moved to dead (state dead, last_error saying why) and the batch takes the next job.
if redis.call('HEXISTS', KEYS[3], 'paused') == 1 then
  return {}
end
-- Why the job with this row cannot be claimed, or nil when it can.
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
local want = tonumber(ARGV[3])
local t = redis.call('TIME')
local deadline = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
local out = {}
while #out < want do
  local head = redis.call('ZRANGE', KEYS[1], 0, want - #out - 1)
  if #head == 0 then
    break
  end
  for _, id in ipairs(head) do
    local row = ARGV[1] .. id
    local why = unclaimable(row)
    redis.call('ZREM', KEYS[1], id)
    if not why then
      local attempts = redis.call('HINCRBY', row, 'attempts', 1)
      redis.call('HSET', row, 'state', 'active')
      redis.call('ZADD', KEYS[2], deadline, id)
      out[#out + 1] = {id, redis.call('HGET', row, 'payload'), attempts}
    else
      if redis.call('TYPE', row).ok == 'hash' then
        redis.call('HSET', row, 'state', 'dead', 'last_error', why)
      end
      redis.call('ZADD', KEYS[4], 0, id)
    end
  end
end
return out
