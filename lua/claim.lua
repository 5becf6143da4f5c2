-- claim: take the oldest pending job and lease it to the caller.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- KEYS[4] emq:{q}:dead
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (the lease ends at server TIME + lease)
-- ARGV[3] emq:{q}:   the queue base (the limiter is derived from it)
-- Reply:  {} when the queue is paused (meta.paused), pending is empty or meta.concurrency jobs are
--         active, else {id, payload, attempts}; attempts is the fencing token for settling the job.
-- Refuses: EMQRATE rate limited, retry after <ms> ms: meta.max claims were made within the current
--          meta.duration window (nothing changed).
-- Validates before it writes: a job whose row a claim cannot count (not a hash, or attempts not an
-- integer from 0 to 2^53-2) is dead-lettered with the reason (metrics:failed, its flow parent's
-- policy) and the next job is taken (claimable).
--- @include "server_time"
--- @include "claim_turn"
--- @include "claimable"
local n, refused = claim_room(KEYS[1], KEYS[3], ARGV[3], 1)
if not n then
  return refused
end
local good, bad = claimable(KEYS[1], ARGV[1], 1)
local out = lease(KEYS[1], ARGV[3], good, bad, server_ms() + tonumber(ARGV[2]))
count_claims(ARGV[3], #out)
return out[1] or {}
