//! The registry's tests, one binary: every game's `decide` under arbitrary
//! JSON, the rule reference that documents every refusal, and redaction
//! through the type-erased interface.

mod clock;
mod decide_fuzz;
mod redaction;
mod rule_reference;
mod state_bytes;
