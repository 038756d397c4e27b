//! The HTML report's occupancy-advisor section: cycles against the target
//! occupancy, one point per timed candidate, labelled with its register
//! budget, the winner marked. A static inline SVG (no script needed).

use std::fmt::Write;

use super::advisor::{Advice, Verdict};

const W: f64 = 640.0;
const H: f64 = 240.0;
const LEFT: f64 = 70.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 20.0;

/// The section: a heading, a note and the chart.
pub fn section(a: &Advice) -> String {
    let points: Vec<(String, String, u64, bool)> = a
        .points
        .iter()
        .enumerate()
        .filter_map(|(k, p)| {
            let cycles = a.cycles_of(k)?;
            let label = p.candidate.target.map_or("none".to_string(), |t| t.to_string());
            let budget = p.candidate.budget.map_or(format!("{} r", p.registers), |b| format!("≤{b} r"));
            Some((label, budget, cycles, a.winner == Some(k)))
        })
        .collect();
    let mut h = String::from("<h2>Occupancy advisor</h2>\n");
    let skipped = a.points.iter().filter(|p| matches!(p.verdict, Verdict::Skipped { .. })).count();
    let failed = a.points.iter().filter(|p| matches!(p.verdict, Verdict::Failed { .. })).count();
    let _ = writeln!(
        h,
        "<p class=\"note\">Cycles at each target occupancy (--target-occupancy auto; below each point its register budget); the filled point is the winner. {} candidates, {skipped} skipped by the issue bound, {failed} failed their checks.{}</p>",
        a.points.len(),
        a.winner_line().map(|l| format!(" Winner: {}", super::html::esc(&l))).unwrap_or_default()
    );
    h.push_str(&chart(&points));
    h
}

/// The SVG: x the candidates in table order, y cycles from 0.
fn chart(points: &[(String, String, u64, bool)]) -> String {
    let mut s = format!("<svg class=\"wide\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"cycles against target occupancy\">\n");
    let most = points.iter().map(|p| p.2).max().unwrap_or(1).max(1) as f64;
    let plot_w = W - LEFT - 20.0;
    let plot_h = H - TOP - BOTTOM;
    let x = |i: usize| LEFT + plot_w * (i as f64 + 0.5) / points.len().max(1) as f64;
    let y = |c: u64| TOP + plot_h * (1.0 - c as f64 / most);
    let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>", TOP + plot_h, W - 20.0, TOP + plot_h);
    let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{}\" stroke=\"#888\"/>", TOP + plot_h);
    let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\">{}</text>", LEFT - 4.0, TOP + 4.0, most as u64);
    let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\">0</text>", LEFT - 4.0, TOP + plot_h);
    let _ = writeln!(
        s,
        "<text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\">cycles</text>",
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0
    );
    let path: Vec<String> = points.iter().enumerate().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.2))).collect();
    let _ = writeln!(s, "<polyline fill=\"none\" stroke=\"#4a7ab5\" stroke-width=\"1.5\" points=\"{}\"/>", path.join(" "));
    for (i, (label, budget, cycles, winner)) in points.iter().enumerate() {
        let fill = if *winner { "#d9534f" } else { "white" };
        let _ = writeln!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{fill}\" stroke=\"#4a7ab5\"><title>target {label}: {cycles} cycles</title></circle>",
            x(i),
            y(*cycles),
            if *winner { 6 } else { 4 }
        );
        let _ = writeln!(s, "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{label}</text>", x(i), TOP + plot_h + 14.0);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#666\">{budget}</text>",
            x(i),
            TOP + plot_h + 28.0
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winner_is_filled_and_every_point_labelled() {
        let pts = vec![("none".to_string(), "20 r".to_string(), 100, false), ("8".to_string(), "≤24 r".to_string(), 80, true)];
        let svg = chart(&pts);
        assert_eq!(svg.matches("<circle").count(), 2);
        assert_eq!(svg.matches("#d9534f").count(), 1);
        assert!(svg.contains(">none</text>") && svg.contains(">≤24 r</text>"), "{svg}");
    }
}
