//! The expectation lines of a conformance case (`docs/testing.md`, "The case format"),
//! read by the conformance runner and written by difftest for the cases it finds: `#>`
//! for a plain line of output, `#>e` with escapes for the bytes a plain line cannot hold.

use std::fmt::Write as _;

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
        match c {
            b'0' => out.push(0),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'n' => out.push(b'\n'),
            b'\\' => out.push(b'\\'),
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
                    match c {
                        '\0' => out.push_str("\\0"),
                        '\t' => out.push_str("\\t"),
                        '\r' => out.push_str("\\r"),
                        '\\' => out.push_str("\\\\"),
                        c if c.is_control() || c == ' ' => {
                            let mut buf = [0u8; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                let _ = write!(out, "\\x{b:02x}");
                            }
                        }
                        c => out.push(c),
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
