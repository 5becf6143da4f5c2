-- migrate_journal_unlink: unlinks one queue's journal when it records the migration retired (`emq-migrate forget`),
-- in one step with that read: a journal that is not retired, or no longer, is kept. No lease: a retired journal's
-- migration holds none, and needs no transaction (a target user without @transaction forgets alike).
-- KEYS[1] {emq}:migration:<q>
-- Reply:  the number of fields the journal held when it was unlinked; -1 when it was kept (missing, or not retired).
if redis.call('HGET', KEYS[1], 'state') ~= 'retired' then
  return -1
end
local fields = redis.call('HLEN', KEYS[1])
redis.call('UNLINK', KEYS[1])
return fields
