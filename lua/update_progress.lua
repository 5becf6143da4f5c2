-- update_progress: record a job's progress and publish a progress event.
-- KEYS[1] emq:{q}:job:<id>   the job row
-- ARGV[1] progress value (text)
-- ARGV[2] id
-- ARGV[3] emq:{q}:   the queue base; the event goes to the pub/sub channel emq:{q}:events
-- Reply:  1 recorded, -1 gone (no row)
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
redis.call('PUBLISH', ARGV[3] .. 'events',
  cjson.encode({event = 'progress', job = ARGV[2], progress = ARGV[1]}))
return 1
