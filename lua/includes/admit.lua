-- admission_refusal(id, row): the reply for a job that cannot be admitted: EMQKIND for an id outside
-- the JOB namespace, 0 for a duplicate (its row exists; nothing changes); nil when it may be.
local function admission_refusal(id, row)
  if string.sub(id, 1, 3) ~= 'JOB' then
    return redis.error_reply('EMQKIND job id must be JOB-namespaced')
  end
  if redis.call('EXISTS', row) == 1 then
    return 0
  end
  return nil
end
