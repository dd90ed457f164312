# lists: generic operations on [T]. (`set` is a keyword, so replacing an element is
# `set_at`; `set xs[i] = v` does the same in a statement.)
require rider std
import std.list_len
import std.list_push
import std.list_pop
import std.list_get
import std.list_set
import std.list_insert
import std.list_remove
import std.list_reverse
import std.list_sort
import std.list_filled

fun len<T>(ref xs: [T]): index
  ret list_len(ref xs)
end fun

fun push<T>(mut xs: [T], value: T)
  list_push(mut xs, value)
end fun

# Takes the last element off, or gives `none` for an empty list.
fun pop<T>(mut xs: [T]): ?T
  ret list_pop(mut xs)
end fun

# A copy of element `i`; fails past the end.
fun get<T>(ref xs: [T], i: index): T
  ret list_get(ref xs, i)
end fun

fun set_at<T>(mut xs: [T], i: index, value: T)
  list_set(mut xs, i, value)
end fun

# Inserts before element `i` (`i == len` appends).
fun insert<T>(mut xs: [T], i: index, value: T)
  list_insert(mut xs, i, value)
end fun

fun remove<T>(mut xs: [T], i: index): T
  ret list_remove(mut xs, i)
end fun

fun reverse<T>(mut xs: [T])
  list_reverse(mut xs)
end fun

# Sorts in place, in the runtime's order for T.
fun sort<T>(mut xs: [T])
  list_sort(mut xs)
end fun

# A list of `n` copies of `value` (clones, for an owned value): `filled(n, false)`.
fun filled<T>(n: index, value: T): [T]
  ret list_filled(n, value)
end fun
