//! Every test of Build Your Arboretum, in one binary: one link instead of one per file.

mod golden;
mod properties;
mod rules;
mod schemas;
mod scoring;
mod support;
