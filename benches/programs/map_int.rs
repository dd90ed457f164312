// map-int (see map_int.dfs): n distinct keys inserted into a BTreeMap in a scattered
// order, then each looked up once and the values found summed.
use std::collections::BTreeMap;

include!("wordgen.rs");

fn main() {
    let n = size(1000);
    let mut m: BTreeMap<i64, i64> = BTreeMap::new();
    for i in 0..n {
        m.insert(i * 7919 % n, i);
    }
    let mut sum: i64 = 0;
    for k in 0..n {
        if let Some(v) = m.get(&k) {
            sum += v;
        }
    }
    println!("{} entries, sum {sum}", m.len());
}
