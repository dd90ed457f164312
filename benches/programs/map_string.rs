// map-string (see map_string.dfs): n pseudo-random words counted in a BTreeMap, then
// the most frequent found in key order (ties: the first word).
use std::collections::BTreeMap;

include!("wordgen.rs");

fn main() {
    let n = size(1000);
    let mut random = Random::new();
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for _ in 0..n {
        *counts.entry(spell(random.next() % n)).or_insert(0) += 1;
    }
    let (mut best, mut best_word) = (0, "");
    for (word, &count) in &counts {
        if count > best {
            best = count;
            best_word = word;
        }
    }
    println!("{n} words, {} distinct", counts.len());
    if n > 0 {
        println!("most frequent: {best_word} ({best})");
    }
}
