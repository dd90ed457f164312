//! The generated program of the compile-time and start-up figures: `functions` small
//! functions (a loop, a branch, a list, a call of the previous one), then a first line of
//! output and a checksum, written in datalove, C, Lua and Python so every version runs
//! the same program. Ten times the functions is ten times the source.

use std::fmt::Write as _;

/// The functions of the base program: about 200 lines of datalove.
pub const BASE_FUNCTIONS: usize = 14;

/// One generated program in every language.
#[derive(Clone, Debug)]
pub struct Generated {
    pub functions: usize,
    pub dfs: String,
    pub c: String,
    pub lua: String,
    pub py: String,
}

impl Generated {
    /// Lines of datalove source.
    pub fn lines(&self) -> usize {
        self.dfs.lines().count()
    }

    /// What every version prints.
    pub fn expected_output(&self) -> String {
        format!("start\n{}\n", checksum(self.functions))
    }
}

/// The value `f{n-1}(7)` computes, as every version computes it.
pub fn checksum(functions: usize) -> i64 {
    let mut total = 0i64;
    for i in 0..functions {
        let i = i as i64;
        let mut acc = 7 + i;
        for _ in 0..4 {
            if acc % 2 == 0 {
                acc = acc / 2 + i % 7;
            } else {
                acc = acc * 3 + 1;
            }
        }
        // `parts[0] + parts[2] % 5` of the list `[acc, x, i]`.
        total += acc + i % 5;
    }
    total
}

/// The program with `functions` functions (at least one).
pub fn generate(functions: usize) -> Generated {
    let functions = functions.max(1);
    let mut dfs = String::from("# Generated: the compile-time and start-up program.\n");
    let mut c = String::from(
        "/* Generated: the compile-time and start-up program. */\n#include <stdio.h>\n\n",
    );
    let mut lua = String::from("-- Generated: the compile-time and start-up program.\n");
    let mut py = String::from("\"\"\"Generated: the compile-time and start-up program.\"\"\"\n\n");
    for i in 0..functions {
        let m7 = i % 7;
        // The call of the previous function; the same text in every language.
        let call = if i == 0 {
            String::new()
        } else {
            format!(" + f{}(x)", i - 1)
        };
        let _ = write!(
            dfs,
            "fun f{i}(x: i64): i64
  var acc: i64 = x + {i}
  var j: i64 = 0
  loop while j < 4
    if acc % 2 == 0
      set acc = acc / 2 + {m7}
    else
      set acc = acc * 3 + 1
    end if
    set j = j + 1
  end loop
  let parts: [i64] = [acc, x, {i}]
  ret parts[0] + parts[2] % 5{call}
end fun

"
        );
        let _ = write!(
            c,
            "static long f{i}(long x) {{
    long acc = x + {i};
    for (long j = 0; j < 4; j++) {{
        if (acc % 2 == 0) {{
            acc = acc / 2 + {m7};
        }} else {{
            acc = acc * 3 + 1;
        }}
    }}
    long parts[3] = {{acc, x, {i}}};
    return parts[0] + parts[2] % 5{call};
}}

"
        );
        let _ = write!(
            lua,
            "local function f{i}(x)
  local acc = x + {i}
  for _ = 1, 4 do
    if acc % 2 == 0 then
      acc = math.floor(acc / 2) + {m7}
    else
      acc = acc * 3 + 1
    end
  end
  local parts = {{ acc, x, {i} }}
  return parts[1] + parts[3] % 5{call}
end

"
        );
        let _ = write!(
            py,
            "def f{i}(x):
    acc = x + {i}
    for _ in range(4):
        if acc % 2 == 0:
            acc = acc // 2 + {m7}
        else:
            acc = acc * 3 + 1
    parts = [acc, x, {i}]
    return parts[0] + parts[2] % 5{call}


"
        );
    }
    let last = functions - 1;
    let _ = write!(dfs, "debuglog \"start\"\ndebuglog f{last}(7)\n");
    let _ = write!(
        c,
        "int main(void) {{\n    printf(\"start\\n\");\n    fflush(stdout);\n    printf(\"%ld\\n\", f{last}(7));\n    return 0;\n}}\n"
    );
    let _ = write!(
        lua,
        "io.write(\"start\\n\")\nio.stdout:flush()\nprint(string.format(\"%d\", f{last}(7)))\n"
    );
    let _ = write!(py, "print(\"start\", flush=True)\nprint(f{last}(7))\n");
    Generated {
        functions,
        dfs,
        c,
        lua,
        py,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_large_program_is_ten_times_the_base() {
        let base = generate(BASE_FUNCTIONS);
        let large = generate(BASE_FUNCTIONS * 10);
        assert!((180..=240).contains(&base.lines()), "{}", base.lines());
        let ratio = large.lines() as f64 / base.lines() as f64;
        assert!((9.5..=10.5).contains(&ratio), "{ratio}");
        assert_eq!(
            base.expected_output(),
            format!("start\n{}\n", checksum(BASE_FUNCTIONS))
        );
    }
}
