//! Where a compile job's diagnostics go: stderr, in the `--diagnostics-format`
//! asked for. Human text and JSON lines are written as they come; a SARIF log
//! is one document, written when the job ends ([`Reporter::finish`]).

use super::args::DiagFormat;
use wavec::diag::sarif::SarifLog;
use wavec::diag::{json, render, Diagnostic, Sources};

pub struct Reporter {
    format: DiagFormat,
    sarif: SarifLog,
    errors: bool,
}

impl Reporter {
    pub fn new(format: DiagFormat) -> Reporter {
        Reporter { format, sarif: SarifLog::new(), errors: false }
    }

    /// Reports `diags`, whose spans lie in `sources`.
    pub fn report(&mut self, sources: &Sources, diags: &[Diagnostic]) {
        self.errors |= diags.iter().any(Diagnostic::is_error);
        match self.format {
            DiagFormat::Human => eprint!("{}", render(sources, diags)),
            DiagFormat::Json => eprint!("{}", json::render_lines(sources, diags)),
            DiagFormat::Sarif => self.sarif.add(sources, diags),
        }
    }

    /// Reports one diagnostic without a source (the command line, files).
    pub fn report_one(&mut self, d: Diagnostic) {
        self.report(&Sources::new(), &[d]);
    }

    /// Ends the job with exit code `code`: writes the SARIF log, if that is the format.
    pub fn finish(self, code: i32) -> i32 {
        if self.format == DiagFormat::Sarif {
            eprint!("{}", self.sarif.finish(code == 0 && !self.errors));
        }
        code
    }
}
