-- queue_pause: pause the whole queue; claims answer empty while meta.paused is set.
-- KEYS[1] emq:{q}:meta
-- Reply:  1
redis.call('HSET', KEYS[1], 'paused', '1')
return 1
