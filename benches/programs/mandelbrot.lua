-- mandelbrot: the Benchmarks Game's Mandelbrot set bitmap (scalar float loops); its
-- size and a checksum of its bytes are printed (see mandelbrot.c).
local n = tonumber(arg and arg[1]) or 200
local w, h = n, n
local sum, bytes = 0, 0
local bits, bit_num = 0, 0
for y = 0, h - 1 do
  local ci = 2.0 * y / h - 1.0
  for x = 0, w - 1 do
    local cr = 2.0 * x / w - 1.5
    local zr, zi, tr, ti = 0.0, 0.0, 0.0, 0.0
    local i = 0
    while i < 50 and tr + ti <= 4.0 do
      zi = 2.0 * zr * zi + ci
      zr = tr - ti + cr
      tr = zr * zr
      ti = zi * zi
      i = i + 1
    end
    bits = bits * 2
    if tr + ti <= 4.0 then
      bits = bits + 1
    end
    bit_num = bit_num + 1
    if bit_num == 8 or x == w - 1 then
      while bit_num < 8 do
        bits = bits * 2
        bit_num = bit_num + 1
      end
      sum = (sum * 31 + bits) % 1000000007
      bytes = bytes + 1
      bits = 0
      bit_num = 0
    end
  end
end
print(string.format("P4 %d %d\n%d bytes, checksum %d", w, h, bytes, sum))
