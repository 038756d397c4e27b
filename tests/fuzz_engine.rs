//! The fuzz targets' machinery: seeds, mutations, running one input under
//! `catch_unwind` with its findings written to disk. `fuzz.rs` holds the
//! targets and the tests that drive them (see its module doc).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wavec_tests::{files_with_ext, repo_root, Rng};

/// What one input did wrong.
pub type Finding = String;

/// A mutation: a new input from a base input and the pool it may splice from.
pub type Mutate = fn(&mut Rng, &[u8], &[Vec<u8>]) -> Vec<u8>;

/// One fuzz target: its name, its seeds, and the check of one input.
pub struct Target {
    pub name: &'static str,
    /// The file extension of its inputs (corpus and findings).
    pub ext: &'static str,
    pub seeds: Vec<Vec<u8>>,
    /// Mutates a seed (the generator may splice in another seed).
    pub mutate: Mutate,
    /// Runs one input; `Err` is a finding (a wrong result, a broken invariant).
    /// A panic is a finding too.
    pub check: fn(&[u8]) -> Result<(), Finding>,
}

/// Where a run of a target writes what it finds: `target/fuzz/NAME/`.
pub fn findings_dir(target: &str) -> PathBuf {
    repo_root().join("target").join("fuzz").join(target)
}

/// The corpus of a target: inputs that once broke it (each a regression test).
pub fn corpus_files(target: &Target) -> Vec<PathBuf> {
    files_with_ext(&format!("tests/fuzz/{}", target.name), target.ext)
}

/// A short, stable name for an input.
pub fn input_hash(input: &[u8]) -> String {
    // FNV-1a, 64 bits.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in input {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Runs `check` on `input`, a panic included; the finding, if any.
pub fn run_one(target: &Target, input: &[u8]) -> Option<Finding> {
    match catch_unwind(AssertUnwindSafe(|| (target.check)(input))) {
        Ok(Ok(())) => None,
        Ok(Err(f)) => Some(f),
        Err(p) => {
            let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
            Some(format!("panic: {}", msg.unwrap_or_else(|| "(no message)".into())))
        }
    }
}

/// How a campaign went.
#[derive(Default, Debug)]
pub struct Report {
    pub inputs: u64,
    pub findings: Vec<(PathBuf, Finding)>,
    /// Inputs that took longer than the slow threshold, in CPU time (saved,
    /// not failures: speed is measured, never asserted).
    pub slow: Vec<(PathBuf, Duration)>,
    pub slowest: Duration,
}

/// CPU time this thread has run, where Linux says (`/proc/thread-self/schedstat`):
/// what an input costs, whatever else the machine runs. `None` elsewhere.
fn thread_cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse::<u64>().ok().map(Duration::from_nanos)
}

/// Saves `input` as `target/fuzz/NAME/KIND-HASH.EXT`.
fn save(target: &Target, kind: &str, input: &[u8]) -> PathBuf {
    let dir = findings_dir(target.name);
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{kind}-{}.{}", input_hash(input), target.ext));
    let _ = std::fs::write(&path, input);
    path
}

/// Runs a campaign: the corpus and seeds first, then mutants of them, until
/// `iterations` inputs (or `time` has passed, when given). Each input is
/// written to `target/fuzz/NAME/current.EXT` before it runs when `keep_current`
/// (so an abort, which no test can catch, leaves it behind).
pub fn campaign(target: &Target, seed: u64, iterations: u64, time: Option<Duration>, slow: Duration, keep_current: bool) -> Report {
    let mut rng = Rng::new(seed);
    let mut report = Report::default();
    let start = Instant::now();
    let current = findings_dir(target.name).join(format!("current.{}", target.ext));
    if keep_current {
        let _ = std::fs::create_dir_all(findings_dir(target.name));
    }
    let corpus: Vec<Vec<u8>> = corpus_files(target).iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let mut pool: Vec<Vec<u8>> = target.seeds.clone();
    pool.extend(corpus.iter().cloned());
    // A long campaign runs every seed and corpus input once first.
    let mut queue: std::collections::VecDeque<Vec<u8>> = if time.is_some() { pool.iter().cloned().collect() } else { Default::default() };
    let mut last_note = Instant::now();
    loop {
        let done = match time {
            Some(t) => start.elapsed() >= t,
            None => report.inputs >= iterations,
        };
        if done || pool.is_empty() {
            break;
        }
        let input = match queue.pop_front() {
            Some(s) => s,
            None => {
                let base = &pool[rng.below(pool.len())];
                let mut m = (target.mutate)(&mut rng, base, &pool);
                // Stack mutations now and then.
                while rng.chance(25) {
                    m = (target.mutate)(&mut rng, &m, &pool);
                }
                m
            }
        };
        if keep_current {
            let _ = std::fs::write(&current, &input);
        }
        // An input's cost is its CPU time where it can be read (a long run shares
        // the machine, niced), else its wall-clock time.
        let (t0, c0) = (Instant::now(), thread_cpu_time());
        let finding = run_one(target, &input);
        let took = match (c0, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => t0.elapsed(),
        };
        report.inputs += 1;
        report.slowest = report.slowest.max(took);
        if let Some(f) = finding {
            let path = save(target, "crash", &input);
            eprintln!("fuzz {}: finding in {}: {f}", target.name, path.display());
            report.findings.push((path, f));
        } else if took > slow {
            let path = save(target, "slow", &input);
            eprintln!("fuzz {}: slow input ({:.1} s) in {}", target.name, took.as_secs_f64(), path.display());
            report.slow.push((path, took));
        }
        if time.is_some() && last_note.elapsed() > Duration::from_secs(300) {
            last_note = Instant::now();
            eprintln!(
                "fuzz {}: {} inputs in {:.0} s, {} findings, {} slow, slowest {:.2} s",
                target.name,
                report.inputs,
                start.elapsed().as_secs_f64(),
                report.findings.len(),
                report.slow.len(),
                report.slowest.as_secs_f64()
            );
        }
    }
    if keep_current {
        let _ = std::fs::remove_file(&current);
    }
    report
}

// ---- mutations ---------------------------------------------------------------

/// Byte-level edits: flip, insert, delete, duplicate, or splice from another input.
pub fn mutate_bytes(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    let mut v = base.to_vec();
    let at = |rng: &mut Rng, v: &Vec<u8>| rng.below(v.len() + 1);
    match rng.below(6) {
        0 if !v.is_empty() => {
            let i = rng.below(v.len());
            v[i] ^= 1 << rng.below(8);
        }
        1 => {
            let i = at(rng, &v);
            let b = rng.pick(&[b'{', b'}', b'(', b')', b'[', b']', b'#', b'\n', b';', b',', b'"', b'\\', 0, 0xff, b'0', b'-', b':']);
            v.insert(i, b);
        }
        2 if !v.is_empty() => {
            let i = rng.below(v.len());
            let n = rng.below((v.len() - i).min(64)) + 1;
            v.drain(i..i + n);
        }
        3 if !v.is_empty() => {
            let i = rng.below(v.len());
            let n = rng.below((v.len() - i).min(256)) + 1;
            let chunk: Vec<u8> = v[i..i + n].to_vec();
            let many = rng.chance(10);
            let times = 1 + rng.below(if many { 200 } else { 4 });
            let j = at(rng, &v);
            for _ in 0..times {
                v.splice(j..j, chunk.iter().copied());
            }
        }
        4 if !pool.is_empty() => {
            let other = &pool[rng.below(pool.len())];
            if !other.is_empty() {
                let i = rng.below(other.len());
                let n = rng.below((other.len() - i).min(512)) + 1;
                let j = at(rng, &v);
                v.splice(j..j, other[i..i + n].iter().copied());
            }
        }
        _ => {
            if !v.is_empty() {
                let i = rng.below(v.len());
                let j = rng.below(v.len());
                v.swap(i, j);
            }
        }
    }
    v
}

/// Splits text into tokens: identifier/number runs, single punctuation, whitespace runs.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let class = |c: u8| {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                0
            } else if c.is_ascii_whitespace() {
                1
            } else {
                2
            }
        };
        let k = class(c);
        let mut j = i + 1;
        if k != 2 {
            while j < b.len() && class(b[j]) == k {
                j += 1;
            }
        }
        while j < b.len() && !text.is_char_boundary(j) {
            j += 1;
        }
        out.push(&text[i..j]);
        i = j;
    }
    out
}

/// Token-level edits from `dict`: replace, insert, delete, duplicate a run of
/// tokens, or repeat a line many times (long chains and lists).
pub fn mutate_tokens(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>], dict: &[&str]) -> Vec<u8> {
    let text = String::from_utf8_lossy(base).into_owned();
    let toks = tokens(&text);
    if toks.is_empty() || rng.chance(15) {
        return mutate_bytes(rng, base, pool);
    }
    let mut out: Vec<String> = toks.iter().map(|t| t.to_string()).collect();
    let i = rng.below(out.len());
    match rng.below(6) {
        0 => out[i] = rng.pick(dict).to_string(),
        1 => out.insert(i, format!(" {} ", rng.pick(dict))),
        2 => {
            let n = (rng.below(8) + 1).min(out.len() - i);
            out.drain(i..i + n);
        }
        3 => {
            let n = (rng.below(12) + 1).min(out.len() - i);
            let run: Vec<String> = out[i..i + n].to_vec();
            for _ in 0..1 + rng.below(3) {
                out.splice(i..i, run.iter().cloned());
            }
        }
        4 => {
            // A line repeated: a long `else if` chain, many cases, many statements.
            let joined = out.concat();
            let lines: Vec<&str> = joined.lines().collect();
            let k = rng.below(lines.len().max(1));
            let long = rng.chance(20);
            let times = if long { 1000 + rng.below(3000) } else { 2 + rng.below(60) };
            let mut s = String::new();
            for (n, l) in lines.iter().enumerate() {
                s.push_str(l);
                s.push('\n');
                if n == k {
                    for _ in 0..times {
                        s.push_str(l);
                        s.push('\n');
                    }
                }
            }
            return s.into_bytes();
        }
        _ => {
            let j = rng.below(out.len());
            out.swap(i, j);
        }
    }
    out.concat().into_bytes()
}

/// The text of every `.test` file's section `name` (`source.hlsl`, `pipeline.yaml`).
pub fn test_sections(ext_dirs: &[&str]) -> Vec<wavec::run::PipelineTest> {
    let mut out = Vec::new();
    for d in ext_dirs {
        for p in files_with_ext(d, "test") {
            if let Ok(t) = wavec::run::load_test_file(&p) {
                out.push(t);
            }
        }
    }
    out
}

/// Reads every file with extension `ext` under `dir` (relative to the repository).
pub fn read_all(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    files_with_ext(dir, ext).iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// `path` relative to the repository, for messages.
pub fn shown(path: &Path) -> String {
    path.strip_prefix(repo_root()).unwrap_or(path).display().to_string()
}
