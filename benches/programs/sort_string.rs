// sort-string (see sort_string.dfs): n short strings in a Vec<String>, sorted with
// Vec::sort (byte order), then counted and checksummed.
include!("wordgen.rs");

fn main() {
    let n = size(1000) as usize;
    let mut random = Random::new();
    let mut words: Vec<String> = Vec::new();
    for _ in 0..n {
        words.push(spell(random.next()));
    }
    words.sort();
    let mut distinct = 0;
    let mut h: usize = 0;
    for i in 0..n {
        if i == 0 || words[i] != words[i - 1] {
            distinct += 1;
        }
        h = (h * 31 + words[i].len()) % 1000000007;
    }
    println!("{n} strings, {distinct} distinct, checksum {h}");
    if n > 0 {
        println!(
            "first {}, middle {}, last {}",
            words[0],
            words[n / 2],
            words[n - 1]
        );
    }
}
