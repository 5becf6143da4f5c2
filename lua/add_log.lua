-- add_log: append a line to a job's log, optionally keeping only the newest lines.
-- KEYS[1] emq:{q}:job:<id>        the job row
-- KEYS[2] emq:{q}:job:<id>:logs
-- ARGV[1] the line
-- ARGV[2] keep: the most lines kept (> 0), or '' to keep all
-- Reply:  the number of lines now kept, -1 gone (no row)
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
local n = redis.call('RPUSH', KEYS[2], ARGV[1])
local keep = tonumber(ARGV[2])
if keep and keep > 0 then
  redis.call('LTRIM', KEYS[2], -keep, -1)
  return math.min(keep, n)
end
return n
