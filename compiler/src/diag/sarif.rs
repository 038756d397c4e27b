//! Diagnostics as a SARIF 2.1.0 log for code-scanning tools
//! (`--diagnostics-format sarif`): one run of the `wavec` tool whose results
//! are the diagnostics, each with its code as rule id, its level, its
//! message (notes follow it, one per line) and its primary span as location;
//! the other labelled spans are related locations. Rules list every code
//! that occurs, warnings with their `-W` name. Regions use 1-based lines and
//! columns counted in Unicode code points (`columnKind`), an exclusive end
//! column, and byte offsets; file names are relative URI references (or
//! `file://` URIs for absolute paths), percent-encoded.
//! `tests/sarif/` holds the OASIS schema that a test validates the log against.

use serde_json::{json, Value};

use super::locate::{locate, Location};
use super::{Diagnostic, Severity, Sources};

/// A SARIF log being filled (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct SarifLog {
    rules: Vec<&'static str>,
    results: Vec<Value>,
}

impl SarifLog {
    pub fn new() -> SarifLog {
        SarifLog::default()
    }

    /// Adds `diags`, whose spans lie in `sources`.
    pub fn add(&mut self, sources: &Sources, diags: &[Diagnostic]) {
        for d in diags {
            let rule = match self.rules.iter().position(|r| *r == d.code) {
                Some(i) => i,
                None => {
                    self.rules.push(d.code);
                    self.rules.len() - 1
                }
            };
            let mut text = d.message.clone();
            let mut notes = d.notes.clone();
            if let Some((span, _)) = d.labels.first() {
                notes.extend(sources.include_notes(span.start));
            }
            for n in &notes {
                text.push_str("\nnote: ");
                text.push_str(n);
            }
            let mut places = d.labels.iter().filter_map(|(span, label)| Some((locate(sources, *span)?, label)));
            let locations: Vec<Value> = places.next().map(|(l, label)| location(&l, label, None)).into_iter().collect();
            let related: Vec<Value> = places.enumerate().map(|(i, (l, label))| location(&l, label, Some(i + 1))).collect();
            let mut r = json!({
                "ruleId": d.code,
                "ruleIndex": rule,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": locations,
            });
            if !related.is_empty() {
                r["relatedLocations"] = Value::Array(related);
            }
            self.results.push(r);
        }
    }

    /// The log as a JSON document; `successful`: the compilation succeeded.
    pub fn finish(&self, successful: bool) -> String {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|code| match super::warnings::by_code(code) {
                Some(w) => json!({ "id": code, "name": w.name, "shortDescription": { "text": w.what } }),
                None => json!({ "id": code }),
            })
            .collect();
        let log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": { "driver": {
                    "name": "wavec",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }},
                "invocations": [{ "executionSuccessful": successful }],
                "columnKind": "unicodeCodePoints",
                "results": self.results,
            }],
        });
        serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn location(l: &Location, label: &str, id: Option<usize>) -> Value {
    let mut v = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(&l.file) },
            "region": {
                "startLine": l.line,
                "startColumn": l.column,
                "endLine": l.end_line,
                "endColumn": l.end_column,
                "byteOffset": l.byte_start,
                "byteLength": l.byte_end.saturating_sub(l.byte_start),
            },
        },
    });
    if !label.is_empty() {
        v["message"] = json!({ "text": label });
    }
    if let Some(id) = id {
        v["id"] = json!(id);
    }
    v
}

/// A file name as a URI reference: absolute paths as `file://` URIs, others
/// relative; bytes outside RFC 3986's unreserved set and `/` percent-encoded.
pub fn uri(path: &str) -> String {
    let mut out = String::new();
    let rest = match path.strip_prefix('/') {
        Some(r) => {
            out.push_str("file:///");
            r
        }
        None => path,
    };
    for b in rest.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{SourceFile, Span};

    #[test]
    fn uris_are_encoded() {
        assert_eq!(uri("dir/my kernel.hlsl"), "dir/my%20kernel.hlsl");
        assert_eq!(uri("/abs/é.h"), "file:///abs/%C3%A9.h");
        assert_eq!(uri("<stdlib>/x.hlsl"), "%3Cstdlib%3E/x.hlsl");
    }

    #[test]
    fn results_rules_and_locations() {
        let s = Sources::from(SourceFile::new("k.hlsl", "int x = 1.5;\nint y;\n"));
        let mut log = SarifLog::new();
        log.add(&s, &[Diagnostic::warning("W0201", "truncates").with_label(Span::new(8, 11), "here").with_label(Span::new(13, 16), "")]);
        log.add(&s, &[Diagnostic::error("E0501", "unknown target").with_note("known: gcn")]);
        let v: Value = serde_json::from_str(&log.finish(false)).expect("valid JSON");
        assert_eq!(v["version"], "2.1.0");
        let run = &v["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"][0],
            json!({"id": "W0201", "name": "float-conversion", "shortDescription": {"text": "implicit conversion from float to an integer truncates"}})
        );
        assert_eq!(run["invocations"][0]["executionSuccessful"], false);
        let r = &run["results"][0];
        assert_eq!((r["ruleId"].as_str(), r["ruleIndex"].as_u64(), r["level"].as_str()), (Some("W0201"), Some(0), Some("warning")));
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region, &json!({"startLine": 1, "startColumn": 9, "endLine": 1, "endColumn": 12, "byteOffset": 8, "byteLength": 3}));
        assert_eq!(r["relatedLocations"][0]["id"], 1);
        assert!(r["relatedLocations"][0].get("message").is_none());
        let e = &run["results"][1];
        assert_eq!((e["ruleIndex"].as_u64(), e["level"].as_str()), (Some(1), Some("error")));
        assert_eq!(e["message"]["text"], "unknown target\nnote: known: gcn");
        assert_eq!(e["locations"], json!([]));
    }
}
