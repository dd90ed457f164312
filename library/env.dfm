# env: what the program was started with.
require rider std
import std.program_args

# The program's arguments: what follows `--` on `datalove run FILE -- ARGS`, or an
# executable's command line after its name.
fun args(): [string]
  ret program_args()
end fun
