-- update_data: replace a job's payload.
-- KEYS[1] emq:{q}:job:<id>   the job row
-- ARGV[1] payload (opaque bytes)
-- Reply:  1 replaced, -1 gone (no row)
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
redis.call('HSET', KEYS[1], 'payload', ARGV[1])
return 1
