//! Every test of Draft & Cider, in one binary: one link instead of one per file.

mod golden;
mod properties;
mod rules;
mod scoring;
mod support;
