//! The generator's source of choices: a seeded SplitMix64 stream, or the bytes of a
//! fuzzer's input.
//!
//! Every decision the generator makes goes through [`Rng`], so one seed always gives one
//! program, and a fuzzer's input steers the same generator. When an input's bytes run
//! out every choice is 0, and the generator is written so that choice 0 is always the
//! simplest one (no more statements, a literal, no nesting): a short input makes a short
//! program, never an endless one.

/// A stream of choices.
#[derive(Clone, Debug)]
pub struct Rng {
    source: Source,
}

#[derive(Clone, Debug)]
enum Source {
    Seeded(u64),
    Bytes { data: Vec<u8>, pos: usize },
}

impl Rng {
    /// The stream of `seed`.
    pub fn seeded(seed: u64) -> Rng {
        Rng {
            source: Source::Seeded(seed),
        }
    }

    /// Choices read from `data`, then zeros.
    pub fn from_bytes(data: &[u8]) -> Rng {
        Rng {
            source: Source::Bytes {
                data: data.to_vec(),
                pos: 0,
            },
        }
    }

    /// Whether a byte-driven stream has run out of input (a seeded one never does).
    pub fn exhausted(&self) -> bool {
        match &self.source {
            Source::Seeded(_) => false,
            Source::Bytes { data, pos } => *pos >= data.len(),
        }
    }

    /// The next `bytes` bytes of choice (1 to 8), as an integer.
    fn draw(&mut self, bytes: usize) -> u64 {
        match &mut self.source {
            Source::Seeded(state) => {
                // SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and well mixed.
                *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = *state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            }
            Source::Bytes { data, pos } => {
                let mut v = 0u64;
                for _ in 0..bytes {
                    let b = data.get(*pos).copied().unwrap_or(0);
                    *pos = (*pos + 1).min(data.len());
                    v = (v << 8) | b as u64;
                }
                v
            }
        }
    }

    /// A full 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.draw(8)
    }

    /// A value in `0..n` (`n > 0`); 0 once a byte-driven stream runs out.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        if n == 1 {
            return 0;
        }
        let bytes = ((64 - (n - 1).leading_zeros()) as usize).div_ceil(8);
        self.draw(bytes) % n
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num / den`; false once a byte-driven stream runs out.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        den - 1 - self.below(den) < num
    }

    /// An index into `weights`, each chosen in proportion to its weight (index 0 once a
    /// byte-driven stream runs out, whatever its weight; so put the simplest first).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        assert!(total > 0, "weighted() over nothing");
        let mut x = self.below(total);
        if matches!(self.source, Source::Bytes { .. }) && self.exhausted() {
            return 0;
        }
        for (i, &w) in weights.iter().enumerate() {
            if x < w as u64 {
                return i;
            }
            x -= w as u64;
        }
        unreachable!("x < total")
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_is_one_stream() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::seeded(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::seeded(7);
        assert_eq!(a, (0..5).map(|_| r.next_u64()).collect::<Vec<_>>());
        assert_ne!(Rng::seeded(8).next_u64(), a[0]);
    }

    #[test]
    fn bytes_run_out_into_the_simplest_choice() {
        let mut r = Rng::from_bytes(&[5, 0xff]);
        assert_eq!(r.below(10), 5);
        assert!(r.chance(1, 2));
        assert!(r.exhausted());
        assert_eq!(r.below(1000), 0);
        assert!(!r.chance(99, 100));
        assert_eq!(r.weighted(&[1, 100]), 0);
    }

    #[test]
    fn below_stays_below() {
        let mut r = Rng::seeded(1);
        for n in 1..300 {
            assert!(r.below(n) < n);
        }
    }
}
