//! The interactive loop (rustyline: line editing, history, completion of command and table
//! names) and the non-interactive runners.

use std::cell::RefCell;
use std::io::BufRead;
use std::path::PathBuf;
use std::rc::Rc;

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::commands;
use crate::error::{Result, ShellError};
use crate::parser;
use crate::run::run_input;
use crate::session::Session;

/// Runs a script (from `-e`, a file or a pipe): every statement in order, stopping at the
/// first error, which is returned (and has been reported).
pub fn run_script(session: &mut Session, script: &str) -> Result<()> {
    run_input(session, script)
}

/// Reads a whole script from a non-terminal reader, then runs it.
pub fn run_reader(session: &mut Session, reader: impl BufRead) -> Result<()> {
    let mut script = String::new();
    for line in reader.lines() {
        script.push_str(&line?);
        script.push('\n');
    }
    run_script(session, &script)
}

/// The prompt: `strata:NNN:L>` with the statement number and, on continuation lines, 1.
pub fn prompt(statement: usize, continuing: bool) -> String {
    format!("strata:{statement:03}:{}> ", u8::from(continuing))
}

/// The interactive shell. Errors are reported and the shell goes on; it ends at `exit`,
/// Ctrl-D, or a failing terminal.
pub fn interactive(session: &mut Session, history: Option<PathBuf>) -> Result<()> {
    let tables = Rc::new(RefCell::new(Vec::new()));
    let mut editor: Editor<ShellHelper, _> =
        Editor::new().map_err(|e| ShellError::Io(std::io::Error::other(e)))?;
    editor.set_helper(Some(ShellHelper {
        tables: Rc::clone(&tables),
    }));
    if let Some(path) = &history {
        // A missing history file is normal on first use.
        let _ = editor.load_history(path);
    }
    let mut statement = 1;
    let mut pending = String::new();
    loop {
        *tables.borrow_mut() = table_names(session);
        let line = match editor.readline(&prompt(statement, !pending.is_empty())) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(ShellError::Io(std::io::Error::other(e))),
        };
        pending.push_str(&line);
        pending.push('\n');
        // An unfinished string or bracket continues on the next line, as in irb.
        if let Err(e) = parser::parse(&pending) {
            if e.incomplete {
                continue;
            }
        }
        let input = std::mem::take(&mut pending);
        if input.trim().is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(input.trim_end());
        // The error has been reported; an interactive shell carries on.
        let _ = run_input(session, &input);
        statement += 1;
        if session.exit_requested {
            break;
        }
    }
    if let Some(path) = &history {
        if let Err(e) = editor.save_history(path) {
            eprintln!("warning: could not save history to {}: {e}", path.display());
        }
    }
    Ok(())
}

/// Table names for completion, fetched at most every few seconds.
fn table_names(session: &mut Session) -> Vec<String> {
    if let Some(names) = session.fresh_table_names() {
        return names.to_vec();
    }
    // Completion is a convenience: a failed fetch completes no table names.
    let names = commands::ddl::fetch_table_names(session).unwrap_or_default();
    session.remember_table_names(names.clone());
    names
}

/// Completes command names at the start of a statement and table names in quotes.
struct ShellHelper {
    tables: Rc<RefCell<Vec<String>>>,
}

/// Where the word being completed starts, and whether it is the command name.
pub fn completion_context(line: &str) -> (usize, bool) {
    let start = line
        .rfind(|c: char| c.is_whitespace() || matches!(c, '(' | ',' | ';' | '[' | '{'))
        .map_or(0, |i| i + 1);
    let before = line[..start].trim_end();
    let is_command = before.is_empty() || before.ends_with(';');
    (start, is_command)
}

/// Candidates for the word at the end of `line`.
pub fn candidates(line: &str, tables: &[String]) -> (usize, Vec<String>) {
    let (start, is_command) = completion_context(line);
    let word = &line[start..];
    if is_command {
        let names = commands::names()
            .filter(|n| n.starts_with(word))
            .map(str::to_string);
        return (start, names.collect());
    }
    let Some(quote) = word.chars().next().filter(|c| *c == '\'' || *c == '"') else {
        return (start, Vec::new());
    };
    let partial = &word[1..];
    let names = tables
        .iter()
        .filter(|t| t.starts_with(partial))
        .map(|t| format!("{quote}{t}{quote}"));
    (start, names.collect())
}

impl Completer for ShellHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let line = line.get(..pos).unwrap_or(line);
        Ok(candidates(line, &self.tables.borrow()))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {}

impl Validator for ShellHelper {}

impl Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_count_statements() {
        assert_eq!(prompt(1, false), "strata:001:0> ");
        assert_eq!(prompt(12, true), "strata:012:1> ");
    }

    #[test]
    fn completion_offers_commands_then_tables() {
        let tables = vec!["users".to_string(), "ns:events".to_string()];
        let (start, found) = candidates("sc", &tables);
        assert_eq!((start, found), (0, vec!["scan".to_string()]));
        let (_, found) = candidates("list; dis", &tables);
        assert_eq!(found, vec!["disable".to_string()]);
        let (start, found) = candidates("scan 'u", &tables);
        assert_eq!((start, found), (5, vec!["'users'".to_string()]));
        let (_, found) = candidates("get \"ns", &tables);
        assert_eq!(found, vec!["\"ns:events\"".to_string()]);
        assert!(candidates("put 't', r", &tables).1.is_empty());
    }
}
