--- @include "flow"
--- @include "bulk"
--- @include "counts"
-- A claim reads every job it will take before it writes anything, so no claim fails after a write
-- and no job is left in no set.
-- claimable(set, job_base, n): reads only. Walks set (pending, or a lane) from its head in serve
-- order and returns up to n jobs a claim can take, {{id, token, payload}, ...} (token: the row's
-- attempts plus one), and the jobs it passed over, {{id, why, readable}, ...}: a row that is not a
-- hash (readable false), or whose attempts is not an integer from 0 to 2^53-2 (what HINCRBY cannot
-- count, or would count past exact). A job with no row yet is claimable (its row is created).
local function claimable(set, job_base, n)
  local good, bad = {}, {}
  local offset = 0
  while #good < n do
    local ids = redis.call('ZRANGE', set, offset, offset + n - #good - 1)
    if #ids == 0 then
      break
    end
    offset = offset + #ids
    for _, id in ipairs(ids) do
      local f = redis.pcall('HMGET', job_base .. id, 'attempts', 'payload')
      local a = f[1] or nil
      if f.err then
        bad[#bad + 1] = {id, 'claim: the job row is not a hash', false}
      elseif is_count(a) then
        good[#good + 1] = {id, tonumber(a or '0') + 1, f[2]}
      else
        bad[#bad + 1] = {id, "claim: attempts '" .. a .. "' is not a count from 0 to 2^53-2", true}
      end
    end
  end
  return good, bad
end

-- lease(set, base, good, bad, deadline): the writes of a claim, after claimable read its rows: every
-- examined job leaves set; each claimable one is leased (attempts its token, state active, in
-- active until deadline), then each passed-over one is dead-lettered with its reason (dead_letter:
-- metrics:failed and its flow parent's policy, as retry does; the row otherwise as found).
-- Returns the claims {{id, payload, token}, ...} in serve order.
local function lease(set, base, good, bad, deadline)
  local out, ids, scored = {}, {}, {}
  for _, j in ipairs(good) do
    redis.call('HSET', base .. 'job:' .. j[1], 'attempts', string.format('%d', j[2]), 'state', 'active')
    ids[#ids + 1] = j[1]
    scored[#scored + 1] = deadline
    scored[#scored + 1] = j[1]
    out[#out + 1] = {j[1], j[3], j[2]}
  end
  for _, b in ipairs(bad) do
    ids[#ids + 1] = b[1]
  end
  zrem_all(set, ids)
  zadd_all(base .. 'active', scored)
  for _, b in ipairs(bad) do
    dead_letter(base, b[1], b[2], b[3])
  end
  return out
end
