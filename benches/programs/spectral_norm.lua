-- spectral-norm: the Benchmarks Game's spectral norm of an infinite matrix (floats,
-- nested loops over lists).
local function eval_a(i, j)
  return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1)
end

local function times_u(n, u, au)
  for i = 0, n - 1 do
    local sum = 0.0
    for j = 0, n - 1 do
      sum = sum + eval_a(i, j) * u[j]
    end
    au[i] = sum
  end
end

local function times_transposed_u(n, u, au)
  for i = 0, n - 1 do
    local sum = 0.0
    for j = 0, n - 1 do
      sum = sum + eval_a(j, i) * u[j]
    end
    au[i] = sum
  end
end

local function times_ata_u(n, u, out, scratch)
  times_u(n, u, scratch)
  times_transposed_u(n, scratch, out)
end

local n = tonumber(arg and arg[1]) or 100
local u, v, scratch = {}, {}, {}
for i = 0, n - 1 do
  u[i] = 1.0
  v[i] = 0.0
  scratch[i] = 0.0
end
for _ = 1, 10 do
  times_ata_u(n, u, v, scratch)
  times_ata_u(n, v, u, scratch)
end
local vbv, vv = 0.0, 0.0
for i = 0, n - 1 do
  vbv = vbv + u[i] * v[i]
  vv = vv + v[i] * v[i]
end
print(string.format("%.9f", math.sqrt(vbv / vv)))
