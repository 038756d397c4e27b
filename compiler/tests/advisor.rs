//! `--target-occupancy auto` end to end on the seed examples: the advisor's
//! choice is what the seeds' articles predict, and its table is deterministic.

mod common;
use common::{text, wavec};

/// The table's winner row (marked `*`): its waves per core (the 7th column).
fn winner_waves(table: &str) -> u32 {
    let row = table.lines().find(|l| l.starts_with('*')).unwrap_or_else(|| panic!("no winner row:\n{table}"));
    row.trim_start_matches('*').split_whitespace().nth(6).and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("no waves in `{row}`"))
}

/// Every row's waves per core.
fn all_waves(table: &str) -> Vec<u32> {
    table
        .lines()
        .skip(2)
        .filter(|l| !l.starts_with("winner"))
        .filter_map(|l| l.trim_start_matches('*').split_whitespace().nth(6)?.parse().ok())
        .collect()
}

#[test]
fn latency_bound_kernels_keep_the_most_waves() {
    // "What is shader occupancy": a wave waits out each load it uses right away,
    // and only other resident waves hide that wait, so the fastest point is the
    // highest occupancy the kernel reaches (here the default, at every wave slot).
    let args =
        ["run", "examples/seeds/occupancy_latency.test", "--target", "gcn", "-O", "--disable", "sched", "--target-occupancy", "auto"];
    let out = wavec(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let most = all_waves(&table).into_iter().max().unwrap_or(0);
    assert_eq!(winner_waves(&table), most, "{table}");
    assert!(table.contains("winner: "), "{table}");
    // Deterministic: the same table again.
    let again = wavec(&args);
    assert_eq!(text(&again.stdout), table);
}

#[test]
fn large_groups_are_fastest_with_two_groups_per_compute_unit() {
    // GPUOpen, large thread groups: one 1024-thread group per CU (4 waves per SIMD)
    // idles while its waves wait at a barrier; a register budget that fits two groups
    // (8 waves per SIMD) lets one compute while the other waits. The candidates are
    // named by whole-group steps (4 and 8), and the winner holds two groups.
    let out = wavec(&["run", "examples/seeds/large_thread_groups.test", "--target", "gcn", "-O", "--target-occupancy", "auto"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(all_waves(&table).iter().all(|w| w % 4 == 0), "{table}");
    assert_eq!(winner_waves(&table), 8, "{table}");
}

#[test]
fn a_compile_tunes_with_a_test_and_says_how() {
    let hlsl = "examples/seeds/large_thread_groups.hlsl";
    let alone = wavec(&[hlsl, "--target", "gcn", "-O", "--target-occupancy", "auto"]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(text(&alone.stderr).contains("error[E0515]"), "{}", text(&alone.stderr));
    let tuned =
        wavec(&[hlsl, "--target", "gcn", "-O", "--target-occupancy", "auto", "--tune-with", "examples/seeds/large_thread_groups.test"]);
    assert!(tuned.status.success(), "{}", text(&tuned.stderr));
    let asm = text(&tuned.stdout);
    let first = asm.lines().next().unwrap_or("");
    assert!(first.starts_with("; --target-occupancy auto chose ") && first.contains("8 waves per core"), "{first}");
    // The listing is the winner's: the same code as compiling at its target.
    let run = wavec(&["run", "examples/seeds/large_thread_groups.test", "--target", "gcn", "-O", "--target-occupancy", "auto"]);
    let line = text(&run.stdout).lines().find_map(|l| l.strip_prefix("winner: ").map(str::to_string)).unwrap_or_default();
    assert!(first.contains(&line), "{first}\n{line}");
}

#[test]
fn the_report_gains_the_advisor_curve() {
    let dir = std::env::temp_dir().join(format!("wavec-advisor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let html = dir.join("r.html");
    let out = wavec(&[
        "run",
        "examples/seeds/large_thread_groups.test",
        "--target",
        "gcn",
        "-O",
        "--target-occupancy",
        "auto",
        "--report",
        html.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let h = std::fs::read_to_string(&html).expect("report written");
    assert!(h.contains("<h2>Occupancy advisor</h2>") && h.contains("cycles against target occupancy"), "no curve");
    let _ = std::fs::remove_dir_all(&dir);
}
