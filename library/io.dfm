# io: standard input, files and stderr. A failure (a missing file, text that is not
# UTF-8) ends the program with a runtime error naming the path; the `try_` functions
# give it as a value instead.
require rider std
import std.read_stdin
import std.read_line as std_read_line
import std.read_file as std_read_file
import std.write_file as std_write_file
import std.try_read_file as std_try_read_file
import std.try_write_file as std_try_write_file
import std.write_stderr
import std.exit_program

# The rest of standard input, all of it (an empty string at its end).
fun read_all(): string
  ret read_stdin()
end fun

# The next line of standard input without its line end (`\n` or `\r\n`), or `none` at
# the end of input.
fun read_line(): ?string
  ret std_read_line()
end fun

# The whole file at `path` (relative to the working directory).
fun read_file(ref path: string): string
  ret std_read_file(ref path)
end fun

# Creates the file at `path`, or replaces what it held, with `text`.
fun write_file(ref path: string, ref text: string)
  std_write_file(ref path, ref text)
end fun

# The whole file at `path`, or none when it cannot be read (missing, unreadable, not
# UTF-8).
fun try_read_file(ref path: string): ?string
  ret std_try_read_file(ref path)
end fun

# Writes the file as `write_file` does: none when it was written, else why it was not
# (the message `write_file` would fail with).
fun try_write_file(ref path: string, ref text: string): ?string
  ret std_try_write_file(ref path, ref text)
end fun

# Writes `text` to stderr as it is.
fun eprint(ref text: string)
  write_stderr(ref text)
end fun

# Writes `text` and a newline to stderr.
fun eprintln(ref text: string)
  write_stderr(ref text ++ "\n")
end fun

# Ends the program now with exit `code` (0 to 255), printing nothing more: every
# function on the way out drops what it holds, as for a runtime error.
fun exit(code: u8)
  exit_program(code)
end fun
