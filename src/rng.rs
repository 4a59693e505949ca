//! The one home of randomness: small, portable generators, so every seeded
//! choice is the same on every platform and Rust version.
//!
//! - splitmix64 (Vigna): the seeded item subset and run order
//!   (`engine::item_selection`), the provider's backoff jitter, seeds for the rest;
//! - xoshiro256++ (Blackman & Vigna) with Lemire's unbiased bounded draw: the
//!   bootstrap. Each resample `r` gets its own generator derived from
//!   `(seed, r)`, so a resample's draws do not depend on how many resamples
//!   ran before it (or on which thread runs it).

/// splitmix64's increment (the golden ratio in 64 bits).
pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64 as a generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        let state = self.0;
        self.0 = state.wrapping_add(GAMMA);
        splitmix64(state)
    }

    /// Uniform in `0..n` by remainder (0 when `n` is 0): slightly biased
    /// for huge `n`, which test generators do not mind.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
}

/// The draw that follows `state`: one step of splitmix64 as a stateless
/// hash (`SplitMix64::new(x).next_u64()`).
pub fn splitmix64(state: u64) -> u64 {
    mix64(state.wrapping_add(GAMMA))
}

/// A uniform number in [0, 1) from a 64-bit draw (its top 53 bits).
pub fn unit_f64(z: u64) -> f64 {
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The splitmix64 finaliser.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256++.
#[derive(Debug, Clone)]
pub struct Xoshiro256pp {
    s: [u64; 4],
}

impl Xoshiro256pp {
    /// Seeds the four state words from splitmix64 (never all zero in practice;
    /// guarded anyway).
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        let mut s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        if s == [0; 4] {
            s[0] = 1;
        }
        Self { s }
    }

    /// The generator for bootstrap resample `index` under `seed`.
    pub fn for_stream(seed: u64, index: u64) -> Self {
        Self::seed_from_u64(mix64(
            seed ^ mix64(index.wrapping_add(0xD1B5_4A32_D192_ED03)),
        ))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform integer in `0..bound` without bias (Lemire 2019).
    /// `bound` must be non-zero.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        let mut low = m as u64;
        if low < bound {
            let threshold = bound.wrapping_neg() % bound;
            while low < threshold {
                m = u128::from(self.next_u64()) * u128::from(bound);
                low = m as u64;
            }
        }
        (m >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // Reference outputs of splitmix64 with seed 0 (Vigna's C code).
        let mut sm = SplitMix64::new(0);
        assert_eq!(sm.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(sm.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn the_stateless_step_is_the_generator() {
        let mut sm = SplitMix64::new(42);
        let mut state = 42u64;
        for _ in 0..5 {
            assert_eq!(sm.next_u64(), splitmix64(state));
            state = state.wrapping_add(GAMMA);
        }
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(unit_f64(u64::MAX), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(unit_f64(0), 0.0);
    }

    #[test]
    fn xoshiro_reference_values() {
        // State [1, 2, 3, 4]: first outputs of the reference implementation.
        let mut x = Xoshiro256pp { s: [1, 2, 3, 4] };
        let got: Vec<u64> = (0..3).map(|_| x.next_u64()).collect();
        assert_eq!(got, vec![41943041, 58720359, 3588806011781223]);
    }

    #[test]
    fn below_stays_in_range_and_is_deterministic() {
        let mut a = Xoshiro256pp::for_stream(42, 7);
        let mut b = Xoshiro256pp::for_stream(42, 7);
        for bound in [1u64, 2, 3, 10, 1_000_003] {
            for _ in 0..1000 {
                let x = a.below(bound);
                assert!(x < bound);
                assert_eq!(x, b.below(bound));
            }
        }
        let mut c = Xoshiro256pp::for_stream(42, 8);
        let mut a = Xoshiro256pp::for_stream(42, 7);
        assert_ne!(a.next_u64(), c.next_u64());
    }
}
