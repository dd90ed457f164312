//! Where a runtime error happened: the source location of the failing instruction and
//! the call sites it propagated through, and the ONE text of a location
//! (`FILE:LINE:COL`).
//!
//! Compiled code and the interpreter hand the runtime a location as this text (the
//! `error_at` entry, `datalove_rti::Entry::ErrorAt`), made by
//! `datalove_ir::Program::error_site`; the runtime reads it back with
//! [`SourceLoc::parse`]. The file is the path as given to the compiler, and may itself
//! contain `:`: the line and column are the last two fields.

use std::fmt;

/// A source location: 1-based line and column in `file`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl SourceLoc {
    pub fn new(file: impl Into<String>, line: u32, col: u32) -> SourceLoc {
        SourceLoc {
            file: file.into(),
            line,
            col,
        }
    }

    /// `FILE:LINE:COL` read back (the inverse of `Display`), or `None` when the text has
    /// not that shape.
    pub fn parse(text: &str) -> Option<SourceLoc> {
        let (file, line, col) = SourceLoc::fields(text)?;
        Some(SourceLoc::new(file, line, col))
    }

    /// The file, line and column of `FILE:LINE:COL`, read in place (nothing allocated).
    pub fn fields(text: &str) -> Option<(&str, u32, u32)> {
        let mut fields = text.rsplitn(3, ':');
        let col = fields.next()?.parse().ok()?;
        let line = fields.next()?.parse().ok()?;
        let file = fields.next().filter(|f| !f.is_empty())?;
        Some((file, line, col))
    }
}

/// `FILE:LINE:COL`.
impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// How many call sites of an error's chain are kept and printed; the rest are counted.
pub const CHAIN_SHOWN: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_reads_back_as_written() {
        for text in ["prog.dfs:4:12", "/tmp/a:b/prog.dfs:1:1", "C:\\x.dfs:10:200"] {
            let loc = SourceLoc::parse(text).expect("a location");
            assert_eq!(loc.to_string(), text);
        }
        assert_eq!(
            SourceLoc::parse("dir:x/p.dfs:3:7"),
            Some(SourceLoc::new("dir:x/p.dfs", 3, 7))
        );
        for bad in ["", "p.dfs", "p.dfs:3", ":3:4", "p.dfs:x:4", "p.dfs:3:-1"] {
            assert_eq!(SourceLoc::parse(bad), None, "{bad}");
        }
    }
}
