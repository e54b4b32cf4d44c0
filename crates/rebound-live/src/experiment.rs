//! The S5 experiment (next commit).
