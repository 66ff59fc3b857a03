//! A shell session: the connection, where output goes, and what one statement leaves for
//! the next (its return value, an exit request, the table names for completion). The
//! commands work on it; running statements is `run.rs`'s.

use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_runtime::clock::Clock;

use crate::client::Client;
use crate::error::Result;
use crate::format::TimestampStyle;

/// How long a fetched list of table names serves tab completion.
const TABLE_CACHE_TTL: Duration = Duration::from_secs(10);

pub struct Session {
    pub client: Client,
    out: RefCell<Box<dyn Write>>,
    err: Box<dyn Write>,
    /// Times statements and ages the table-name cache.
    clock: Arc<dyn Clock>,
    pub timestamps: TimestampStyle,
    tables: Option<(Instant, Vec<String>)>,
    /// Set by `exit`/`quit`.
    pub exit_requested: bool,
    /// A command's return value, printed after its timing line (`=> true`).
    result: RefCell<Option<String>>,
}

impl Session {
    pub fn new(
        client: Client,
        out: Box<dyn Write>,
        err: Box<dyn Write>,
        clock: Arc<dyn Clock>,
    ) -> Session {
        Session {
            client,
            out: RefCell::new(out),
            err,
            clock,
            timestamps: TimestampStyle::default(),
            tables: None,
            exit_requested: false,
            result: RefCell::new(None),
        }
    }

    /// Prints one line of command output.
    pub fn say(&self, line: impl AsRef<str>) -> Result<()> {
        writeln!(self.out.borrow_mut(), "{}", line.as_ref())?;
        Ok(())
    }

    /// Sets the command's return value line, printed after `Took ...`.
    pub fn result(&self, line: String) {
        *self.result.borrow_mut() = Some(line);
    }

    /// Takes the return value line the last command set, if any.
    pub(crate) fn take_result(&self) -> Option<String> {
        self.result.take()
    }

    /// Hands buffered command output to its writer.
    pub(crate) fn flush(&self) -> Result<()> {
        self.out.borrow_mut().flush()?;
        Ok(())
    }

    /// Where errors are reported.
    pub(crate) fn error_output(&mut self) -> &mut dyn Write {
        &mut *self.err
    }

    /// The session's clock.
    pub(crate) fn clock(&self) -> &dyn Clock {
        &*self.clock
    }

    /// The table names fetched for completion, unless they are too old to trust.
    pub fn fresh_table_names(&self) -> Option<&[String]> {
        let (at, names) = self.tables.as_ref()?;
        let age = self.clock.elapsed(*at);
        (age < TABLE_CACHE_TTL).then_some(names.as_slice())
    }

    /// Keeps freshly fetched table names for completion.
    pub fn remember_table_names(&mut self, names: Vec<String>) {
        self.tables = Some((self.clock.now(), names));
    }

    /// Drops the cached table names (after a create or drop).
    pub fn forget_tables(&mut self) {
        self.tables = None;
    }
}
