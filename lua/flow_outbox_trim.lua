-- flow_outbox_trim: take delivered entries off the head of a queue's flow outbox (after delivery).
-- KEYS[1] emq:{q}:flow:outbox
-- ARGV    the entries delivered, in the order they were read from the head
-- An entry is removed only while it is the head. Entries are pushed at the tail and taken from the
-- head, so with several deliverers on one outbox an entry another deliverer already took is
-- skipped, and an entry pushed since the read is never removed undelivered (a plain LTRIM by count
-- would drop it).
-- Reply:  the number of entries removed
local removed = 0
for i = 1, #ARGV do
  if redis.call('LINDEX', KEYS[1], 0) == ARGV[i] then
    redis.call('LPOP', KEYS[1])
    removed = removed + 1
  end
end
return removed
