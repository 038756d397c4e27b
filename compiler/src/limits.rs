//! Resource limits: how much one compilation or one `wavec run` may read,
//! expand, simulate and allocate. Every limit is enforced while the work is
//! done (never only after it), reported with a diagnostic or fault that names
//! it, documented in the README's table and `docs/limits.md`, and can be
//! changed on the command line with `--limit NAME=VALUE` (`wavec run
//! --max-instructions N` is the same as `--limit instructions=N`).
//!
//! The defaults are far above what real shaders and tests need, and low
//! enough that no input can take minutes or gigabytes before it is refused.

// The workspace's MSRV (1.80) predates `u64::is_multiple_of`.
#![allow(clippy::manual_is_multiple_of)]

/// The limits of one compilation and run (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `file-size`: bytes of any one input file (source, include, `.test`, YAML);
    /// only regular files are read.
    pub file_bytes: u64,
    /// `includes`: `#include` directives that enter a file, in all.
    pub includes: u64,
    /// `include-depth`: files open at once (nested `#include`s).
    pub include_depth: u64,
    /// `pp-output`: bytes of preprocessed text.
    pub pp_output_bytes: u64,
    /// `pp-tokens`: tokens macro expansions may make, in all.
    pub pp_tokens: u64,
    /// `pp-text`: bytes of new token text expansions may make (`##` pastes, `#` strings).
    pub pp_text_bytes: u64,
    /// `macro-depth`: macro invocations nested in macro arguments, and macros
    /// nested in one expansion (a token made by expanding A, in which B
    /// expanded, in which C expanded, ... is that many deep).
    pub macro_depth: u64,
    /// `instructions`: wave-instructions all workgroups of a run may issue.
    pub run_instructions: u64,
    /// `group-instructions`: wave-instructions one workgroup may issue (a runaway loop).
    pub group_instructions: u64,
    /// `run-seconds`: wall-clock seconds one simulation may take.
    pub run_seconds: u64,
    /// `memory`: bytes a run may need for its device memory and the copies
    /// of its buffers the runner makes, checked before it starts.
    pub run_memory_bytes: u64,
    /// `trace-memory`: bytes of instruction traces the cycle model may hold
    /// for the workgroups in flight; past it the run goes on without the model.
    pub trace_bytes: u64,
    /// `yaml-depth`: nesting of the pipeline YAML (lists and maps in one another).
    pub yaml_depth: u64,
}

const MIB: u64 = 1 << 20;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            file_bytes: 64 * MIB,
            includes: 10_000,
            include_depth: 200,
            pp_output_bytes: 64 * MIB,
            pp_tokens: 2_000_000,
            pp_text_bytes: 64 * MIB,
            macro_depth: 200,
            run_instructions: 1_000_000_000,
            group_instructions: 50_000_000,
            run_seconds: 300,
            run_memory_bytes: 2048 * MIB,
            trace_bytes: 256 * MIB,
            yaml_depth: 64,
        }
    }
}

/// A limit's command-line name, what it counts, and its place in [`Limits`].
pub struct LimitInfo {
    pub name: &'static str,
    /// A value with a unit suffix (`KiB`, `MiB`, `GiB`) counts bytes.
    pub bytes: bool,
    pub what: &'static str,
    get: fn(&Limits) -> u64,
    set: fn(&mut Limits, u64),
}

impl LimitInfo {
    pub fn get(&self, l: &Limits) -> u64 {
        (self.get)(l)
    }
}

macro_rules! limit {
    ($name:literal, $field:ident, $bytes:literal, $what:literal) => {
        LimitInfo { name: $name, bytes: $bytes, what: $what, get: |l| l.$field, set: |l, v| l.$field = v }
    };
}

/// Every limit, in the order the documentation lists them.
pub const LIMITS: &[LimitInfo] = &[
    limit!("file-size", file_bytes, true, "bytes of one input file (only regular files are read)"),
    limit!("includes", includes, false, "#include directives that enter a file, in all"),
    limit!("include-depth", include_depth, false, "files open at once (nested #include)"),
    limit!("pp-output", pp_output_bytes, true, "bytes of preprocessed text"),
    limit!("pp-tokens", pp_tokens, false, "tokens macro expansions make, in all"),
    limit!("pp-text", pp_text_bytes, true, "bytes of token text ## and # make, in all"),
    limit!("macro-depth", macro_depth, false, "macros nested in macro arguments or in one expansion"),
    limit!("instructions", run_instructions, false, "wave-instructions of a whole run (wavec run --max-instructions)"),
    limit!("group-instructions", group_instructions, false, "wave-instructions of one workgroup (a runaway loop)"),
    limit!("run-seconds", run_seconds, false, "wall-clock seconds of one simulation"),
    limit!("memory", run_memory_bytes, true, "bytes a run may allocate for its buffers and device memory"),
    limit!("trace-memory", trace_bytes, true, "bytes of traces the cycle model holds (past it: no timing)"),
    limit!("yaml-depth", yaml_depth, false, "nesting of lists and maps in the pipeline YAML"),
];

impl Limits {
    /// Applies `NAME=VALUE` (`--limit`). A byte limit takes a `KiB`, `MiB` or
    /// `GiB` suffix; 0 is refused (it would refuse every input).
    pub fn set(&mut self, arg: &str) -> Result<(), String> {
        let names = || LIMITS.iter().map(|l| l.name).collect::<Vec<_>>().join(", ");
        let Some((name, value)) = arg.split_once('=') else {
            return Err(format!("--limit takes NAME=VALUE, not `{arg}`; the limits are: {}", names()));
        };
        let Some(info) = LIMITS.iter().find(|l| l.name == name.trim()) else {
            return Err(format!("--limit: no limit named `{name}`; the limits are: {}", names()));
        };
        let v = value.trim();
        let (digits, scale) = match v.find(|c: char| !c.is_ascii_digit()) {
            None => (v, 1),
            Some(i) if info.bytes => match &v[i..] {
                "KiB" | "K" => (&v[..i], 1 << 10),
                "MiB" | "M" => (&v[..i], MIB),
                "GiB" | "G" => (&v[..i], 1 << 30),
                _ => return Err(format!("--limit {name}: `{v}` is not a number of bytes (such as 128MiB)")),
            },
            Some(_) => return Err(format!("--limit {name}: `{v}` is not a whole number")),
        };
        let n = digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)).filter(|&n| n > 0);
        let Some(n) = n else {
            return Err(format!("--limit {name}: `{v}` is not a positive whole number that fits 64 bits"));
        };
        (info.set)(self, n);
        Ok(())
    }

    /// `NAME=VALUE` of the limit named `name`, to name it in a message.
    pub fn describe(&self, name: &str) -> String {
        match LIMITS.iter().find(|l| l.name == name) {
            Some(l) => format!("{name}={}", show(l.get(self), l.bytes)),
            None => name.to_string(),
        }
    }
}

/// `n` as `--limit` reads it back: whole MiB or KiB where exact.
pub fn show(n: u64, bytes: bool) -> String {
    if bytes && n >= MIB && n % MIB == 0 {
        format!("{}MiB", n / MIB)
    } else if bytes && n >= 1024 && n % 1024 == 0 {
        format!("{}KiB", n / 1024)
    } else {
        n.to_string()
    }
}

/// `n` bytes for a reader: `1.5 GiB`, `64 MiB`, `512 bytes`.
pub fn show_bytes(n: u64) -> String {
    let f = n as f64;
    if n >= 1 << 30 {
        format!("{:.1} GiB", f / (1u64 << 30) as f64)
    } else if n >= MIB {
        format!("{:.1} MiB", f / MIB as f64)
    } else if n >= 1024 {
        format!("{:.1} KiB", f / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_and_name_themselves() {
        let mut l = Limits::default();
        l.set("pp-output=128MiB").unwrap();
        assert_eq!(l.pp_output_bytes, 128 << 20);
        l.set("includes=7").unwrap();
        assert_eq!(l.includes, 7);
        l.set("file-size=3K").unwrap();
        assert_eq!(l.file_bytes, 3072);
        assert_eq!(l.describe("file-size"), "file-size=3KiB");
        assert_eq!(l.describe("pp-output"), "pp-output=128MiB");
        for bad in ["nolimit=3", "includes", "includes=0", "includes=3MiB", "memory=12XB", "memory=99999999999999999999"] {
            let e = l.set(bad).unwrap_err();
            assert!(e.contains("--limit"), "{bad}: {e}");
        }
        // Every limit has a distinct name and can be set.
        for info in LIMITS {
            let mut l = Limits::default();
            l.set(&format!("{}=5", info.name)).unwrap();
            assert_eq!(info.get(&l), 5, "{}", info.name);
            assert_eq!(LIMITS.iter().filter(|o| o.name == info.name).count(), 1);
        }
    }
}
