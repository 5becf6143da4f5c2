-- migrate_assign_ids: give each v1 id its branded JOB id, minting only ids the journal lacks.
-- KEYS[1] {emq}:migration:<q>
-- ARGV[1] the caller's fencing token
-- ARGV[2..] v1 job ids, in serve order
-- Reply:  the branded ids, in argument order. A new id is JOB + 11-digit base62 of the next rank
--         (HINCRBY hwm 1), so ids are minted in the order given and never reused; a v1 id already
--         mapped keeps its id, which makes a re-run after a crash give the same answer.
--         Fields written: v1:<v1 id> -> branded id, v2:<branded id> -> v1 id, hwm.
if redis.call('HGET', KEYS[1], 'lock_token') ~= ARGV[1] then
  return redis.error_reply('EMQLOCK lease lost: another migrator took over this queue')
end
local alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
local function brand(rank)
  local digits = {}
  local rest = rank
  for i = 11, 1, -1 do
    local d = rest % 62
    digits[i] = string.sub(alphabet, d + 1, d + 1)
    rest = (rest - d) / 62
  end
  return 'JOB' .. table.concat(digits)
end
local out = {}
for i = 2, #ARGV do
  local field = 'v1:' .. ARGV[i]
  local id = redis.call('HGET', KEYS[1], field)
  if not id then
    id = brand(redis.call('HINCRBY', KEYS[1], 'hwm', 1))
    redis.call('HSET', KEYS[1], field, id, 'v2:' .. id, ARGV[i])
  end
  out[#out + 1] = id
end
return out
