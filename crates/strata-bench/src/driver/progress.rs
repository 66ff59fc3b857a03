//! The progress bar on stderr: shown only on a terminal and without `--quiet`, so scripts
//! and pipes get clean output.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `total` operations, or a hidden one.
pub fn bar(name: &str, total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let template = "{prefix:>16} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}, eta {eta})";
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_prefix(name.to_string());
    bar
}

/// A bar that draws nothing.
pub fn hidden() -> ProgressBar {
    ProgressBar::hidden()
}
