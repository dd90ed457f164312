# floats: formatting and parsing f32 and f64.
require rider std
import std.float_to_string
import std.parse_float
import std.float_to_string_fixed

fun to_string<T>(ref value: T): string where { T is float, }
  ret float_to_string(ref value)
end fun

# `none` when the text is not a float.
fun parse<T>(ref s: string): ?T where { T is float, }
  ret parse_float(ref s)
end fun

# `value` with exactly `digits` digits after the point, rounded to nearest (ties to even)
# from its exact value, as C's `printf("%.*f", digits, value)`: `to_string_fixed(x, 9)`.
# Fails for more than 1074 digits.
fun to_string_fixed<T>(value: T, digits: u32): string where { T is float, }
  ret float_to_string_fixed(value, digits)
end fun
