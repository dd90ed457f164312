// sort-int (see sort_int.dfs): n pseudo-random integers in a Vec, sorted with
// Vec::sort, then checksummed.
include!("wordgen.rs");

fn main() {
    let n = size(1000) as usize;
    let mut random = Random::new();
    let mut xs: Vec<i64> = Vec::new();
    for _ in 0..n {
        xs.push(random.next());
    }
    xs.sort();
    let mut h: i64 = 0;
    for &x in &xs {
        h = (h * 31 + x) % 1000000007;
    }
    println!("{n} values, checksum {h}");
    if n > 0 {
        println!("first {}, middle {}, last {}", xs[0], xs[n / 2], xs[n - 1]);
    }
}
