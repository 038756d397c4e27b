//! `--target-occupancy auto` end to end on the seed examples: the advisor's
//! choice is what the seeds' articles predict, and its table is deterministic;
//! a candidate that fails is reported and never chosen; a candidate whose
//! issue bound exceeds the best time so far is skipped, and marked so.
//! (`tests/seeds.rs` checks the choices on the articles' own cases,
//! `tests/advisor/`, through the library.)

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
    let dir = common::scratch("advisor");
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

/// One row of the advisor's table, as printed.
#[derive(Debug)]
struct Row {
    winner: bool,
    target: Option<u32>,
    spill: u64,
    waves: u32,
    dynamic: Option<u64>,
    cycles: Option<u64>,
    note: String,
}

/// The table's rows: `*`, target, budget, regs, MaxLive, spill(w), banks, waves, the
/// limit (one word or more), static, dynamic, cycles, speed-up, then the note.
fn rows(table: &str) -> Vec<Row> {
    let row = |l: &str| {
        let toks: Vec<&str> = l.get(1..)?.split_whitespace().collect();
        let num = |s: &str| s.parse::<u64>().ok();
        let end = 7 + toks.get(7..)?.iter().position(|t| num(t).is_some())?;
        Some(Row {
            winner: l.starts_with('*'),
            target: toks[0].parse().ok(),
            spill: num(toks[4])?,
            waves: toks[6].parse().ok()?,
            dynamic: num(toks.get(end + 1)?),
            cycles: num(toks.get(end + 2)?),
            note: toks.get(end + 4..).map(|n| n.join(" ")).unwrap_or_default(),
        })
    };
    table
        .lines()
        .skip(2)
        .filter(|l| !l.starts_with("winner"))
        .map(|l| row(l).unwrap_or_else(|| panic!("not a table row: `{l}`\n{table}")))
        .collect()
}

fn winner_row(rows: &[Row]) -> &Row {
    let w: Vec<&Row> = rows.iter().filter(|r| r.winner).collect();
    assert_eq!(w.len(), 1, "{rows:?}");
    w[0]
}

const LATENCY: &str = "tests/advisor/occupancy_latency_spills.test";

#[test]
fn a_candidate_that_faults_is_reported_and_never_chosen() {
    // A genuine failure: with `--max-instructions N` the run of a candidate that executes
    // more than N wave-instructions faults (exit 3). The advisor's winner here is a target
    // whose spill code executes more instructions than the default does; a limit just below
    // its count makes exactly the candidates above it fault, and the advisor must report
    // them and choose among the rest.
    let args = ["run", LATENCY, "-O", "--target-occupancy", "auto"];
    let free = wavec(&args);
    assert!(free.status.success(), "{}", text(&free.stderr));
    let table = text(&free.stdout);
    let free_rows = rows(&table);
    let best = winner_row(&free_rows);
    assert!(best.target.is_some(), "the winner is not the default:\n{table}");
    let limit = best.dynamic.expect("the winner ran") - 1;
    assert!(free_rows[0].dynamic.is_some_and(|d| d <= limit), "the default executes fewer instructions:\n{table}");

    let limit_arg = limit.to_string();
    let out = wavec(&[&args[..], &["--max-instructions", &limit_arg]].concat());
    assert!(out.status.success(), "another candidate passes: {}", text(&out.stderr));
    let limited = text(&out.stdout);
    let r = rows(&limited);
    assert_eq!(r.len(), free_rows.len(), "{limited}");
    for (now, before) in r.iter().zip(&free_rows) {
        assert_eq!(now.target, before.target);
        // Every candidate (or the one whose code it shares) that ran over the limit failed.
        if before.dynamic.is_some_and(|d| d > limit) && !before.note.starts_with("same code") {
            assert!(now.note.starts_with("failed (exit 3)") && now.note.contains("instruction limit"), "{limited}");
            assert!(!now.winner && now.cycles.is_none(), "{limited}");
        }
    }
    let row_of_best = r.iter().find(|x| x.target == best.target).expect("the row");
    assert!(row_of_best.note.starts_with("failed (exit 3)"), "{limited}");
    let w = winner_row(&r);
    assert!(w.target != best.target && w.dynamic.is_some_and(|d| d <= limit), "{limited}");
    assert!(limited.contains("winner: "), "{limited}");
}

#[test]
fn a_candidate_whose_issue_bound_exceeds_the_best_time_is_skipped() {
    // One load per step: the kernel issues nearly all the time, so the targets whose spill
    // code adds the most instructions cannot win, and their issue cycles spread over every
    // core (a lower bound on their time) say so without timing them.
    let out = wavec(&["run", LATENCY, "-O", "-D", "CHASE=1", "--target-occupancy", "auto"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let r = rows(&table);
    let w = winner_row(&r);
    let won = w.cycles.expect("the winner was timed");
    let skipped: Vec<&Row> = r.iter().filter(|x| x.note.starts_with("skipped: issue bound ")).collect();
    assert!(!skipped.is_empty(), "{table}");
    for s in skipped {
        // "skipped: issue bound B cycles > best C": B above C, and C no better than the winner.
        let words: Vec<&str> = s.note.split_whitespace().collect();
        let bound: u64 = words.get(3).and_then(|b| b.parse().ok()).unwrap_or_else(|| panic!("{}", s.note));
        let best: u64 = words.last().and_then(|b| b.parse().ok()).unwrap_or_else(|| panic!("{}", s.note));
        assert!(bound > best && best >= won && bound > won, "{table}");
        assert!(s.cycles.is_none() && s.dynamic.is_some(), "{table}");
        // They are the spilling targets above the winner's occupancy.
        assert!(s.spill > w.spill && s.waves > w.waves, "{table}");
    }
}
