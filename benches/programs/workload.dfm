# workload: the size a benchmark program runs at, from its command line.
import env.args
import fixedint.parse

# The first program argument as an integer, or `default` when there is none.
fun size(default: i64): i64
  let a = args()
  if len(a) == 0
    ret default
  end if
  ret unwrap(parse(ref a[0]))
end fun
