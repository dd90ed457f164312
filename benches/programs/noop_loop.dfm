# noop_loop: the native-call loop, in a module because only a module may require a
# rider; the loop calls the native directly, with nothing between.
require rider bench
import bench.noop

fun call_noop(n: u64): u64
  var x: u64 = 0
  var i: u64 = 0
  loop while i < n
    set x = noop(x)
    set i = i + 1
  end loop
  ret x
end fun
