-- noop: LuaJIT's FFI calling dlr_bench__noop in libdlr_bench.so (the native-call
-- figure), with the arguments every datalove backend passes. Arguments: n, then the
-- library's path. LuaJIT only: Lua 5.4 has no FFI.
local ffi = require("ffi")
ffi.cdef([[
typedef struct dtlv_tydesc {
  uint32_t kind;
  uint32_t flags;
  size_t size;
  size_t align;
  const struct dtlv_tydesc *elem;
  size_t payload_offset;
  size_t field_count;
  const void *fields;
} dtlv_tydesc_t;
uint8_t dlr_bench__noop(void *rt, const uint64_t *x, const dtlv_tydesc_t *x_td,
                        uint64_t *result_out, const dtlv_tydesc_t *result_td);
]])
local n = tonumber(arg[1]) or 1000000
local lib = ffi.load(arg[2])
local u64 = ffi.new("dtlv_tydesc_t", { kind = 5, flags = 1, size = 8, align = 8 })
local x = ffi.new("uint64_t[1]")
local y = ffi.new("uint64_t[1]")
for _ = 1, n do
  if lib.dlr_bench__noop(nil, x, u64, y, u64) ~= 1 then
    os.exit(1)
  end
  x[0] = y[0]
end
print((tostring(x[0]):gsub("ULL$", "")))
