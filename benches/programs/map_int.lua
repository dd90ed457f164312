-- map-int (see map_int.dfs): n distinct keys inserted into a table in a scattered
-- order, then each looked up once and the values found summed. A table does not know
-- how many keys it holds, so the inserts count the new ones.
local n = tonumber(arg and arg[1]) or 1000
local m, entries = {}, 0
for i = 0, n - 1 do
  local k = i * 7919 % n
  if m[k] == nil then
    entries = entries + 1
  end
  m[k] = i
end
local sum = 0
for k = 0, n - 1 do
  local v = m[k]
  if v ~= nil then
    sum = sum + v
  end
end
print(string.format("%d entries, sum %d", entries, sum))
