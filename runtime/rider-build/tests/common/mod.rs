//! What the rider-build tests share.

/// Asserts that a failed build's or compile's `stderr` says each of `says` and none of
/// `never`.
pub fn assert_says(stderr: &str, says: &[&str], never: &[&str]) {
    for text in says {
        assert!(stderr.contains(text), "nothing says {text:?}:\n{stderr}");
    }
    for text in never {
        assert!(!stderr.contains(text), "something says {text:?}:\n{stderr}");
    }
}
