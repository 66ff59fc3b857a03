#![allow(clippy::expect_used)]
//! docs/shell.md against the shell's command table: the tables under "## Commands" name
//! every command the shell runs, and no command it does not, so a command added without its
//! documentation (or documented and then removed) fails here.

use std::collections::BTreeSet;

use strata_shell::commands::COMMANDS;

const SHELL_MD: &str = include_str!("../../../docs/shell.md");

/// The names in the first column of the command tables (`| exit, quit | ... |`): the
/// tables whose header's first cell is `command` (the section has other tables too).
fn documented_commands(doc: &str) -> BTreeSet<&str> {
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Commands\n"))
        .expect("docs/shell.md has a \"## Commands\" section");
    let mut names = BTreeSet::new();
    let mut in_table = false;
    let mut command_table = false;
    for line in section.lines() {
        let Some(row) = line.strip_prefix('|') else {
            in_table = false;
            continue;
        };
        let cell = row.split('|').next().unwrap_or("").trim();
        if !in_table {
            // A table's first row is its header.
            in_table = true;
            command_table = cell == "command";
            continue;
        }
        // The separator and the continuation rows of a command's examples.
        if command_table && !cell.is_empty() && !cell.starts_with("---") {
            names.extend(cell.split(',').map(str::trim));
        }
    }
    names
}

#[test]
fn docs_list_exactly_the_shells_commands() {
    let documented = documented_commands(SHELL_MD);
    let commands: BTreeSet<&str> = COMMANDS.iter().map(|c| c.name).collect();
    let undocumented: Vec<_> = commands.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&commands).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "commands missing from docs/shell.md's tables: {undocumented:?}; \
         listed there but not commands of the shell: {unknown:?}"
    );
}

#[test]
fn the_table_reader_sees_names_and_skips_the_rest() {
    let doc = "intro\n## Commands\n\n| command | example |\n| --- | --- |\n\
               | exit, quit | `exit` |\n| | `more` |\n| get | `get 't'` |\n\n\
               | SPLITALGO | key space |\n| --- | --- |\n| `HexStringSplit` | hex |\n\
               ## Mistakes\n| not_a_command | x |\n";
    let names: Vec<_> = documented_commands(doc).into_iter().collect();
    assert_eq!(names, ["exit", "get", "quit"]);
}
