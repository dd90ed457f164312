//! Near-miss suggestions: the known name closest to one that is not known.

/// How many single-character edits (insert, delete, substitute, swap two neighbours)
/// turn `a` into `b`, counted over characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the table over prefixes of `a` and `b`.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

/// The candidate closest to `name`, when one is close enough to be a likely misspelling:
/// at most one edit for names of up to four characters, a third of the length beyond.
/// Ties go to the first in alphabetical order, so the answer does not depend on the
/// order the candidates come in.
pub fn similar<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_found_and_far_ones_not() {
        assert_eq!(similar("countr", ["counter", "count_all"]), Some("counter"));
        assert_eq!(similar("lne", ["len", "push"]), Some("len"));
        assert_eq!(similar("strngs", ["strings", "lists"]), Some("strings"));
        assert_eq!(similar("x", ["y", "z"]), Some("y"));
        assert_eq!(similar("total", ["xs", "count"]), None);
        assert_eq!(similar("abc", ["abc"]), None);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("", "abc"), 3);
    }
}
