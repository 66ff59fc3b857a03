//! Shared test support: the reference model and a harness that drives the engine and the
//! model with the same random operations.

#![allow(dead_code)]

pub mod db;
pub mod harness;
pub mod ledger;
pub mod model;
pub mod snapshots;
