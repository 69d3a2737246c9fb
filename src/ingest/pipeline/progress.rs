//! The progress bar of long commands (`kb add`, `kb reindex`).

use std::time::Duration;

/// The progress bar of long commands, on stderr; hidden when stderr is not
/// a terminal or with `--quiet`.
pub fn progress_bar(len: u64, show: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !show || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30.cyan/blue} {pos}/{len} files · {msg} · {elapsed} elapsed, ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}
