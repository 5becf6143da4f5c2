-- retry: settle a claimed job as failed; reschedule it after a delay, or dead-letter it at max attempts.
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:schedule
-- KEYS[3] emq:{q}:dead
-- KEYS[4] emq:{q}:job:<id>   the job row
-- KEYS[5] emq:{q}:pending
-- ARGV[1] id
-- ARGV[2] token (the attempts value the claim returned)
-- ARGV[3] delay in ms before the job is due again (from server TIME; backoff is computed by the caller)
-- ARGV[4] max attempts: when attempts >= it the job is dead-lettered
-- ARGV[5] error text, kept in last_error
-- ARGV[6] emq:{q}:   the queue base
-- Reply:  'scheduled' or 'dead'
-- Refuses: EMQSTALE job gone (no row); EMQSTALE retry token mismatch (the job was re-claimed).
-- Lanes: a grouped job gives its lane slot back; promote later returns it to its lane.
-- Flows: a dead child applies its parent's policy (parent_policy on the child row; 'fp'
-- fail-parent by default, 'id' ignore-dependency): at once for a parent in this queue, through
-- flow:outbox for a parent in another; a dead-lettered parent tells its own parent in turn.
--- @include "server_time"
--- @include "flow"
--- @include "held"
local f, stale = held(KEYS[4], ARGV[2], 'retry')
if not f then
  return stale
end
local attempts = f[1]
local base = ARGV[6]
unclaim(base, ARGV[1], f[2] or nil)
if tonumber(attempts) >= tonumber(ARGV[4]) then
  dead_letter(base, ARGV[1], ARGV[5], true)
  return 'dead'
end
redis.call('HSET', KEYS[4], 'state', 'scheduled', 'last_error', ARGV[5])
redis.call('ZADD', KEYS[2], server_ms() + tonumber(ARGV[3]), ARGV[1])
return 'scheduled'
