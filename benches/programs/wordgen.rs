// wordgen: the generator and words of wordgen.dfm for the Rust peers, which bring it in
// with `include!("wordgen.rs")` (each peer is one rustc invocation, no crate).

#[allow(dead_code)]
const SYLLABLES: [&str; 12] = [
    "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu",
];

/// The Park-Miller generator (seed 42) of every peer.
#[allow(dead_code)]
struct Random(i64);

#[allow(dead_code)]
impl Random {
    fn new() -> Random {
        Random(42)
    }

    fn next(&mut self) -> i64 {
        self.0 = self.0 * 16807 % 2147483647;
        self.0
    }
}

/// The word for `r >= 0`: its base-12 digits, least significant first, each written as
/// its syllable.
#[allow(dead_code)]
fn spell(r: i64) -> String {
    let mut word = String::from(SYLLABLES[(r % 12) as usize]);
    let mut rest = r / 12;
    while rest > 0 {
        word.push_str(SYLLABLES[(rest % 12) as usize]);
        rest /= 12;
    }
    word
}

/// The size: the first argument, else `default`.
#[allow(dead_code)]
fn size(default: i64) -> i64 {
    std::env::args()
        .nth(1)
        .map_or(default, |a| a.parse().expect("the size is an integer"))
}
