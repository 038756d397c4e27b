//! `wavec run --report out.html`: one self-contained page (no network access
//! needed) showing a run's report. The figures and tables are written here; the
//! charts (the target's occupancy curves, the register-pressure profile along
//! the listing, occupancy over time and the timeline of compute unit 0's waves)
//! are drawn as SVG by the page's own script (`report.js`) from the report's JSON,
//! which is embedded in the page.

use std::fmt::Write;

use super::report::RunReport;
use crate::target::{occupancy, Target};

const SCRIPT: &str = include_str!("report.js");
const STYLE: &str = include_str!("report.css");

/// The target's occupancy as one resource varies and the others stay the kernel's.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OccupancyCurves {
    /// (registers per thread, waves per core)
    pub registers: Vec<(u32, u32)>,
    /// (local memory bytes per workgroup, waves per core)
    pub local_memory: Vec<(u32, u32)>,
    /// (threads per workgroup, waves per core)
    pub group_size: Vec<(u32, u32)>,
    pub max_waves_per_core: u32,
    /// The kernel's point on each curve.
    pub kernel_registers: u32,
    /// The registers the run admitted workgroups as if the kernel used (a what-if), if more.
    pub what_if_registers: Option<u32>,
    pub kernel_local_memory: u32,
    pub kernel_group_size: u32,
    pub limiter: String,
}

impl OccupancyCurves {
    pub fn new(t: &Target, registers: u32, threads: u32, local: u32) -> OccupancyCurves {
        let waves = |r: u32, n: u32, l: u32| occupancy(t, r, n, l).waves_per_core;
        let step = (t.local_memory_per_workgroup / 128).max(1);
        OccupancyCurves {
            registers: (1..=t.max_registers).map(|r| (r, waves(r, threads, local))).collect(),
            local_memory: (0..=128)
                .map(|i| i * step)
                .filter(|&l| l <= t.local_memory_per_workgroup)
                .map(|l| (l, waves(registers, threads, l)))
                .collect(),
            group_size: (1..=t.max_workgroup_size / t.wave_width)
                .map(|k| k * t.wave_width)
                .map(|n| (n, waves(registers, n, local)))
                .collect(),
            max_waves_per_core: t.max_waves_per_core,
            kernel_registers: registers,
            what_if_registers: None,
            kernel_local_memory: local,
            kernel_group_size: threads,
            limiter: occupancy(t, registers, threads, local).limiter.to_string(),
        }
    }
}

pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

/// The page for `report`, run on `target`; `title` names the test.
pub fn render(report: &RunReport, target: &Target, title: &str) -> String {
    render_with_advice(report, target, title, None)
}

/// [`render`], with the occupancy advisor's curve (`--target-occupancy auto`) when given.
pub fn render_with_advice(report: &RunReport, target: &Target, title: &str, advice: Option<&super::advisor::Advice>) -> String {
    let threads: u32 = report.workgroup_size.iter().product();
    let mut curves = OccupancyCurves::new(target, report.registers, threads, report.local_memory);
    curves.what_if_registers = report.timing.as_ref().map(|t| t.admitted_registers).filter(|&r| r > report.occupancy.allocated_registers);
    #[derive(serde::Serialize)]
    struct Data<'a> {
        report: &'a RunReport,
        curves: &'a OccupancyCurves,
    }
    // `</` cannot appear inside a script element; `<\/` is the same JSON string.
    let json = serde_json::to_string(&Data { report, curves: &curves }).unwrap_or_else(|_| "{}".into()).replace("</", "<\\/");
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>wavec report: {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        esc(title)
    );
    h.push_str("<div id=\"errors\" hidden></div>\n");
    let _ = writeln!(
        h,
        "<h1>{} <small>kernel <code>{}</code> on <b>{}</b> ({}), dispatch {}&times;{}&times;{} of {}&times;{}&times;{}</small></h1>",
        esc(title),
        esc(&report.kernel),
        esc(&report.target),
        esc(&report.isa),
        report.dispatch[0],
        report.dispatch[1],
        report.dispatch[2],
        report.workgroup_size[0],
        report.workgroup_size[1],
        report.workgroup_size[2]
    );
    figures(&mut h, report);
    if let Some(a) = advice {
        h.push_str(&super::html_advice::section(a));
    }
    h.push_str("<h2>Occupancy on the target</h2>\n<p class=\"note\">Waves per core as one resource varies, the others fixed at the kernel's; the dot is the kernel.</p>\n<div class=\"row\"><svg id=\"occ-registers\" class=\"chart\"></svg><svg id=\"occ-local\" class=\"chart\"></svg><svg id=\"occ-group\" class=\"chart\"></svg></div>\n");
    if report.timing.is_some() {
        h.push_str("<h2>Where the time went</h2>\n<div class=\"row\"><svg id=\"core-cycles\" class=\"bar\"></svg></div>\n");
        h.push_str("<h2>Achieved occupancy over time</h2>\n<svg id=\"occ-time\" class=\"wide\"></svg>\n");
        h.push_str("<h2>Timeline of compute unit 0</h2>\n<p class=\"note\">One row per wave slot (core.slot); colour: what the wave was doing.</p>\n<div id=\"legend\"></div>\n<svg id=\"timeline\" class=\"wide\"></svg>\n");
    }
    h.push_str("<h2>Register pressure along the listing</h2>\n<p class=\"note\">Live registers after each instruction (the listing's annotation); the peak is marked.</p>\n<svg id=\"pressure\" class=\"wide\"></svg>\n");
    lines_table(&mut h, report);
    listing_table(&mut h, report);
    let _ = write!(h, "<script id=\"data\" type=\"application/json\">{json}</script>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    h
}

fn figures(h: &mut String, r: &RunReport) {
    let o = &r.occupancy;
    let mut cards: Vec<(String, String, &str)> = vec![
        (
            format!("{} / {}", o.waves_per_core, o.max_waves_per_core),
            format!("waves per core ({}%), limited by {}", o.percent, o.limiter),
            "occupancy",
        ),
        (format!("{} ({} allocated)", r.registers, o.allocated_registers), "registers per thread".into(), "registers"),
    ];
    if let Some(t) = &r.timing {
        cards.insert(0, (t.cycles.to_string(), format!("cycles on {} compute units", t.compute_units), "cycles"));
        let what_if = if t.admitted_registers > o.allocated_registers {
            format!(", as if {} registers", t.admitted_registers)
        } else {
            String::new()
        };
        cards.push((
            format!("{} / {}", t.waves_per_core, o.max_waves_per_core),
            format!(
                "waves per core admitted ({} group{} per CU{what_if}), limited by {}",
                t.groups_per_cu,
                if t.groups_per_cu == 1 { "" } else { "s" },
                t.limiter
            ),
            "admitted",
        ));
        cards.push((format!("{:.2}", t.achieved_waves_per_core), "achieved waves per core (average)".into(), "achieved"));
        let m = &t.memory;
        if let Some(hr) = m.l2_hit_rate {
            cards.push((format!("{:.1}%", hr * 100.0), "L2 hit rate".into(), "l2"));
        }
        if m.dram_read_bytes + m.dram_write_bytes > 0 {
            cards.push((format!("{:.1}%", m.dram_utilization * 100.0), "of the cycles DRAM was busy".into(), "dram"));
        }
        let moved = m.load_transactions + m.store_transactions;
        if moved > 0 {
            cards.push((pct(m.ideal_transactions, moved), format!("coalescing ({moved} transactions)"), "coalescing"));
        }
        if m.local_instructions > 0 {
            cards.push((m.bank_conflict_passes.to_string(), format!("bank-conflict passes of {}", m.local_passes), "banks"));
        }
    }
    h.push_str("<div class=\"cards\">\n");
    for (value, label, id) in cards {
        let _ = writeln!(
            h,
            "<div class=\"card\" id=\"fig-{id}\"><div class=\"value\">{}</div><div class=\"label\">{}</div></div>",
            esc(&value),
            esc(&label)
        );
    }
    h.push_str("</div>\n");
}

fn lines_table(h: &mut String, r: &RunReport) {
    let Some(t) = &r.timing else { return };
    h.push_str("<h2>HLSL lines</h2>\n<table id=\"lines\"><tr><th>line</th><th>source</th><th>issued</th><th>issue cycles</th><th>memory</th><th>dependency</th><th>barrier</th><th>issue wait</th></tr>\n");
    for l in &t.lines {
        let s = &l.stalls;
        let _ = writeln!(
            h,
            "<tr><td>{}:{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&l.file),
            l.line,
            esc(&l.text),
            l.issued,
            l.issue_cycles,
            s.memory,
            s.dependency,
            s.barrier,
            s.issue
        );
    }
    h.push_str("</table>\n");
}

fn listing_table(h: &mut String, r: &RunReport) {
    let peak = r.listing.iter().filter_map(|l| l.live).max();
    h.push_str("<h2>Listing</h2>\n<table id=\"listing\"><tr><th>#</th><th>instruction</th><th>source</th><th>live</th><th>issued</th><th>stall cycles</th></tr>\n");
    for (i, l) in r.listing.iter().enumerate() {
        let live = l.live.map(|n| n.to_string()).unwrap_or_default();
        let class = if l.live.is_some() && l.live == peak { " class=\"peak\"" } else { "" };
        let _ = writeln!(
            h,
            "<tr{class}><td>{i}</td><td><code>{}</code></td><td>{}</td><td>{live}</td><td>{}</td><td>{}</td></tr>",
            esc(&l.text),
            esc(&l.source),
            l.issued,
            l.stall_cycles
        );
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::preset;

    #[test]
    fn curves_follow_the_calculator() {
        let gcn = preset("gcn").unwrap();
        let c = OccupancyCurves::new(&gcn, 40, 1024, 0);
        assert_eq!(c.registers[39], (40, 4));
        assert_eq!(c.registers[31], (32, 8));
        assert_eq!(c.limiter, "registers");
        assert_eq!(c.group_size.last(), Some(&(1024, 4)));
        assert_eq!(c.local_memory.first(), Some(&(0, 4)));
        assert!(c.local_memory.iter().all(|&(l, _)| l <= gcn.local_memory_per_workgroup));
    }

    #[test]
    fn escaping() {
        assert_eq!(esc("a < b && c > \"d\""), "a &lt; b &amp;&amp; c &gt; &quot;d&quot;");
    }
}
