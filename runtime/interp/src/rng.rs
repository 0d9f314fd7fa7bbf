//! Counter-based randomness: a value is a pure function of `(key, counter)`,
//! so dropout masks and random inputs do not depend on rank count, schedule
//! or evaluation order.

/// SplitMix64's finaliser: a bijective mix of 64 bits.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A uniform number in `[0, 1)` for `(key, counter)`.
pub fn uniform(key: u64, counter: u64) -> f64 {
    let bits = mix(mix(key) ^ counter.wrapping_mul(0xd6e8_feb8_6659_fd93));
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// A key from several parts (seed, names, indices).
pub fn key(parts: &[u64]) -> u64 {
    parts.iter().fold(0x636f_636f, |acc, &p| mix(acc ^ p))
}

/// A stable 64-bit hash of a string, for keys.
pub fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
