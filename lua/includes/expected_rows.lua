-- is_expectation(field): whether a journal field is a migrated row's expectation (r:<branded id>).
-- count_expected_rows(key, delta): moves the journal's expected_rows by delta, when the journal has it.
local function is_expectation(field)
  return string.sub(field, 1, 2) == 'r:'
end
local function count_expected_rows(key, delta)
  if delta ~= 0 and redis.call('HEXISTS', key, 'expected_rows') == 1 then
    redis.call('HINCRBY', key, 'expected_rows', delta)
  end
end
