//! Every test of Between Flower Fields, in one binary: one link instead of one per file.

mod golden;
mod properties;
mod rules;
mod schemas;
mod support;
