-- complete: settle a claimed job as done; the row is deleted and metrics:completed counts it.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:job:<id>   the job row
-- KEYS[3] emq:{q}:pending
-- ARGV[1] id
-- ARGV[2] token (the attempts value the claim returned)
-- ARGV[3] emq:{q}:   the queue base (metrics and a same-queue flow parent are derived from it)
-- ARGV[4] result recorded in a flow parent's :processed hash ('' when none)
-- The row, its :logs and its :lock marker are deleted.
-- Reply:  1 completed, 0 gone (no row)
-- Refuses: EMQSTALE when the token is not the row's current attempts (the job was re-claimed).
-- Flows: a child whose row names a parent in this queue (parent_queue absent or this queue)
-- records its result once in the parent's :processed hash and releases the parent to pending when
-- its :dependencies count reaches 0; a parent in another queue gets an entry on this queue's
-- flow:outbox "<parent_q>\0<parent_id>\0<child_id>\0<result>".
local attempts = redis.call('HGET', KEYS[2], 'attempts')
if not attempts then
  return 0
end
if attempts ~= ARGV[2] then
  return redis.error_reply('EMQSTALE complete token mismatch')
end
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  redis.call('ZREM', KEYS[3], ARGV[1])
end
local base = ARGV[3]
local parent = redis.call('HGET', KEYS[2], 'parent')
if parent then
  local own = string.sub(base, 6, #base - 2)
  local pq = redis.call('HGET', KEYS[2], 'parent_queue')
  if not pq or pq == '' or pq == own then
    local prow = base .. 'job:' .. parent
    if redis.call('HSETNX', prow .. ':processed', ARGV[1], ARGV[4]) == 1 then
      local left = redis.call('DECR', prow .. ':dependencies')
      if left <= 0 and redis.call('HGET', prow, 'state') == 'awaiting_children' then
        redis.call('HSET', prow, 'state', 'pending')
        redis.call('ZADD', KEYS[3], 0, parent)
      end
    end
  else
    redis.call('RPUSH', base .. 'flow:outbox', pq .. '\0' .. parent .. '\0' .. ARGV[1] .. '\0' .. ARGV[4])
  end
end
local row = base .. 'job:' .. ARGV[1]
redis.call('DEL', KEYS[2], row .. ':logs', row .. ':lock')
redis.call('HINCRBY', base .. 'metrics:completed', 'count', 1)
return 1
