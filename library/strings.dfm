# strings: UTF-8 text. Positions and lengths count bytes.
require rider std
import std.string_len
import std.string_concat
import std.string_slice
import std.string_find
import std.string_contains
import std.string_to_upper
import std.string_to_lower
import std.string_split
import std.string_split_whitespace
import std.string_join
import std.string_trim
import std.string_trim_start
import std.string_trim_end
import std.string_starts_with
import std.string_ends_with
import std.string_replace
import std.string_repeat
import std.string_chars
import std.string_bytes

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

# The pieces between the matches of `sep`: `split(ref "a,b,,c", ref ",")` is
# `["a", "b", "", "c"]`, and an empty `s` gives `[""]`. Fails for an empty `sep`.
fun split(ref s: string, ref sep: string): [string]
  ret string_split(ref s, ref sep)
end fun

# The words: the non-empty pieces between runs of whitespace (`[]` for a blank `s`).
fun split_whitespace(ref s: string): [string]
  ret string_split_whitespace(ref s)
end fun

# The parts with `sep` between each two: `join(ref ["a", "b"], ref ", ")` is "a, b".
fun join(ref parts: [string], ref sep: string): string
  ret string_join(ref parts, ref sep)
end fun

# Without whitespace at both ends, at the start, at the end.
fun trim(ref s: string): string
  ret string_trim(ref s)
end fun

fun trim_start(ref s: string): string
  ret string_trim_start(ref s)
end fun

fun trim_end(ref s: string): string
  ret string_trim_end(ref s)
end fun

fun starts_with(ref s: string, ref prefix: string): bool
  ret string_starts_with(ref s, ref prefix)
end fun

fun ends_with(ref s: string, ref suffix: string): bool
  ret string_ends_with(ref s, ref suffix)
end fun

# Every match of `from`, left to right, replaced by `to`. Fails for an empty `from`.
fun replace(ref s: string, ref from: string, ref to: string): string
  ret string_replace(ref s, ref from, ref to)
end fun

# `n` copies of `s` end to end. Fails when the result cannot fit in memory.
fun repeat(ref s: string, n: index): string
  ret string_repeat(ref s, n)
end fun

# Each character (Unicode scalar value) as a string of its own.
fun chars(ref s: string): [string]
  ret string_chars(ref s)
end fun

# The UTF-8 bytes.
fun bytes(ref s: string): [u8]
  ret string_bytes(ref s)
end fun

import std.string_byte_at

# Byte `i` (from 0) of the UTF-8 text; fails past the end, as `xs[i]` does for a list.
fun byte_at(ref s: string, i: index): u8
  ret string_byte_at(ref s, i)
end fun
