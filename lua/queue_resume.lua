-- queue_resume: lift a queue-wide pause.
-- KEYS[1] emq:{q}:meta
-- Reply:  1
redis.call('HDEL', KEYS[1], 'paused')
return 1
