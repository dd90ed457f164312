# fixedint: what generic code does with any fixed-width integer (u8..u64, i8..i64).
# The natives do the work; these wrappers are what scripts import.
require rider std
import std.fixedint_zero
import std.abs as std_abs
import std.int_to_string
import std.parse_int

# The zero of T, decided by the expected type: `let a: u8 = zero()`.
fun zero<T>(): T where { T is fixedint, }
  ret fixedint_zero()
end fun

# The absolute value; fails at run time for the most negative value.
fun abs<T>(x: T): T where { T is fixedint, }
  ret std_abs(x)
end fun

fun to_string<T>(ref value: T): string where { T is fixedint, }
  ret int_to_string(ref value)
end fun

# `none` when the text is not an integer of type T.
fun parse<T>(ref s: string): ?T where { T is fixedint, }
  ret parse_int(ref s)
end fun
