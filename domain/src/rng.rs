//! The one random number generator games may use, seeded by the caller.
//!
//! ChaCha8 is portable and stable across platforms and releases, so a seed
//! recorded today reproduces the same deal on any machine tomorrow.

use rand::SeedableRng;

/// The generator handed to [`crate::Game::setup`].
pub type GameRng = rand_chacha::ChaCha8Rng;

/// A generator for a recorded seed.
pub fn rng_from_seed(seed: u64) -> GameRng {
    GameRng::seed_from_u64(seed)
}
