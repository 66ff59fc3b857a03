//! What only the master does, in objects that exist only while a server leads
//! ([`MasterRole`]). Code every server runs never reaches this module: the server's
//! [`crate::ownership::Ownership`] sees the master only through the `LeaderDuties` trait it
//! defines, which [`assign::Assigner`] implements.
//!
//! - [`role`]: taking up and leaving the role, and the master's rounds;
//! - [`leader`]: the term and the state of its duties;
//! - [`assign`]: new regions, orphans of dead servers, the regions the master opens;
//! - [`seal`]: sealing dead servers' WAL streams and recording them replayed;
//! - [`retire`]: retiring those streams once every region serves again;
//! - [`unclaimed`]: assigning again what nobody took up (a move a dead master left half done);
//! - [`directory_care`]: region ids above all in use, records no table lists removed;
//! - [`moves`], [`assignment`]: moves, `unassign`/`assign`;
//! - [`balancer`], [`balance_load`]: which region the balancer moves next;
//! - [`admin`]: all of it as the service's cluster administration.

pub mod admin;
pub mod assign;
pub mod assignment;
pub mod balance_load;
pub mod balancer;
pub mod directory_care;
pub mod leader;
pub mod moves;
pub mod retire;
pub mod role;
pub mod seal;
pub mod unclaimed;

pub use role::MasterRole;
