//! `strata sst dump FILE`: an SSTable's trailer, meta block, index entries and, with
//! `--cells`, every cell. Every block is verified while reading.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use strata_engine::fs::LocalFs;
use strata_engine::tools::parse_key;
use strata_engine::tools::{InspectedTable, TableEntry};

/// `println!` that never panics: see [`emit`].
macro_rules! out {
    ($($arg:tt)*) => {
        emit(format_args!($($arg)*))
    };
}

/// `strata sst ...`
#[derive(Debug, Subcommand)]
pub enum SstCommand {
    /// Print an SSTable's trailer, meta block and index (and its cells with --cells).
    Dump(DumpArgs),
}

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The `.sst` file.
    pub file: PathBuf,
    /// Print every cell too.
    #[arg(long)]
    pub cells: bool,
}

pub fn run(command: SstCommand) -> Result<(), String> {
    let SstCommand::Dump(args) = command;
    let table = InspectedTable::open(&LocalFs, &args.file).map_err(|e| e.to_string())?;
    print_header(&table);
    let index = table.index_entries().map_err(|e| e.to_string())?;
    out!("index: {} entries", index.len());
    for (i, entry) in index.iter().enumerate() {
        out!(
            "  [{i}] offset {} size {} last key {}",
            entry.handle.offset,
            entry.handle.size,
            key_text(&entry.last_key)
        );
    }
    let show = args.cells;
    let mut print = |e: TableEntry| {
        if show {
            out!("  {}", cell_text(&e));
        }
    };
    if show {
        out!("cells:");
    }
    let check = table.verify(&mut print).map_err(|e| e.to_string())?;
    out!(
        "verified: {} data blocks, {} entries",
        check.data_blocks,
        check.entries
    );
    Ok(())
}

fn print_header(table: &InspectedTable) {
    let t = table.trailer();
    let m = table.meta();
    out!("file size: {}", table.file_size());
    out!(
        "trailer: index {}+{}, bloom {}, meta {}+{}",
        t.index.offset,
        t.index.size,
        t.bloom
            .map_or("none".to_string(), |h| format!("{}+{}", h.offset, h.size)),
        t.meta.offset,
        t.meta.size
    );
    out!("meta: format version {}", m.format_version);
    out!("  first key {}", key_text(&m.first_key));
    out!("  last key  {}", key_text(&m.last_key));
    out!(
        "  timestamps {}..={}, max seq {}",
        m.min_timestamp,
        m.max_timestamp,
        m.max_seq
    );
    out!(
        "  entries {} (puts {}, deletes {}, family deletes {}), key bytes {}, value bytes {}",
        m.entry_count,
        m.put_count,
        m.delete_count,
        m.family_delete_count,
        m.raw_key_bytes,
        m.raw_value_bytes
    );
    out!(
        "  data blocks {}, bloom {:?}, compression {:?}, encoding {:?}, block size {}",
        m.data_block_count,
        m.bloom_type,
        m.compression,
        m.encoding,
        m.block_size
    );
}

fn cell_text(e: &TableEntry) -> String {
    let k = &e.key;
    format!(
        "{}/{}@{} {:?} seq {} = {}",
        escape(&k.row),
        escape(&k.qualifier),
        k.timestamp,
        k.cell_type,
        k.seq,
        escape(&e.value)
    )
}

/// An internal key as `row/qualifier@ts Type seq N`, or escaped raw bytes if malformed.
pub fn key_text(key: &[u8]) -> String {
    match parse_key(key) {
        Some(k) => format!(
            "{}/{}@{} {:?} seq {}",
            escape(&k.row),
            escape(&k.qualifier),
            k.timestamp,
            k.cell_type,
            k.seq
        ),
        None => format!("(raw) {}", escape(key)),
    }
}

/// Writes one line to stdout. A closed pipe (`strata sst dump --cells F | head`) ends the
/// process quietly, any other write error with status 1, instead of `println!`'s panic.
pub fn emit(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_fmt(line)
        .and_then(|()| stdout.write_all(b"\n"))
    {
        let code = i32::from(e.kind() != std::io::ErrorKind::BrokenPipe);
        std::process::exit(code);
    }
}

/// Printable ASCII as is (backslash doubled), every other byte as `\xNN`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn non_printable_bytes_are_escaped() {
        assert_eq!(escape(b"ab\x00\xff\\c\n"), "ab\\x00\\xff\\\\c\\x0a");
    }
}
