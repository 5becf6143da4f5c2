-- migrate_assign_ids: give each v1 id its branded JOB id, minting only ids the journal lacks.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token
-- ARGV[2] one flag per id: '1' keeps a v1 id that is already a JOB branded id as it is, '0' mints
-- ARGV[3..] v1 job ids, in serve order
-- Reply:  the branded ids, in argument order. A minted id is JOB + 11-digit base62 of
--         id_base * 2^36 + the next rank (HINCRBY hwm 1, skipping any rank whose id a kept id already
--         holds), so ids are minted in the order given, never reused, and distinct from every other
--         queue's (each queue has its own id_base); a v1 id already mapped keeps its id, so a re-run
--         after a crash gives the same answer. A kept id that another job already holds is minted
--         instead. Values stay below 2^53, exact in Lua's numbers.
--         Fields read: id_base (written by the fence step). Written: v1:<v1 id> = branded id; the way
--         back, v1 id by branded id: v2:<kept id> = itself, and for minted ids one field a block of
--         BLOCK ranks, v2r:<block> = an entry for each rank from the block's first (block * BLOCK + 1)
--         up to hwm, in rank order: '<length>:<v1 id>' for a minted rank, '-' for one minted before
--         this layout (a journal begun by an earlier release, whose v2:<minted id> fields tell them) or
--         skipped (a kept id holds it); hwm; and kept (1 once any id was kept as itself: only then can a
--         candidate id be held already; the fence writes 0 with id_base, so a journal begun by a release
--         before this field, which may hold kept ids without it, has it absent and its candidates are
--         always read).
--         Cost: a batch with no id to keep reads its mappings with one HMGET (and, unless kept is 0,
--         its candidate ids with another; and the block its first rank falls in when that block began
--         before it) and writes them, their blocks and hwm with one HSET a 1000 ids; if a candidate id
--         is already held (by a kept id), or an id is to be kept, the batch takes the id-by-id path
--         (the same answer, more commands).
--- @include "lease"
if not holds_lease(KEYS[1], 'lock_token', ARGV[1]) then
  return lease_lost()
end
local base = tonumber(redis.call('HGET', KEYS[1], 'id_base'))
if not base then
  return redis.error_reply('EMQSTATE the journal has no id_base: the fence step must run first')
end
local BLOCK = 1000
local RANKS = 68719476736
local alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
-- brand(v): JOB + the 11 base62 digits of v. The first ten digits (those of floor(v / 62)) are
-- kept from the previous call, so minting consecutive ranks builds them once per 62 ids; the last
-- digit comes from a table of the 62 one-character strings.
local chars = {}
for i = 1, 62 do
  chars[i] = string.sub(alphabet, i, i)
end
local head, headText = -1, ''
local function brand(v)
  local low = v % 62
  local high = (v - low) / 62
  if high ~= head then
    local digits = {}
    local rest = high
    for i = 10, 1, -1 do
      local d = rest % 62
      digits[i] = string.sub(alphabet, d + 1, d + 1)
      rest = (rest - d) / 62
    end
    head, headText = high, 'JOB' .. table.concat(digits)
  end
  return headText .. chars[low + 1]
end
-- blocks(first, minted): the v2r: fields and values that add ranks first, first + 1, ... (minted[k]
-- the v1 id of rank first + k - 1, or false for a skipped rank) to their blocks; a block begun before
-- is read and extended (it holds every rank from its first up to first - 1), a block begun by an
-- earlier release is begun with '-' for the ranks it minted. Each entry's '<length>:' is built once a
-- length (prefixes), not converted from a number an id.
local prefixes = {}
local function blocks(first, minted)
  local out = {}
  local k, r = 1, first
  while k <= #minted do
    local block = math.floor((r - 1) / BLOCK)
    local start = block * BLOCK + 1
    local parts = {}
    if r > start then
      local had = redis.call('HGET', KEYS[1], 'v2r:' .. block)
      if had then
        parts[1] = had
      else
        for _ = start, r - 1 do
          parts[#parts + 1] = '-'
        end
      end
    end
    while k <= #minted and r < start + BLOCK do
      local v1 = minted[k]
      if v1 then
        local len = #v1
        local prefix = prefixes[len]
        if not prefix then
          prefix = len .. ':'
          prefixes[len] = prefix
        end
        parts[#parts + 1] = prefix
        parts[#parts + 1] = v1
      else
        parts[#parts + 1] = '-'
      end
      k, r = k + 1, r + 1
    end
    out[#out + 1] = 'v2r:' .. block
    out[#out + 1] = table.concat(parts)
  end
  return out
end
-- mintedRank(id): whether id is the branded id of a rank this journal's blocks hold as minted.
local function mintedRank(id, hwm)
  if #id ~= 14 or string.sub(id, 1, 3) ~= 'JOB' then
    return false
  end
  local v = 0
  for i = 4, 14 do
    local d = string.find(alphabet, string.sub(id, i, i), 1, true)
    if not d then
      return false
    end
    v = v * 62 + d - 1
  end
  local rank = v - base * RANKS
  if rank < 1 or rank > hwm then
    return false
  end
  local block = math.floor((rank - 1) / BLOCK)
  local packed = redis.call('HGET', KEYS[1], 'v2r:' .. block)
  local p = 1
  for _ = block * BLOCK + 1, rank - 1 do
    if not packed or p > #packed then
      return false
    end
    if string.sub(packed, p, p) == '-' then
      p = p + 1
    else
      local colon = string.find(packed, ':', p, true)
      p = colon + 1 + tonumber(string.sub(packed, p, colon - 1))
    end
  end
  return packed ~= nil and p <= #packed and string.sub(packed, p, p) ~= '-'
end
local n = #ARGV - 2
local function slow()
  local out = {}
  local first = tonumber(redis.call('HGET', KEYS[1], 'hwm') or '0') + 1
  local minted, mintedNow = {}, {}
  for i = 3, #ARGV do
    local v1 = ARGV[i]
    local field = 'v1:' .. v1
    local id = redis.call('HGET', KEYS[1], field)
    if not id then
      if string.sub(ARGV[2], i - 2, i - 2) == '1' and not mintedNow[v1]
          and redis.call('HEXISTS', KEYS[1], 'v2:' .. v1) == 0 and not mintedRank(v1, first - 1) then
        id = v1
        redis.call('HSET', KEYS[1], field, id, 'v2:' .. id, v1, 'kept', 1)
      else
        local rank
        repeat
          rank = redis.call('HINCRBY', KEYS[1], 'hwm', 1)
          id = brand(base * RANKS + rank)
          local held = redis.call('HEXISTS', KEYS[1], 'v2:' .. id) == 1
          minted[rank - first + 1] = not held and v1
        until not held
        mintedNow[id] = true
        redis.call('HSET', KEYS[1], field, id)
      end
    end
    out[#out + 1] = id
  end
  if #minted > 0 then
    redis.call('HSET', KEYS[1], unpack(blocks(first, minted)))
  end
  return out
end
if n == 0 then
  return {}
end
if string.find(ARGV[2], '1', 1, true) then
  return slow()
end
local CHUNK = 1000
local function hmget(fields)
  local got = {}
  for from = 1, #fields, CHUNK do
    local part = redis.call('HMGET', KEYS[1], unpack(fields, from, math.min(#fields, from + CHUNK - 1)))
    for j = 1, #part do
      got[#got + 1] = part[j]
    end
  end
  return got
end
local fields = {}
for i = 1, n do
  fields[i] = 'v1:' .. ARGV[i + 2]
end
local mapped = hmget(fields)
local marks = redis.call('HMGET', KEYS[1], 'hwm', 'kept')
local first = tonumber(marks[1] or '0') + 1
local rank = first - 1
local out = {}
local fresh = {}
-- items: v1:<v1 id>, id for each id minted, in the HSET's argument order; minted: their v1 ids in rank order
local items, m = {}, 0
local minted = {}
for i = 1, n do
  local id = mapped[i]
  if not id then
    local v1 = ARGV[i + 2]
    id = fresh[v1]
    if not id then
      rank = rank + 1
      id = brand(base * RANKS + rank)
      fresh[v1] = id
      items[m + 1], items[m + 2] = fields[i], id
      m = m + 2
      minted[#minted + 1] = v1
    end
  end
  out[i] = id
end
if m == 0 then
  return out
end
if marks[2] ~= '0' then
  local candidates = {}
  for j = 2, m, 2 do
    candidates[#candidates + 1] = 'v2:' .. items[j]
  end
  local held = hmget(candidates)
  for j = 1, #held do
    if held[j] then
      return slow()
    end
  end
end
for _, v in ipairs(blocks(first, minted)) do
  items[#items + 1] = v
end
items[#items + 1], items[#items + 2] = 'hwm', rank
for from = 1, #items, 6 * CHUNK do
  redis.call('HSET', KEYS[1], unpack(items, from, math.min(#items, from + 6 * CHUNK - 1)))
end
return out
