-- claim_batch: take up to N oldest pending jobs on one shared lease.
-- KEYS[1] emq:{q}:pending
-- KEYS[2] emq:{q}:active
-- KEYS[3] emq:{q}:meta
-- KEYS[4] emq:{q}:dead
-- ARGV[1] emq:{q}:job:   the job-row base of the same queue
-- ARGV[2] lease in ms (every member's lease ends at the same server TIME + lease)
-- ARGV[3] N, the largest batch wanted (>= 1)
-- ARGV[4] emq:{q}:   the queue base (the limiter is derived from it)
-- Reply:  {} when paused, empty or at meta.concurrency, else {{id, payload, attempts}, ...} in pop
--         (mint) order; fewer than N members when pending holds fewer or the limits allow fewer.
-- Refuses: EMQRATE rate limited, retry after <ms> ms (see claim).
-- Validates each job before it writes to it: a job whose row a claim cannot count (not a hash, or
-- attempts not an integer from 0 to 2^53-2) is dead-lettered with the reason (metrics:failed, its
-- flow parent's policy) and the batch takes the next job (claimable); every row is read before the
-- first write.
--- @include "server_time"
--- @include "claim_turn"
--- @include "claimable"
local n, refused = claim_room(KEYS[1], KEYS[3], ARGV[4], tonumber(ARGV[3]))
if not n then
  return refused
end
local good, bad = claimable(KEYS[1], ARGV[1], n)
local out = lease(KEYS[1], ARGV[4], good, bad, server_ms() + tonumber(ARGV[2]))
count_claims(ARGV[4], #out)
return out
