//! `strata wal dump FILE`: a WAL segment's records (offset, sequence number, region, cell
//! count) and, with `--cells`, their cells. Nothing is repaired: a torn tail is reported.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use strata_engine::codec::WalEdit;
use strata_engine::fs::LocalFs;
use strata_engine::tools::inspect_segment;

use super::sst::escape;

/// `println!` that never panics: see [`super::sst::emit`].
macro_rules! out {
    ($($arg:tt)*) => {
        super::sst::emit(format_args!($($arg)*))
    };
}

/// `strata wal ...`
#[derive(Debug, Subcommand)]
pub enum WalCommand {
    /// Print a WAL segment's records (and their cells with --cells).
    Dump(DumpArgs),
}

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The `wal-<N>.log` segment.
    pub file: PathBuf,
    /// Print every cell too.
    #[arg(long)]
    pub cells: bool,
}

pub fn run(command: WalCommand) -> Result<(), String> {
    let WalCommand::Dump(args) = command;
    let show = args.cells;
    let mut print = |offset: u64, edit: WalEdit| print_edit(offset, &edit, show);
    let summary = inspect_segment(&LocalFs, &args.file, &mut print).map_err(|e| e.to_string())?;
    out!(
        "segment {}: {} bytes, {} records",
        summary.number,
        summary.size,
        summary.records
    );
    if summary.torn_header {
        out!("torn header: the segment was created just before a crash (holds no edits)");
    }
    if let Some((offset, reason)) = summary.torn_tail {
        out!("torn tail at offset {offset}: {reason} (replay cuts it off)");
    }
    Ok(())
}

fn print_edit(offset: u64, edit: &WalEdit, cells: bool) {
    out!(
        "offset {offset}: seq {} region {} cells {}",
        edit.seq,
        edit.region_id,
        edit.cells.len()
    );
    if !cells {
        return;
    }
    for c in &edit.cells {
        out!(
            "  {}/{}:{}@{} {:?} = {}",
            escape(&c.row),
            escape(&c.family),
            escape(&c.qualifier),
            c.timestamp,
            c.cell_type,
            escape(&c.value)
        );
    }
}
