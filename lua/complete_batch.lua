-- complete_batch: settle many claimed jobs of one queue as done, each exactly as complete does, in
-- one call (the consumer sends a batch's completions together).
-- KEYS[1] emq:{q}:active
-- KEYS[2] emq:{q}:pending
-- ARGV[1] emq:{q}:   the queue base (rows, metrics and same-queue flow parents are derived from it)
-- ARGV[2..] id, token, result: three arguments per job (result as complete's ARGV[4])
-- Reply:  one element per job, in order: 1 completed, 0 gone (no row), or the refusal complete would
--         give, as text: 'EMQSTALE complete token mismatch' (the job was re-claimed), or
--         'EMQSTATE the job row is not a hash'; a refused job is left as it was.
-- Every row is read and every token checked before the first write; metrics:completed counts the
-- completed jobs once. A job named twice is completed once (the second reads 0).
--- @include "done"
local base = ARGV[1]
local out, fields = {}, {}
for i = 2, #ARGV, 3 do
  local f = done_fields(base .. 'job:' .. ARGV[i])
  local n = #out + 1
  if f.err then
    out[n] = 'EMQSTATE the job row is not a hash'
  elseif not f[1] then
    out[n] = 0
  elseif f[1] ~= ARGV[i + 1] then
    out[n] = 'EMQSTALE complete token mismatch'
  else
    out[n] = 1
    fields[n] = f
  end
end
local done, seen = {}, {}
for n = 1, #out do
  local i = 3 * n - 1
  if out[n] == 1 and seen[ARGV[i]] then
    out[n] = 0
  elseif out[n] == 1 then
    seen[ARGV[i]] = true
    done[#done + 1] = {ARGV[i], fields[n], ARGV[i + 2]}
  end
end
if #done > 0 then
  finish(base, done)
  redis.call('HINCRBY', base .. 'metrics:completed', 'count', #done)
end
return out
