--- @include "lanes"
-- Flows (v2 protocol §4.9): a parent waits in state awaiting_children with :dependencies counting
-- its outstanding children; a child row names parent, parent_queue ('' or absent: this queue) and
-- parent_policy ('fp' fail-parent, the default, or 'id' ignore-dependency).
-- is_own_queue(base, pq): whether parent_queue pq names the queue whose base is base.
local function is_own_queue(base, pq)
  return not pq or pq == '' or base == 'emq:{' .. pq .. '}:'
end

-- count_child(base, parent, hash, child, value): record a settled child once in the parent's
-- :<hash> and, at the last outstanding child, release a parent awaiting its children into the flat
-- pending set, as the reference does (v2 protocol §4.9), a row with a group too: a lanes consumer
-- never serves a released parent.
-- Returns 0 already recorded, 1 recorded, 2 recorded and the parent released.
local function count_child(base, parent, hash, child, value)
  local prow = base .. 'job:' .. parent
  if redis.call('HSETNX', prow .. ':' .. hash, child, value) == 0 then
    return 0
  end
  local left = redis.call('DECR', prow .. ':dependencies')
  if left <= 0 and redis.call('HGET', prow, 'state') == 'awaiting_children' then
    redis.call('ZADD', base .. 'pending', 0, parent)
    redis.call('HSET', prow, 'state', 'pending')
    return 2
  end
  return 1
end

-- flow_parent(base, id): the flow parent of job id (nil when it has none), the queue it lives in
-- (nil or '' : this queue) and its failure policy ('fp' unless the row says otherwise).
local function flow_parent(base, id)
  local row = base .. 'job:' .. id
  local f = redis.call('HMGET', row, 'parent', 'parent_queue', 'parent_policy')
  return f[1] or nil, f[2] or nil, f[3] or 'fp'
end

local child_died

-- dead_letter(base, id, err, readable): job id, already out of its set, goes to dead, counted in
-- metrics:failed; a readable row (a hash) also gets state dead and last_error err, and its flow
-- parent applies its failure policy (child_died). A row that is not a hash is left as found.
local function dead_letter(base, id, err, readable)
  if readable then
    redis.call('HSET', base .. 'job:' .. id, 'state', 'dead', 'last_error', err)
  end
  redis.call('ZADD', base .. 'dead', 0, id)
  redis.call('HINCRBY', base .. 'metrics:failed', 'count', 1)
  if readable then
    child_died(base, id, err)
  end
end

-- fail_parent(base, parent, child, err): a fail-parent child died; a parent still waiting (on
-- its children or in line) is dead-lettered, and its own parent is told in turn, through every
-- level. Returns 0 already recorded, 1 recorded (parent unchanged), 3 parent dead-lettered.
local function fail_parent(base, parent, child, err)
  local prow = base .. 'job:' .. parent
  if redis.call('HSETNX', prow .. ':failed', child, err) == 0 then
    return 0
  end
  local state = redis.call('HGET', prow, 'state')
  if state ~= 'awaiting_children' and state ~= 'pending' then
    return 1
  end
  out_of_line(base, parent)
  dead_letter(base, parent, 'child ' .. child .. ' failed: ' .. err, true)
  return 3
end

-- child_died(base, id, err): a dead-lettered job that is a flow child applies its parent's policy:
-- in this queue at once, in another queue through this queue's flow:outbox
-- ("\0fail\0<parent_q>\0<parent_id>\0<child_id>\0<policy>\0<error>").
child_died = function(base, id, err)
  local parent, pq, policy = flow_parent(base, id)
  if not parent then
    return
  end
  if not is_own_queue(base, pq) then
    redis.call('RPUSH', base .. 'flow:outbox',
      '\0fail\0' .. pq .. '\0' .. parent .. '\0' .. id .. '\0' .. policy .. '\0' .. err)
  elseif redis.call('EXISTS', base .. 'job:' .. parent) == 0 then
    return
  elseif policy == 'id' then
    count_child(base, parent, 'unsuccessful', id, err)
  else
    fail_parent(base, parent, id, err)
  end
end

-- child_done(base, id, result, parent, pq): a completed job that is a flow child (its row's parent
-- and parent_queue, read by the caller; parent nil when it has none) records its result with its
-- parent: in this queue at once, in another queue through this queue's flow:outbox
-- ("<parent_q>\0<parent_id>\0<child_id>\0<result>").
local function child_done(base, id, result, parent, pq)
  if not parent then
    return
  end
  if is_own_queue(base, pq) then
    count_child(base, parent, 'processed', id, result)
  else
    redis.call('RPUSH', base .. 'flow:outbox', pq .. '\0' .. parent .. '\0' .. id .. '\0' .. result)
  end
end
