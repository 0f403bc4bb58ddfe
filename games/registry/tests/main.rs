//! The registry's tests, one binary: every game's `decide` under arbitrary
//! JSON, and the rule reference that documents every refusal.

mod decide_fuzz;
mod rule_reference;
