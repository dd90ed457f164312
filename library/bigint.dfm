# bigint: arbitrary-precision integers. The std natives do the arithmetic (num-bigint);
# the runtime makes, clones, drops, orders (`==`, `<`, sorting) and formats them
# (`debuglog`, decimal). Operands are read (`ref`), results are new values.
require rider std
import std.bigint_from_int
import std.bigint_to_int
import std.bigint_parse
import std.bigint_to_string
import std.bigint_add
import std.bigint_sub
import std.bigint_mul
import std.bigint_div
import std.bigint_rem
import std.bigint_neg
import std.bigint_abs
import std.bigint_pow
import std.bigint_cmp

# The bigint of a fixed-width integer: `from(42u8)`, `from(-7i64)`.
fun from<T>(x: T): bigint where { T is fixedint, }
  ret bigint_from_int(x)
end fun

# The value as the fixed-width integer the call site expects: `let b: u8 = to(ref n)`.
# Out of range is the runtime error `overflow: bigint to u8 conversion`.
fun to<T>(ref n: bigint): T where { T is fixedint, }
  ret bigint_to_int(ref n)
end fun

# `none` unless the text is an optional `+` or `-` and one or more ASCII digits.
fun parse(ref s: string): ?bigint
  ret bigint_parse(ref s)
end fun

# Decimal, as `debuglog` writes it.
fun to_string(ref n: bigint): string
  ret bigint_to_string(ref n)
end fun

fun add(ref a: bigint, ref b: bigint): bigint
  ret bigint_add(ref a, ref b)
end fun

fun sub(ref a: bigint, ref b: bigint): bigint
  ret bigint_sub(ref a, ref b)
end fun

fun mul(ref a: bigint, ref b: bigint): bigint
  ret bigint_mul(ref a, ref b)
end fun

# Rounds toward zero; a zero divisor is the runtime error `division by zero: bigint division`.
fun div(ref a: bigint, ref b: bigint): bigint
  ret bigint_div(ref a, ref b)
end fun

# Takes the sign of `a`; a zero divisor is `division by zero: bigint remainder`.
fun rem(ref a: bigint, ref b: bigint): bigint
  ret bigint_rem(ref a, ref b)
end fun

fun neg(ref a: bigint): bigint
  ret bigint_neg(ref a)
end fun

fun abs(ref a: bigint): bigint
  ret bigint_abs(ref a)
end fun

fun pow(ref a: bigint, exponent: u32): bigint
  ret bigint_pow(ref a, exponent)
end fun

# -1, 0 or 1: the runtime's order, the same `<` and `==` use.
fun cmp(ref a: bigint, ref b: bigint): i32
  ret bigint_cmp(ref a, ref b)
end fun
