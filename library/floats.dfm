# floats: formatting and parsing f32 and f64.
require rider std
import std.float_to_string
import std.parse_float

fun to_string<T>(ref value: T): string where { T is float, }
  ret float_to_string(ref value)
end fun

# `none` when the text is not a float.
fun parse<T>(ref s: string): ?T where { T is float, }
  ret parse_float(ref s)
end fun
