//! A shell session: the connection, where output goes, and running parsed statements with
//! HBase's timing lines and error reports.

use std::cell::RefCell;
use std::io::Write;
use std::time::{Duration, Instant};

use crate::client::Client;
use crate::commands;
use crate::error::{Result, ShellError};
use crate::format::{self, TimestampStyle};
use crate::parser;

/// How long a fetched list of table names serves tab completion.
const TABLE_CACHE_TTL: Duration = Duration::from_secs(10);

pub struct Session {
    pub client: Client,
    out: RefCell<Box<dyn Write>>,
    err: Box<dyn Write>,
    pub timestamps: TimestampStyle,
    tables: Option<(Instant, Vec<String>)>,
    /// Set by `exit`/`quit`.
    pub exit_requested: bool,
    /// A command's return value, printed after its timing line (`=> true`).
    result: RefCell<Option<String>>,
}

impl Session {
    pub fn new(client: Client, out: Box<dyn Write>, err: Box<dyn Write>) -> Session {
        Session {
            client,
            out: RefCell::new(out),
            err,
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

    /// Runs every statement in `input`; stops at the first failure, which has been reported.
    pub fn run_input(&mut self, input: &str) -> Result<()> {
        let statements = match parser::parse(input) {
            Ok(s) => s,
            Err(e) => {
                self.report(None, &ShellError::Parse(e.clone()))?;
                return Err(ShellError::Parse(e));
            }
        };
        for st in statements {
            if self.exit_requested {
                break;
            }
            let started = Instant::now();
            let result = match commands::find(&st.name) {
                Some(cmd) => (cmd.run)(self, &st.args),
                None => Err(ShellError::UnknownCommand(st.name.clone())),
            };
            self.out.borrow_mut().flush()?;
            match result {
                Ok(()) => {
                    if !commands::is_quiet(&st.name) {
                        self.say(format::took(started.elapsed().as_secs_f64()))?;
                    }
                    if let Some(line) = self.result.take() {
                        self.say(line)?;
                    }
                }
                Err(e) => {
                    self.result.take();
                    self.report(Some(&st.name), &e)?;
                    return Err(e);
                }
            }
        }
        self.out.borrow_mut().flush()?;
        Ok(())
    }

    /// Reports a failure as HBase's shell does: `ERROR: ...`, then the command's help for a
    /// usage mistake, or a pointer to it otherwise.
    fn report(&mut self, command: Option<&str>, error: &ShellError) -> Result<()> {
        writeln!(self.err, "ERROR: {error}")?;
        if let (Some(name), ShellError::Usage(_)) = (command, error) {
            if let Some(cmd) = commands::find(name) {
                writeln!(self.err, "\n{}", cmd.help.trim_end())?;
            }
        } else if let (Some(name), ShellError::Server(_) | ShellError::Unsupported(_)) =
            (command, error)
        {
            writeln!(self.err, "\nFor usage try 'help \"{name}\"'")?;
        }
        writeln!(self.err)?;
        self.err.flush()?;
        Ok(())
    }

    /// Table names for completion, fetched at most every few seconds.
    pub fn table_names(&mut self) -> Vec<String> {
        if let Some((at, names)) = &self.tables {
            if at.elapsed() < TABLE_CACHE_TTL {
                return names.clone();
            }
        }
        let names = commands::ddl::fetch_table_names(self).unwrap_or_default();
        self.tables = Some((Instant::now(), names.clone()));
        names
    }

    /// Drops the cached table names (after a create or drop).
    pub fn forget_tables(&mut self) {
        self.tables = None;
    }
}
