# results: the value of an operation that can fail, `ok(T)` or `err(E)`.
# `import results.result`; `e?` yields an `ok`'s value or returns the `err` to the caller
# (docs/language.md, "Enums and match").
import fixedint.parse

enum result<T, E>
  ok(T)
  err(E)
end enum

# The integer `s` writes, or an error that quotes it.
fun parse_i64(ref s: string): result[i64, string]
  let n: ?i64 = parse(ref s)
  if is_some(ref n)
    ret result.ok(unwrap(n))
  end if
  ret result.err("not an integer: \"" ++ s ++ "\"")
end fun
