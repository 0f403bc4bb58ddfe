//! Every test of Treeblox, in one binary: one link instead of one per file.

mod golden;
mod properties;
mod rules;
mod schemas;
