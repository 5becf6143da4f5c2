-- migrate_v1_fence: pause a v1 (BullMQ 5.x) queue for the migration, or resume it on abandon.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:wait
-- KEYS[3] <prefix>:<q>:paused
-- ARGV[1] op: pause | resume
-- Reply:  pause  -> {was_paused (0|1), LLEN paused}: with meta.paused set, v1 workers fetch nothing
--                   and v1 producers add into paused, where the migration's catch-up finds them.
--         resume -> the number of jobs moved from paused back to wait: HDEL meta.paused and, as
--                   BullMQ's resume does, hand paused back to wait oldest-first (RPOPLPUSH), so
--                   jobs added during the fence keep their order behind the ones already waiting.
if ARGV[1] == 'pause' then
  local was = redis.call('HEXISTS', KEYS[1], 'paused')
  if was == 0 then
    redis.call('HSET', KEYS[1], 'paused', '1')
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
