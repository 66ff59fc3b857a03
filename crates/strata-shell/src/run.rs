//! Runs parsed statements in a session, as HBase's shell does: each command's timing line
//! and return value, and error reports with the command's help.

use crate::commands;
use crate::error::{Result, ShellError};
use crate::format;
use crate::parser::{self, Statement};
use crate::session::Session;

/// Runs every statement in `input`; stops at the first failure, which has been reported.
pub fn run_input(session: &mut Session, input: &str) -> Result<()> {
    let statements = match parser::parse(input) {
        Ok(s) => s,
        Err(e) => {
            report(session, None, &ShellError::Parse(e.clone()))?;
            return Err(ShellError::Parse(e));
        }
    };
    for statement in statements {
        if session.exit_requested {
            break;
        }
        run_statement(session, &statement)?;
    }
    session.flush()
}

/// Runs one statement and prints its timing line and return value, or reports its error.
fn run_statement(session: &mut Session, statement: &Statement) -> Result<()> {
    let started = session.clock().now();
    let result = match commands::find(&statement.name) {
        Some(cmd) => (cmd.run)(session, &statement.args),
        None => Err(ShellError::UnknownCommand(statement.name.clone())),
    };
    session.flush()?;
    match result {
        Ok(()) => {
            if !commands::is_quiet(&statement.name) {
                let took = session.clock().elapsed(started);
                session.say(format::took(took.as_secs_f64()))?;
            }
            if let Some(line) = session.take_result() {
                session.say(line)?;
            }
            Ok(())
        }
        Err(e) => {
            session.take_result();
            report(session, Some(&statement.name), &e)?;
            Err(e)
        }
    }
}

/// Reports a failure as HBase's shell does: `ERROR: ...`, then the command's help for a
/// usage mistake, or a pointer to it otherwise.
fn report(session: &mut Session, command: Option<&str>, error: &ShellError) -> Result<()> {
    let err = session.error_output();
    writeln!(err, "ERROR: {error}")?;
    if let (Some(name), ShellError::Usage(_)) = (command, error) {
        if let Some(cmd) = commands::find(name) {
            writeln!(err, "\n{}", cmd.help.trim_end())?;
        }
    } else if let (Some(name), ShellError::Server(_) | ShellError::Unsupported(_)) =
        (command, error)
    {
        writeln!(err, "\nFor usage try 'help \"{name}\"'")?;
    }
    writeln!(err)?;
    err.flush()?;
    Ok(())
}
