//! Shell completions and the man page, both generated from the same clap
//! definitions as `--help`.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::error::{KbError, Result};

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `kb man` takes no arguments.
#[derive(Debug, Args)]
pub struct DocsArgs {}

/// The whole command-line interface, as clap defines it.
pub fn command() -> clap::Command {
    super::Cli::command()
}

pub(super) fn completions(shell: Shell) -> Result<String> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command(), "kb", &mut out);
    String::from_utf8(out).map_err(|e| KbError::Internal(format!("completions: {e}")))
}

/// The man page: kb(1) with every subcommand's options, from the same
/// definitions as `--help`.
pub(super) fn man_page() -> Result<String> {
    let cmd = command();
    let mut out = Vec::new();
    let render = |cmd: clap::Command, out: &mut Vec<u8>| {
        clap_mangen::Man::new(cmd)
            .render(out)
            .map_err(|e| KbError::Internal(format!("man page: {e}")))
    };
    render(cmd.clone(), &mut out)?;
    // One section per subcommand, after the main page.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        // clap wants a 'static name: the man page is built once per process.
        let name: &'static str = Box::leak(format!("kb-{}", sub.get_name()).into_boxed_str());
        render(sub.clone().name(name), &mut out)?;
    }
    String::from_utf8(out).map_err(|e| KbError::Internal(format!("man page: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_and_man_come_from_the_definitions() {
        let bash = completions(Shell::Bash).unwrap();
        assert!(bash.contains("--fts-only") && bash.contains("search"));
        for shell in [Shell::Zsh, Shell::Fish, Shell::PowerShell] {
            assert!(completions(shell).unwrap().contains("search"));
        }
        let man = man_page().unwrap();
        assert!(man.contains(".TH kb"), "{}", &man[..200.min(man.len())]);
        assert!(
            man.contains("fts\\-only"),
            "the search options are documented"
        );
    }

    #[test]
    fn the_definitions_are_consistent() {
        command().debug_assert();
    }
}
