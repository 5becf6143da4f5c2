-- migrate_v1_fence: pause a v1 (BullMQ 5.x) queue for the migration, or resume it on abandon.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:wait
-- KEYS[3] <prefix>:<q>:paused
-- ARGV[1] op: pause | resume
-- Reply:  pause  -> {was_paused (0|1), LLEN paused}: as BullMQ's pause does, meta.paused is set (v1
--                   workers then fetch nothing, v1 producers add into paused, where the migration's
--                   re-sync finds them) and wait is handed to paused, oldest at the tail (RENAME, or
--                   RPOPLPUSH one by one behind jobs paused already holds), so the waiting jobs and
--                   the ones added during the fence are one list in serve order.
--         resume -> the number of jobs moved from paused back to wait: HDEL meta.paused and, as
--                   BullMQ's resume does, hand paused back to wait oldest-first (RPOPLPUSH), so
--                   jobs added during the fence keep their order behind the ones already waiting.
if ARGV[1] == 'pause' then
  local was = redis.call('HEXISTS', KEYS[1], 'paused')
  -- (a wait or paused of a wrong type is left alone: the plan reports it, nothing here can fail)
  if was == 0 then
    redis.call('HSET', KEYS[1], 'paused', '1')
  end
  local waiting = redis.call('TYPE', KEYS[2])['ok']
  local paused = redis.call('TYPE', KEYS[3])['ok']
  if waiting == 'list' and paused == 'none' then
    redis.call('RENAME', KEYS[2], KEYS[3])
  elseif waiting == 'list' and paused == 'list' then
    while redis.call('RPOPLPUSH', KEYS[2], KEYS[3]) do
    end
  end
  return {was, redis.call('LLEN', KEYS[3])}
end
if ARGV[1] == 'resume' then
  redis.call('HDEL', KEYS[1], 'paused')
  local moved = 0
  while redis.call('RPOPLPUSH', KEYS[3], KEYS[2]) do
    moved = moved + 1
  end
  return moved
end
return redis.error_reply('EMQSTATE unknown fence op ' .. tostring(ARGV[1]))
