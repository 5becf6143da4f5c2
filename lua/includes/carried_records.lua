-- is_carried(field): whether a journal field records something the migration carried besides jobs, which
-- the re-sync drops from v2 when v1 drops it: a dedup key (dedup:<did> = the branded id its v2 key was
-- written with), a receipt (receipt:<custom v1 id>, the same) or an every scheduler (scheduler:<sid> = its
-- v2 registration name).
-- count_carried(key, delta): moves the journal's carried_records (the number of such fields) by delta.
local function is_carried(field)
  return string.sub(field, 1, 6) == 'dedup:' or string.sub(field, 1, 8) == 'receipt:'
    or string.sub(field, 1, 10) == 'scheduler:'
end
local function count_carried(key, delta)
  if delta ~= 0 then
    redis.call('HINCRBY', key, 'carried_records', delta)
  end
end
