# describe: a value of any type as text, the way the runtime sees it.
require rider std
import std.describe as std_describe

fun describe<T>(ref value: T): string
  ret std_describe(ref value)
end fun
