-- retry: settle a claimed job as failed; reschedule it after a delay, or dead-letter it at max attempts.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:schedule
-- KEYS[3] emq:{q}:dead
-- KEYS[4] emq:{q}:job:<id>   the job row
-- KEYS[5] emq:{q}:pending
-- ARGV[1] id
-- ARGV[2] token (the attempts value the claim returned)
-- ARGV[3] delay in ms before the job is due again (from server TIME; backoff is computed by the caller)
-- ARGV[4] max attempts: when attempts >= it the job is dead-lettered
-- ARGV[5] error text, kept in last_error
-- ARGV[6] emq:{q}:   the queue base
-- Reply:  'scheduled' or 'dead'
-- Refuses: EMQSTALE job gone (no row); EMQSTALE retry token mismatch (the job was re-claimed).
-- Flows: a dead child whose parent is in this queue applies the parent's policy (parent_policy on
-- the child row; 'fp' fail-parent by default, 'id' ignore-dependency).
local attempts = redis.call('HGET', KEYS[4], 'attempts')
if not attempts then
  return redis.error_reply('EMQSTALE job gone')
end
if attempts ~= ARGV[2] then
  return redis.error_reply('EMQSTALE retry token mismatch')
end
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  redis.call('ZREM', KEYS[5], ARGV[1])
end
redis.call('HSET', KEYS[4], 'last_error', ARGV[5])
local base = ARGV[6]
if tonumber(attempts) >= tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[4], 'state', 'dead')
  redis.call('ZADD', KEYS[3], 0, ARGV[1])
  redis.call('HINCRBY', base .. 'metrics:failed', 'count', 1)
  local parent = redis.call('HGET', KEYS[4], 'parent')
  if parent then
    local own = string.sub(base, 6, #base - 2)
    local pq = redis.call('HGET', KEYS[4], 'parent_queue')
    local policy = redis.call('HGET', KEYS[4], 'parent_policy') or 'fp'
    if not pq or pq == '' or pq == own then
      local prow = base .. 'job:' .. parent
      if policy == 'id' then
        if redis.call('HSETNX', prow .. ':unsuccessful', ARGV[1], ARGV[5]) == 1 then
          local left = redis.call('DECR', prow .. ':dependencies')
          if left <= 0 and redis.call('HGET', prow, 'state') == 'awaiting_children' then
            redis.call('HSET', prow, 'state', 'pending')
            redis.call('ZADD', KEYS[5], 0, parent)
          end
        end
      elseif redis.call('HSETNX', prow .. ':failed', ARGV[1], ARGV[5]) == 1 and redis.call('EXISTS', prow) == 1 then
        redis.call('HSET', prow, 'state', 'dead')
        redis.call('ZREM', KEYS[5], parent)
        redis.call('ZADD', KEYS[3], 0, parent)
      end
    else
      redis.call('RPUSH', base .. 'flow:outbox',
        '\0fail\0' .. pq .. '\0' .. parent .. '\0' .. ARGV[1] .. '\0' .. policy .. '\0' .. ARGV[5])
    end
  end
  return 'dead'
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[4], 'state', 'scheduled')
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
return 'scheduled'
