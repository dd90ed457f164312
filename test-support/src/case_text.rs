//! The lines of a conformance case (`docs/testing.md`, "The case format"), read by the
//! conformance runner and by difftest, which also writes cases: the embedded files that
//! divide them ([`parts`]), and the expectation lines, `#>` for a plain line of output,
//! `#>e` with escapes for the bytes a plain line cannot hold.

use std::fmt::Write as _;

/// One line of a case, as its embedded files (`#= module NAME.dfm` or `#= file NAME`
/// ... `#= end`) divide the lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part<'a> {
    /// A line of the program.
    Program(&'a str),
    /// `#= HEADER` (trimmed), opening an embedded file.
    Open(&'a str),
    /// A line of the open embedded file.
    Embedded(&'a str),
    /// `#= end`, closing it.
    Close,
}

/// The parts of `text`, one per line, in order.
pub fn parts(text: &str) -> impl Iterator<Item = Part<'_>> {
    let mut open = false;
    text.lines().map(move |line| {
        if open {
            if line.trim_end() == "#= end" {
                open = false;
                Part::Close
            } else {
                Part::Embedded(line)
            }
        } else if let Some(header) = line.strip_prefix("#=") {
            open = true;
            Part::Open(header.trim())
        } else {
            Part::Program(line)
        }
    })
}

/// The escapes of an `#>e` line for single characters, and what each stands for; any
/// other byte is written `\xHH`.
const ESCAPES: [(char, char); 5] = [
    ('0', '\0'),
    ('t', '\t'),
    ('r', '\r'),
    ('n', '\n'),
    ('\\', '\\'),
];

/// Decodes the escapes of an `#>e` line: `\0 \t \r \n \\ \xHH`.
pub fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let Some(&c) = bytes.get(i + 1) else {
            return Err("a `\\` at the end of an `#>e` line".into());
        };
        i += 2;
        if let Some(&(_, meant)) = ESCAPES.iter().find(|(e, _)| *e == c as char) {
            out.push(meant as u8);
            continue;
        }
        match c {
            b'x' => {
                let hex = text.get(i..i + 2).ok_or("`\\x` needs two hex digits")?;
                out.push(u8::from_str_radix(hex, 16).map_err(|_| format!("bad `\\x{hex}`"))?);
                i += 2;
            }
            other => return Err(format!("unknown escape `\\{}`", other as char)),
        }
    }
    Ok(out)
}

/// The `#>`/`#>e` line that expects output line `bytes`.
pub fn expectation_line(bytes: &[u8]) -> String {
    let plain = std::str::from_utf8(bytes)
        .ok()
        .filter(|s| !s.chars().any(|c| c.is_control()) && !s.ends_with(char::is_whitespace));
    match plain {
        Some("") => "#>".to_string(),
        Some(s) => format!("#> {s}"),
        None => {
            let mut out = String::from("#>e ");
            for chunk in bytes.utf8_chunks() {
                for c in chunk.valid().chars() {
                    // A newline is written `\x0a`, like the other control characters.
                    let escape = ESCAPES.iter().find(|&&(_, meant)| meant == c && c != '\n');
                    if let Some(&(letter, _)) = escape {
                        out.push('\\');
                        out.push(letter);
                    } else if c.is_control() || c == ' ' {
                        let mut buf = [0u8; 4];
                        for b in c.encode_utf8(&mut buf).bytes() {
                            let _ = write!(out, "\\x{b:02x}");
                        }
                    } else {
                        out.push(c);
                    }
                }
                for b in chunk.invalid() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_files_divide_the_lines() {
        let text = "a\n#= module m.dfm\nfun f()\n#= end\n#> x\n#= file t\nopen";
        assert_eq!(
            parts(text).collect::<Vec<_>>(),
            [
                Part::Program("a"),
                Part::Open("module m.dfm"),
                Part::Embedded("fun f()"),
                Part::Close,
                Part::Program("#> x"),
                Part::Open("file t"),
                Part::Embedded("open"),
            ]
        );
    }

    #[test]
    fn every_line_reads_back_as_its_bytes() {
        for bytes in [
            &b""[..],
            b"plain",
            b"trailing ",
            b"tab\there",
            b"nul\0 and \\ and \r",
            b"\x01\x7f",
            b"not utf8 \xff\xfe",
        ] {
            let line = expectation_line(bytes);
            let read = match line.strip_prefix("#>e ") {
                Some(escaped) => unescape(escaped).unwrap(),
                None => line
                    .strip_prefix("#>")
                    .unwrap()
                    .trim_start()
                    .as_bytes()
                    .to_vec(),
            };
            assert_eq!(read, bytes, "{line}");
        }
        assert_eq!(expectation_line(b"hi "), "#>e hi\\x20");
        assert!(unescape("\\q").is_err());
        assert!(unescape("\\x4").is_err());
    }
}
