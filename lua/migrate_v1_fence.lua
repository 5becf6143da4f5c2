-- migrate_v1_fence: take a v1 (BullMQ 5.x) queue for a migration, pause it for the last pass, or undo
-- that; every op fenced by the caller's lease, so a migrator whose lease lapsed writes nothing to v1.
-- KEYS[1] <prefix>:<q>:meta
-- KEYS[2] <prefix>:<q>:wait
-- KEYS[3] <prefix>:<q>:paused
-- KEYS[4] <prefix>:<q>:id          the add counter: every v1 add INCRs it before it writes anything
-- ARGV[1] op: claim | pause | thaw | resume
-- ARGV[2] the value the add counter holds while frozen
-- ARGV[3] the caller's token, <journal uid>:<fencing token> (its journal lease's)
-- ARGV[4] the tombstone, echomq:2.0.0-migrated (what meta.version holds once retirement began)
-- meta field migrating-token holds the token of whoever took the queue last (claim, pause). A caller whose
-- token is of the same journal with a lower fencing token lost its lease to that one: every op refuses it
-- (EMQLOCK), writing nothing. A token of another journal (another target's migration, an abandoned one) is
-- taken over, but by a pause while that one's pause window is open (meta.migrating-id: its add counter frozen).
-- The field stays after an abandon, so a migrator of that journal that wakes up late is refused still, and
-- after the tombstone, where it names the migration that retired the queue; a pause refuses a queue that holds
-- the tombstone.
-- Reply:  claim  -> 0, nothing written, when there is no meta (a claim creates no key on v1); 1, nothing written,
--                   when another journal's migration holds the queue inside its pause window (left to it);
--                   when meta holds the tombstone, nothing written: 3 when the token there is another
--                   journal's (another migration retired the queue), else EMQSTATE retired (v1's structures
--                   may be gone); otherwise the queue is the caller's (its token on meta): 2 when it shows a
--                   pause of this journal's migrations (a token of this journal was there, or, with no token,
--                   the add counter holds ARGV[2]: a pause by the release before tokens), else 1.
--         pause  -> {was_paused (0|1), LLEN paused}: was_paused tells whether the queue was paused when the
--                   window opened: on the window's first pause, whether meta.paused was set (saved in meta
--                   field migrating-was-paused with the counter), on a later one (a re-run inside the
--                   window) what was saved then (0 when nothing was: a window opened by the release
--                   before this field). The queue claimed (EMQLOCK, nothing written, when it
--                   holds the tombstone: only a migrator that lost its lease finds one; or when another
--                   journal's migration holds its pause window open), then, as BullMQ's pause does,
--                   meta.paused is set (v1 workers then fetch nothing) and wait is handed to paused,
--                   oldest at the tail (RENAME, or RPOPLPUSH one by one behind jobs paused already
--                   holds), so the waiting jobs are one list in serve order. The add counter (an
--                   integer, or absent) is saved in meta field migrating-id and set to ARGV[2]: until
--                   retirement stamps the tombstone over it, or a resume gives it back, a v1 add fails
--                   loudly (INCR of a non-integer) instead of moving the source under the last pass.
--         thaw   -> 1 when the add counter held ARGV[2] and got its saved value back (none when there
--                   was none), else 0; the queue stays paused (it was paused before the migration).
--         resume -> the number of jobs moved from paused back to wait: a thaw, HDEL meta.paused and,
--                   as BullMQ's resume does, paused is handed back to wait oldest-first (RPOPLPUSH; none
--                   moved when either is of a wrong type: nothing here fails after a write);
--                   -1, a thaw only, when the queue was paused when the window opened (an operator's pause
--                   outlives the migration's, whatever the caller's journal recorded of it).
local function parse(token)
  local journal, fence = string.match(token or '', '^(.*):(%d+)$')
  return journal, tonumber(fence)
end
local journal, mine = parse(ARGV[3])
if not mine then
  return redis.error_reply('EMQARGS migrate_v1_fence: the token ' .. tostring(ARGV[3]) .. ' is not <journal>:<fence>')
end
local held = redis.call('HGET', KEYS[1], 'migrating-token')
local held_journal, held_fence = parse(held)
if held_journal == journal and held_fence > mine then
  return redis.error_reply('EMQLOCK lease lost: ' .. KEYS[1] .. ' was taken by the migration (or abandon) with token '
      .. held .. ', this migrator holds ' .. ARGV[3] .. ': nothing written to v1')
end
local tombstoned = redis.call('HGET', KEYS[1], 'version') == ARGV[4]
local function claim()
  if held ~= ARGV[3] then
    redis.call('HSET', KEYS[1], 'migrating-token', ARGV[3])
  end
end
local function thaw()
  local saved = redis.call('HGET', KEYS[1], 'migrating-id')
  redis.call('HDEL', KEYS[1], 'migrating-id', 'migrating-was-paused')
  if not saved or redis.call('GET', KEYS[4]) ~= ARGV[2] then
    return 0
  end
  if saved == '' then
    redis.call('DEL', KEYS[4])
  else
    redis.call('SET', KEYS[4], saved)
  end
  return 1
end
local others = held_journal ~= nil and held_journal ~= journal
-- whether another journal's migration holds the queue inside its pause window (it saved the add counter)
local function others_window()
  return others and redis.call('HEXISTS', KEYS[1], 'migrating-id') == 1
end
if ARGV[1] == 'claim' then
  if tombstoned and others then
    return 3
  end
  if tombstoned then
    return redis.error_reply('EMQSTATE retired: ' .. KEYS[1] .. ' holds the tombstone: retirement began and may have'
        .. ' deleted v1 structures already')
  end
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
  end
  if others_window() then
    return 1
  end
  claim()
  if held_journal == journal or (not held_journal and redis.call('GET', KEYS[4]) == ARGV[2]) then
    return 2
  end
  return 1
end
if ARGV[1] == 'pause' then
  if tombstoned then
    return redis.error_reply('EMQLOCK lease lost: ' .. KEYS[1] .. ' holds the tombstone: another migrator of this queue'
        .. ' retired it')
  end
  if others_window() then
    return redis.error_reply('EMQLOCK paused by another migration: ' .. KEYS[1] .. ' is inside the pause window of the'
        .. ' migration with token ' .. held .. ' (its add counter frozen): nothing written to v1')
  end
  claim()
  local paused_now = redis.call('HEXISTS', KEYS[1], 'paused')
  local was = paused_now
  if redis.call('HEXISTS', KEYS[1], 'migrating-id') == 1 then -- this journal's window, opened by an earlier pause
    was = tonumber(redis.call('HGET', KEYS[1], 'migrating-was-paused') or '0')
  end
  -- (a wait or paused of a wrong type is left alone: the plan reports it, nothing here can fail; a meta of a
  -- wrong type fails the first HGET above, before any write, and the migration refuses such a queue before this)
  if paused_now == 0 then
    redis.call('HSET', KEYS[1], 'paused', '1')
  end
  local waiting = redis.call('TYPE', KEYS[2])['ok']
  local paused = redis.call('TYPE', KEYS[3])['ok']
  if waiting == 'list' and paused == 'none' then
    redis.call('RENAME', KEYS[2], KEYS[3])
  elseif waiting == 'list' and paused == 'list' then
    while redis.call('RPOPLPUSH', KEYS[2], KEYS[3]) do
    end
  end
  local t = redis.call('TYPE', KEYS[4])['ok']
  local counter = t == 'string' and redis.call('GET', KEYS[4])
  if t == 'none' or (counter and string.match(counter, '^%d+$')) then
    redis.call('HSET', KEYS[1], 'migrating-id', counter or '', 'migrating-was-paused', was)
    redis.call('SET', KEYS[4], ARGV[2])
  end
  if paused ~= 'list' then -- a paused of a wrong type is dropped with the source: it lists no job
    return {was, 0}
  end
  return {was, redis.call('LLEN', KEYS[3])}
end
if ARGV[1] == 'thaw' then
  return thaw()
end
if ARGV[1] == 'resume' then
  local was = redis.call('HGET', KEYS[1], 'migrating-was-paused')
  thaw()
  if was == '1' then
    return -1
  end
  redis.call('HDEL', KEYS[1], 'paused')
  local moved = 0
  local waiting = redis.call('TYPE', KEYS[2])['ok']
  if redis.call('TYPE', KEYS[3])['ok'] == 'list' and (waiting == 'list' or waiting == 'none') then
    while redis.call('RPOPLPUSH', KEYS[3], KEYS[2]) do
      moved = moved + 1
    end
  end
  return moved
end
return redis.error_reply('EMQSTATE unknown fence op ' .. tostring(ARGV[1]))
