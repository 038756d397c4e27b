//! The HTML report (`wavec run --report`) in a real browser: headless Chromium
//! loads each page from a file, runs its script and dumps the DOM, which must show
//! the page rendered (`data-rendered`), no script error, the charts drawn and the
//! kernel's figures. It needs `chromium` on PATH, so `cargo test` skips it; run
//! `tests/browser/check.sh` (which installs Chromium when missing) or
//! `cargo test -p wavec-tests --test browser -- --ignored`.

use std::path::PathBuf;
use std::process::Command;

use wavec::driver::OptLevel;
use wavec::run::{self, html, RunOptions};
use wavec::target::preset;

struct Case {
    test: &'static str,
    target: &'static str,
    registers: Option<u32>,
    timing: bool,
}

const CASES: &[Case] = &[
    Case { test: "examples/seeds/large_thread_groups.test", target: "gcn", registers: Some(40), timing: true },
    Case { test: "examples/seeds/thread_group_swizzle.test", target: "gcn", registers: None, timing: true },
    Case { test: "examples/histogram.test", target: "generic", registers: None, timing: true },
    Case { test: "examples/matmul_tiled.test", target: "nvidia", registers: None, timing: true },
    // Without the cycle model the page has no timeline, and still renders.
    Case { test: "examples/saxpy.test", target: "generic", registers: None, timing: false },
];

/// Writes the report page of `case` to `dir`; the page's path and the cycles it shows.
fn write_page(case: &Case, dir: &std::path::Path) -> (PathBuf, Option<u64>) {
    let test = run::load_test_file(&wavec_tests::repo_root().join(case.test)).expect("test loads");
    let target = preset(case.target).expect("target");
    let mut opts = RunOptions::new(target.clone());
    opts.compile.opt = OptLevel::O;
    opts.registers_for_occupancy = case.registers;
    opts.timing = case.timing;
    let out = run::run_pipeline(&test, &opts);
    assert_eq!(out.exit_code, 0, "{}: {}", case.test, out.stderr);
    let st = out.stats.expect("ran");
    let page = html::render(&st.report, &target, case.test);
    let path = dir.join(case.test.replace('/', "_") + ".html");
    std::fs::write(&path, page).expect("page written");
    (path, st.report.timing.as_ref().map(|t| t.cycles))
}

/// The DOM after Chromium loaded `page` and ran its script, and Chromium's log.
fn render(page: &std::path::Path) -> (String, String) {
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (tests/browser/check.sh installs it)");
    assert!(out.status.success(), "chromium failed on {}", page.display());
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
#[ignore = "needs chromium: run tests/browser/check.sh"]
fn reports_render_in_chromium() {
    let dir = std::env::temp_dir().join(format!("wavec-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for case in CASES {
        let (page, cycles) = write_page(case, &dir);
        let (dom, log) = render(&page);
        let name = case.test;
        let body = dom.find("<body").map(|at| &dom[at..at + dom[at..].find('>').unwrap_or(0)]).unwrap_or("");
        assert_eq!(body, "<body data-rendered=\"1\"", "{name}: the script did not finish\n{log}");
        assert!(dom.contains("<div id=\"errors\" hidden=\"\"></div>"), "{name}: script errors:\n{dom}");
        assert!(!log.contains("Uncaught"), "{name}: {log}");
        // The charts are drawn: the occupancy curves with the kernel's point, the pressure bars.
        for id in ["occ-registers", "occ-local", "occ-group"] {
            let at = dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("{name}: no #{id}"));
            let chart = &dom[at..at + dom[at..].find("</svg>").expect("closed")];
            assert!(chart.contains("<path") && chart.contains("class=\"kernel\""), "{name}: #{id} not drawn");
        }
        let at = dom.find("id=\"pressure\"").expect("pressure chart");
        assert!(dom[at..].contains("class=\"peak\""), "{name}: no pressure peak");
        match cycles {
            Some(c) => {
                assert!(dom.contains(&format!("<div class=\"value\">{c}</div>")), "{name}: the cycles ({c}) are not shown");
                let at = dom.find("id=\"timeline\"").expect("timeline");
                assert!(dom[at..].contains("class=\"state-issue\""), "{name}: empty timeline");
                assert!(dom.contains("id=\"core-cycles\"") && dom.contains("id=\"occ-time\""));
            }
            None => assert!(!dom.contains("id=\"timeline\""), "{name}: a timeline without the cycle model"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
