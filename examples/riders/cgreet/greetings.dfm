# greetings.dfm: a module that requires the C rider and exports functions over it.
require rider cgreet
import cgreet.repeat_text
import cgreet.add_checked

fun cheer(ref name: string): string
  ret repeat_text(ref name, 3)
end fun

fun add(a: i32, b: i32): i32
  ret add_checked(a, b)
end fun
