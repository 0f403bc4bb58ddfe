//! The one random number generator games may use, seeded by the caller.
//!
//! ChaCha8 is portable and stable across platforms and releases, so a seed
//! recorded today reproduces the same deal on any machine tomorrow.

use rand::SeedableRng;

/// The generator handed to [`crate::Game::setup`].
pub type GameRng = rand_chacha::ChaCha8Rng;

/// The largest seed a game may have: 2^63 - 1. Seeds are stored as
/// PostgreSQL `bigint` and published as an OpenAPI `int64`, so one range
/// holds everywhere a seed enters — game creation, import and
/// `umpire simulate` — and a seed any of them accepts, the others accept too.
pub const MAX_SEED: u64 = i64::MAX as u64;

/// True when `seed` is within [`MAX_SEED`].
pub fn is_valid_seed(seed: u64) -> bool {
    seed <= MAX_SEED
}

/// A valid seed from 64 random bits (the top one dropped), for callers that
/// draw seeds themselves.
pub fn seed_from_random_bits(bits: u64) -> u64 {
    bits & MAX_SEED
}

/// A generator for a recorded seed.
pub fn rng_from_seed(seed: u64) -> GameRng {
    GameRng::seed_from_u64(seed)
}
