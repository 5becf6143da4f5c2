-- complete: settle a claimed job as done; the row is deleted and metrics:completed counts it.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:job:<id>   the job row
-- KEYS[3] emq:{q}:pending
-- ARGV[1] id
-- ARGV[2] token (the attempts value the claim returned)
-- ARGV[3] emq:{q}:   the queue base (metrics and a same-queue flow parent are derived from it)
-- ARGV[4] result recorded in a flow parent's :processed hash ('' when none)
-- The row, its :logs and its :lock marker are deleted.
-- Reply:  1 completed, 0 gone (no row)
-- Refuses: EMQSTALE when the token is not the row's current attempts (the job was re-claimed).
-- Lanes: a grouped job gives its lane slot back (gactive) and its lane rejoins the ring if it can
-- be served again.
-- Flows: a child whose row names a parent in this queue (parent_queue absent or this queue)
-- records its result once in the parent's :processed hash and releases the parent to pending (or
-- its lane) when its :dependencies count reaches 0; a parent in another queue gets an entry on this queue's
-- flow:outbox "<parent_q>\0<parent_id>\0<child_id>\0<result>".
--- @include "done"
local f = done_fields(KEYS[2])
if f.err then
  return f
end
if not f[1] then
  return 0
end
if f[1] ~= ARGV[2] then
  return redis.error_reply('EMQSTALE complete token mismatch')
end
finish(ARGV[3], {{ARGV[1], f, ARGV[4]}})
redis.call('HINCRBY', ARGV[3] .. 'metrics:completed', 'count', 1)
return 1
