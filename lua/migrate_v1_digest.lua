-- migrate_v1_digest: a short digest of what each of some v1 jobs holds, so a re-sync can tell which
-- migrated jobs changed since they were copied (data, opts, progress, attempts, a log line).
-- KEYS    for each job, two keys: <prefix>:<q>:<id> (its hash) and <prefix>:<q>:<id>:logs
-- Reply:  one digest per job, in KEYS order: the first 16 hex digits of the SHA-1 over the hash's
--         fields and values sorted by field, then the length and last entry of its logs list
--         (TYPE-safe: a key of another type contributes its type name). Reads only.
local out = {}
for k = 1, #KEYS, 2 do
  local parts = {}
  local t = redis.call('TYPE', KEYS[k])['ok']
  if t == 'hash' then
    local flat = redis.call('HGETALL', KEYS[k])
    local fields = {}
    for i = 1, #flat, 2 do
      fields[#fields + 1] = {flat[i], flat[i + 1]}
    end
    table.sort(fields, function(a, b) return a[1] < b[1] end)
    for _, f in ipairs(fields) do
      parts[#parts + 1] = #f[1] .. ':' .. f[1] .. #f[2] .. ':' .. f[2]
    end
  else
    parts[#parts + 1] = t
  end
  local logs = redis.call('TYPE', KEYS[k + 1])['ok']
  if logs == 'list' then
    local last = redis.call('LINDEX', KEYS[k + 1], -1)
    parts[#parts + 1] = '|' .. redis.call('LLEN', KEYS[k + 1]) .. ':' .. #last .. ':' .. last
  else
    parts[#parts + 1] = '|' .. logs
  end
  out[#out + 1] = string.sub(redis.sha1hex(table.concat(parts)), 1, 16)
end
return out
