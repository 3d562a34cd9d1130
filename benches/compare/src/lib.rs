//! hookc against cedar-policy, regorus and the seed design's hook registry
//! on one workload, side by side.
//!
//! The [`workload`] is `n` rules on one hook point; each engine gets the
//! same rules in its own language ([`hookc_rules`], [`cedar_policies`],
//! [`rego_policy`], [`seed_hooks`]) and is asked the same question per
//! call: which rules deny it. The crate's tests check that every engine
//! gives the workload's answer on every event; `benches/compare.rs` times
//! the engines in one run.
//!
//! This crate is its own workspace, outside the hookc build: the
//! repository's CI never compiles cedar-policy or regorus.

pub mod cedar_policies;
pub mod hookc_rules;
pub mod rego_policy;
pub mod seed_hooks;
#[path = "../../common/seed_registry.rs"]
pub mod seed_registry;
pub mod workload;
