# strings: UTF-8 text. Positions and lengths count bytes.
require rider std
import std.string_len
import std.string_concat
import std.string_slice
import std.string_find
import std.string_contains
import std.string_to_upper
import std.string_to_lower

fun len(ref s: string): index
  ret string_len(ref s)
end fun

# The same as `a ++ b`.
fun concat(ref a: string, ref b: string): string
  ret string_concat(ref a, ref b)
end fun

# The bytes from `start` up to (not including) `stop`; fails off the end or inside a
# character.
fun slice(ref s: string, start: index, stop: index): string
  ret string_slice(ref s, start, stop)
end fun

# Where `needle` first starts, or `none`.
fun find(ref s: string, ref needle: string): ?index
  ret string_find(ref s, ref needle)
end fun

fun contains(ref s: string, ref needle: string): bool
  ret string_contains(ref s, ref needle)
end fun

fun upper(ref s: string): string
  ret string_to_upper(ref s)
end fun

fun lower(ref s: string): string
  ret string_to_lower(ref s)
end fun
