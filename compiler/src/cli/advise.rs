//! `--target-occupancy auto` on the command line: `wavec run` prints the
//! advisor's table ([`wavec::run::advisor`]); a compile with `--tune-with
//! FILE.test` compiles at the target the advisor chose on that test.

use std::path::Path;

use super::args::RunCli;
use wavec::diag::Diagnostic;
use wavec::run::advisor::{self, Advice};
use wavec::run::{PipelineTest, RunOptions};
use wavec::source::Input;

/// `wavec run ... --target-occupancy auto`: the table on stdout; with
/// `--stats`, `--stats-json` or `--report`, those of the winner's run. Exit 0
/// when a candidate passed, else the default's exit code.
pub fn run_job(cli: &RunCli, test: &PipelineTest, ropts: &RunOptions) -> i32 {
    if cli.device_memory.is_some() || cli.gpu_plan.is_some() {
        eprintln!("error[E0515]: --target-occupancy auto simulates every candidate: it does not take --device-memory or --gpu-plan");
        return 2;
    }
    let advice = match advisor::advise(test, ropts) {
        Ok(a) => a,
        Err(outcome) => {
            eprint!("{}", outcome.stderr);
            return outcome.exit_code;
        }
    };
    print!("{}", advisor::render(&advice));
    let Some(w) = advice.winner else {
        return failed_code(&advice);
    };
    if !(cli.stats || cli.stats_json.is_some() || cli.report.is_some()) {
        return 0;
    }
    // The winner's run again, for its statistics (the same compilation: deterministic).
    let mut again = ropts.clone();
    again.compile.target_occupancy = advice.points[w].candidate.target;
    let outcome = wavec::run::run_pipeline(test, &again);
    let Some(st) = &outcome.stats else {
        eprint!("{}", outcome.stderr);
        return outcome.exit_code;
    };
    if cli.stats {
        eprint!("{}", wavec::run::describe_stats(st));
    }
    if let Some(path) = &cli.stats_json {
        let json = serde_json::to_string_pretty(&st.report).unwrap_or_default() + "\n";
        if let Err(code) = super::write_output(path, json.as_bytes()) {
            return code;
        }
    }
    if let Some(path) = &cli.report {
        let title = cli.files[0].file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let html = wavec::run::html::render_with_advice(&st.report, &again.compile.target, &title, Some(&advice));
        if let Err(code) = super::write_output(path, html.as_bytes()) {
            return code;
        }
    }
    0
}

/// Exit code of an advice with no winner: the default's, else 1.
fn failed_code(a: &Advice) -> i32 {
    a.points
        .iter()
        .find_map(|p| match &p.verdict {
            advisor::Verdict::Failed { exit_code, .. } => Some(*exit_code),
            _ => None,
        })
        .unwrap_or(wavec::run::EXIT_MISMATCH)
}

/// A compile's `--target-occupancy auto --tune-with TEST`: the target the
/// advisor chose (None: the default) and the listing's header line, or the
/// diagnostic that stops the compile.
pub fn tune(input: &Input, test_path: &Path, ropts: RunOptions) -> Result<(Option<u32>, String), Diagnostic> {
    let max = ropts.compile.limits.file_bytes;
    let is_test = test_path.extension().is_some_and(|e| e == "test");
    let loaded = if is_test {
        wavec::run::load_test_file_limited(test_path, max)
    } else {
        let hlsl = input.path.clone().unwrap_or_else(|| test_path.with_extension("hlsl"));
        wavec::run::load_pair_limited(test_path, &hlsl, max)
    };
    let mut test = loaded.map_err(|e| Diagnostic::error("E0515", format!("--tune-with {}: {}", test_path.display(), e.message)))?;
    // The kernel is the file being compiled; the test gives the dispatch and the expected buffers.
    test.source = input.main.clone();
    test.includes = input.files.clone();
    test.dir = input.dir.clone();
    test.unity_compute = input.unity_compute;
    let advice = advisor::advise(&test, &ropts).map_err(|o| {
        Diagnostic::error("E0515", format!("--tune-with {}: the test did not run: {}", test_path.display(), o.stderr.trim()))
    })?;
    let Some(line) = advice.winner_line() else {
        let table = advisor::render(&advice);
        return Err(Diagnostic::error(
            "E0515",
            format!("--target-occupancy auto: no candidate passed {} at every target:\n{table}", test_path.display()),
        ));
    };
    let target = advice.winner.and_then(|w| advice.points[w].candidate.target);
    Ok((target, format!("; --target-occupancy auto chose {line} (simulated on {})", test_path.display())))
}
