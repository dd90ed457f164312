# maps: generic operations on map[K, V], a map of any key and value type whose entries
# are kept in the runtime's order of keys (so iterating, printing and comparing a map is
# the same on every backend). `debuglog` prints a map as `{k: v, ...}`.
require rider std
import std.map_new
import std.map_len
import std.map_insert
import std.map_get
import std.map_at
import std.map_remove
import std.map_contains
import std.map_keys
import std.map_values
import std.map_entries
import std.map_from_entries

# The empty map of the type the call site asks for: `let m: map[string, u32] = new()`.
fun new<K, V>(): map[K, V]
  ret map_new()
end fun

fun len<K, V>(ref m: map[K, V]): index
  ret map_len(ref m)
end fun

# Moves `key` and `value` in; a key already there keeps its entry, whose old value is
# dropped and replaced.
fun insert<K, V>(mut m: map[K, V], key: K, value: V)
  map_insert(mut m, key, value)
end fun

# A copy of the value at `key`, or `none`.
fun get<K, V>(ref m: map[K, V], ref key: K): ?V
  ret map_get(ref m, ref key)
end fun

# A copy of the value at `key`; a missing key is the runtime error `key not found`.
fun at<K, V>(ref m: map[K, V], ref key: K): V
  ret map_at(ref m, ref key)
end fun

# Takes the entry at `key` out, giving its value, or `none` when there is none.
fun remove<K, V>(mut m: map[K, V], ref key: K): ?V
  ret map_remove(mut m, ref key)
end fun

fun contains<K, V>(ref m: map[K, V], ref key: K): bool
  ret map_contains(ref m, ref key)
end fun

# Copies of the keys, in order.
fun keys<K, V>(ref m: map[K, V]): [K]
  ret map_keys(ref m)
end fun

# Copies of the values, in the order of their keys.
fun values<K, V>(ref m: map[K, V]): [V]
  ret map_values(ref m)
end fun

# Copies of the entries as `(key, value)` tuples, in key order: `for e in entries(ref m)`.
fun entries<K, V>(ref m: map[K, V]): [(K, V)]
  ret map_entries(ref m)
end fun

# A map of a list of `(key, value)` tuples; a later duplicate key wins.
fun from_entries<K, V>(entries: [(K, V)]): map[K, V]
  ret map_from_entries(entries)
end fun
