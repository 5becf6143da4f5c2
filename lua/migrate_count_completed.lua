-- migrate_count_completed: fold v1's completed jobs into metrics:completed exactly once.
-- KEYS[1] emq:{q}:metrics:completed
-- ARGV[1] the number of completed v1 jobs
-- Reply:  the count after the call. The field migrated_completed marks that the fold happened, so a
--         re-run after a crash does not count twice. Nothing is written when there is nothing to count.
if ARGV[1] ~= '0' and not redis.call('HGET', KEYS[1], 'migrated_completed') then
  redis.call('HINCRBY', KEYS[1], 'count', ARGV[1])
  redis.call('HSET', KEYS[1], 'migrated_completed', ARGV[1])
end
return tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
