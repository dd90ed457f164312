# describe: a value of any type as text, the way the runtime sees it.
require rider std
import std.describe as std_describe
import std.format_value

fun describe<T>(ref value: T): string
  ret std_describe(ref value)
end fun

# The value as text, as `debuglog` writes it: `[1, 2]`, `some("a")`, `(1, true)`; a
# string is itself at the top and quoted inside a list, option or tuple. What `format`'s
# `{}` writes for a value that is not a number or a string.
fun to_string<T>(ref value: T): string
  ret format_value(ref value)
end fun
