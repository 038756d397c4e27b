//! Diagnostics as JSON for editors and CI (`--diagnostics-format json`):
//! one object per diagnostic, one per line, in the order reported.
//!
//! ```json
//! {"code":"W0201","severity":"warning","message":"...","name":"float-conversion",
//!  "spans":[{"file":"k.hlsl","line":3,"column":9,"end_line":3,"end_column":14,
//!            "byte_start":60,"byte_end":65,"primary":true,"label":"..."}],
//!  "notes":["..."]}
//! ```
//!
//! `name` is the warning's name for `-W`/`-Wno-` (absent for errors). The
//! first span is the primary one; a span whose place `#line` renames also has
//! `presumed_file` and `presumed_line`. `notes` ends with the "included from"
//! chain of the primary span's file, as the human rendering does.

use serde_json::{json, Map, Value};

use super::locate::{locate, Location};
use super::{severity_word, Diagnostic, Sources};

/// The JSON object of one diagnostic.
pub fn to_value(sources: &Sources, d: &Diagnostic) -> Value {
    let mut spans = Vec::new();
    for (i, (span, label)) in d.labels.iter().enumerate() {
        let Some(l) = locate(sources, *span) else { continue };
        let mut o = location_object(&l);
        o.insert("primary".into(), Value::Bool(i == 0));
        o.insert("label".into(), Value::String(label.clone()));
        spans.push(Value::Object(o));
    }
    let mut notes = d.notes.clone();
    if let Some((span, _)) = d.labels.first() {
        notes.extend(sources.include_notes(span.start));
    }
    let mut v = json!({
        "code": d.code,
        "severity": severity_word(d.severity),
        "message": d.message,
        "spans": spans,
        "notes": notes,
    });
    if let Some(w) = super::warnings::by_code(d.code) {
        v["name"] = Value::String(w.name.to_string());
    }
    v
}

fn location_object(l: &Location) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("file".into(), l.file.clone().into());
    o.insert("line".into(), l.line.into());
    o.insert("column".into(), l.column.into());
    o.insert("end_line".into(), l.end_line.into());
    o.insert("end_column".into(), l.end_column.into());
    o.insert("byte_start".into(), l.byte_start.into());
    o.insert("byte_end".into(), l.byte_end.into());
    if let Some((file, line)) = &l.presumed {
        o.insert("presumed_file".into(), file.clone().into());
        o.insert("presumed_line".into(), (*line).into());
    }
    o
}

/// The diagnostics as JSON lines (each ends with `\n`).
pub fn render_lines(sources: &Sources, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&to_value(sources, d).to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{SourceFile, Span};

    #[test]
    fn one_object_per_line_with_spans_and_notes() {
        let mut s = Sources::from(SourceFile::new("main.hlsl", "#include \"b.h\"\nint x;\n"));
        s.add(SourceFile::new("b.h", "int y = 1.5;\n"), Some(Span::new(0, 14)));
        let base = s.get(crate::diag::FileId(1)).base as usize;
        let d = Diagnostic::warning("W0201", "truncates")
            .with_label(Span::new(base + 8, base + 11), "here")
            .with_label(Span::new(15, 18), "and there")
            .with_note("a note");
        let text = render_lines(&s, &[d.clone(), Diagnostic::error("E0501", "no span")]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let v: Value = serde_json::from_str(lines[0]).expect("valid JSON");
        assert_eq!(v["code"], "W0201");
        assert_eq!(v["severity"], "warning");
        assert_eq!(v["name"], "float-conversion");
        assert_eq!(v["spans"][0]["file"], "b.h");
        assert_eq!((v["spans"][0]["line"].as_u64(), v["spans"][0]["column"].as_u64()), (Some(1), Some(9)));
        assert_eq!((v["spans"][0]["byte_start"].as_u64(), v["spans"][0]["byte_end"].as_u64()), (Some(8), Some(11)));
        assert_eq!(v["spans"][0]["primary"], true);
        assert_eq!(v["spans"][1]["primary"], false);
        assert_eq!(v["spans"][1]["file"], "main.hlsl");
        assert_eq!(v["notes"], json!(["a note", "included from main.hlsl:1"]));
        let e: Value = serde_json::from_str(lines[1]).expect("valid JSON");
        assert_eq!((e["severity"].as_str(), e["spans"].as_array().map(Vec::len)), (Some("error"), Some(0)));
        assert!(e.get("name").is_none());
    }
}
