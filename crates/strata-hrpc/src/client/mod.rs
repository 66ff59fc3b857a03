//! ClientService: the data path. Every call names a region; `regions.rs` checks the name
//! still means the region the client cached, then the call runs through the service.

pub mod cell_blocks;
pub mod check_filter;
pub mod filters;
pub mod get;
pub mod multi;
pub mod mutate;
pub mod mutations;
pub mod reads;
pub mod regions;
pub mod scan;
pub mod scanners;
