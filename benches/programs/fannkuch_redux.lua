-- fannkuch-redux: the Benchmarks Game's pancake flips over every permutation of n
-- (small integer lists, indexing, swaps).
local n = tonumber(arg and arg[1]) or 7
local perm, perm1, count = {}, {}, {}
local max_flips, perm_count, checksum = 0, 0, 0
for i = 0, n - 1 do
  perm1[i] = i
  count[i] = 0
end
local r = n
while true do
  while r ~= 1 do
    count[r - 1] = r
    r = r - 1
  end
  for i = 0, n - 1 do
    perm[i] = perm1[i]
  end
  local flips = 0
  local k = perm[0]
  while k ~= 0 do
    local half = math.floor((k + 1) / 2)
    for i = 0, half - 1 do
      local t = perm[i]
      perm[i] = perm[k - i]
      perm[k - i] = t
    end
    flips = flips + 1
    k = perm[0]
  end
  if flips > max_flips then
    max_flips = flips
  end
  if perm_count % 2 == 0 then
    checksum = checksum + flips
  else
    checksum = checksum - flips
  end
  local done = false
  while true do
    if r == n then
      done = true
      break
    end
    local perm0 = perm1[0]
    for i = 0, r - 1 do
      perm1[i] = perm1[i + 1]
    end
    perm1[r] = perm0
    count[r] = count[r] - 1
    if count[r] > 0 then
      break
    end
    r = r + 1
  end
  if done then
    break
  end
  perm_count = perm_count + 1
end
print(string.format("%d\nPfannkuchen(%d) = %d", checksum, n, max_flips))
