//! Compile time (reported, never asserted):
//!
//! - a small kernel (`examples/saxpy.hlsl`, and a one-line kernel) at -O:
//!   the time of one compilation in this process (wall time, best of 50:
//!   one thread, so its CPU time when nothing preempts it), and, when
//!   `target/release/wavec` is built, the CPU time of the whole `wavec`
//!   process, start-up included (Linux: the scheduler's count of the exited
//!   child, read before it is reaped; elsewhere its wall time), best of 20;
//! - growth with kernel size: kernels of N `if` statements (each stores, so
//!   they stay branches through if-conversion) for N = 375 .. 3000, through
//!   the whole pipeline at -O0 and -O and through the IR stages alone at -O
//!   (front end, lowering, passes), as the ratio per doubling of N: 2.0 is
//!   linear, 4.0 quadratic (CPU time of this thread, best of 5, so that a
//!   shared machine's other work counts less; wall time where it cannot be read);
//! - the GEMM with 8x8 micro-tiles in local arrays
//!   (`benches/kernels/gemm_microtile8x8.test`) at -O0 and -O: instructions in
//!   the listing and compile time.

use crate::{best_of, root};
use std::time::Instant;
use wavec::diag::SourceFile;
use wavec::driver::{compile, CompileOptions, OptLevel};
use wavec::passes::{self, PassContext};

/// A kernel with `n` data-dependent `if`s in a chain (the case: 3,000 of them took 6 s).
pub fn ifs_kernel(n: usize) -> SourceFile {
    let mut src = String::from(
        "RWStructuredBuffer<uint> O : register(u0);\nStructuredBuffer<uint> I : register(t0);\n\
         [numthreads(64, 1, 1)] void main(uint3 t : SV_DispatchThreadID) {\n  uint x = I[t.x];\n",
    );
    for i in 0..n {
        src.push_str(&format!("  if (x > {i}u) {{ O[{}] = x; x = x * 3u + {i}u; }}\n", i % 64));
    }
    src.push_str("  O[t.x] = x;\n}\n");
    SourceFile::new(format!("ifs{n}.hlsl"), src)
}

const ONE_LINE: &str = "RWStructuredBuffer<uint> O; [numthreads(64, 1, 1)] void main(uint i : SV_GroupIndex) { O[i] = i; }\n";

/// Runs `cmd` and returns whether it succeeded and its CPU time in seconds:
/// on Linux the scheduler's count of the child (`/proc/PID/schedstat`, in
/// nanoseconds), read once it has exited and before it is reaped; where that
/// cannot be read, the wall time from spawning to reaping.
fn child_cpu(cmd: &mut std::process::Command) -> Option<(bool, f64)> {
    let start = Instant::now();
    let mut child = cmd.spawn().ok()?;
    let proc_dir = std::path::PathBuf::from(format!("/proc/{}", child.id()));
    let mut cpu = None;
    if proc_dir.exists() {
        // Wait for the zombie state (field 3 of stat, after the parenthesised name).
        while let Ok(stat) = std::fs::read_to_string(proc_dir.join("stat")) {
            let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).unwrap_or("");
            if state == "Z" || state == "X" {
                let sched = std::fs::read_to_string(proc_dir.join("schedstat")).ok();
                cpu = sched.and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse::<u64>().ok())).map(|ns| ns as f64 * 1e-9);
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }
    let ok = child.wait().ok()?.success();
    Some((ok, cpu.unwrap_or_else(|| start.elapsed().as_secs_f64())))
}

/// Instructions in a listing (lines that are neither comments, directives nor labels).
fn instructions(asm: &str) -> usize {
    asm.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with('.') && !l.ends_with(':')).count()
}

fn with_opt(opts: &CompileOptions, opt: OptLevel) -> CompileOptions {
    let mut o = opts.clone();
    o.opt = opt;
    o
}

/// Front end, lowering and the -O IR passes, without selection and allocation.
fn ir_stages(file: &SourceFile) {
    let Ok((module, _)) = wavec::frontend::analyze(file, None) else { return };
    let Ok(mut f) = wavec::lower::lower(&module) else { return };
    let _ = passes::run(&mut f, OptLevel::O, &PassContext::default(), false);
}

fn small_kernels(opts: &CompileOptions) {
    let saxpy_path = root().join("examples/saxpy.hlsl");
    let Ok(text) = std::fs::read_to_string(&saxpy_path) else {
        println!("compile time, small kernels: examples/saxpy.hlsl not found");
        return;
    };
    let saxpy = SourceFile::new("saxpy.hlsl", text);
    let one = SourceFile::new("one.hlsl", ONE_LINE);
    let o = with_opt(opts, OptLevel::O);
    let t_saxpy = best_of(50, || {
        let _ = compile(&saxpy, &o);
    });
    let t_one = best_of(50, || {
        let _ = compile(&one, &o);
    });
    println!(
        "compile time, small kernels at -O in this process: saxpy {:.2} ms per compilation, a one-line kernel {:.2} ms (wall time, best of 50)",
        t_saxpy * 1e3,
        t_one * 1e3
    );
    // The whole process, start-up included (its own binary, if built).
    let exe = std::env::current_exe().ok().and_then(|p| p.parent().map(|d| d.join(format!("wavec{}", std::env::consts::EXE_SUFFIX))));
    match exe.filter(|p| p.exists()) {
        Some(exe) => {
            let run = || child_cpu(std::process::Command::new(&exe).arg(&saxpy_path).arg("-O").stdout(std::process::Stdio::null()));
            let runs: Vec<(bool, f64)> = (0..20).filter_map(|_| run()).collect();
            if runs.len() == 20 && runs.iter().all(|r| r.0) {
                let mut t: Vec<f64> = runs.iter().map(|r| r.1).collect();
                t.sort_by(f64::total_cmp);
                println!(
                    "compile time, `wavec examples/saxpy.hlsl -O` as a process: {:.2} ms of CPU (best of 20; median {:.2} ms), start-up included",
                    t[0] * 1e3,
                    t[10] * 1e3
                );
            } else {
                println!("compile time, `{}` did not run saxpy", exe.display());
            }
        }
        None => println!("compile time, the wavec process: not built (cargo build --release builds target/release/wavec)"),
    }
}

/// CPU time of this thread so far, in seconds (Linux: the scheduler's count,
/// brought up to date when the thread is switched out or at a tick, so it is
/// only good to a few milliseconds); `None` where it cannot be read.
fn thread_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// Best of `n` runs of `f`: its CPU time where this thread's can be read (the
/// machine may be shared: waiting for a core is not compile time), else its
/// wall time; in seconds, with which of the two it is.
fn best_time_of(n: usize, mut f: impl FnMut()) -> (f64, &'static str) {
    if thread_cpu().is_none() {
        return (best_of(n, f), "wall");
    }
    let t = (0..n)
        .map(|_| {
            let t0 = thread_cpu().unwrap_or(0.0);
            f();
            thread_cpu().unwrap_or(0.0) - t0
        })
        .fold(f64::INFINITY, f64::min);
    (t, "CPU")
}

/// Growth per doubling of `t`, one ratio per step.
fn growth(t: &[f64]) -> String {
    t.windows(2).map(|w| format!("x{:.2}", w[1] / w[0])).collect::<Vec<_>>().join(" ")
}

fn ifs_growth(opts: &CompileOptions) {
    let sizes = [375usize, 750, 1500, 3000];
    let files: Vec<SourceFile> = sizes.iter().map(|&n| ifs_kernel(n)).collect();
    let mut clock = "wall";
    let mut time = |f: &mut dyn FnMut()| {
        let (t, c) = best_time_of(5, f);
        clock = c;
        t
    };
    let ir: Vec<f64> = files.iter().map(|f| time(&mut || ir_stages(f))).collect();
    let mut whole = |opt: OptLevel| -> Vec<f64> {
        let o = with_opt(opts, opt);
        files
            .iter()
            .map(|f| {
                time(&mut || {
                    let _ = compile(f, &o);
                })
            })
            .collect()
    };
    let (o0, o) = (whole(OptLevel::O0), whole(OptLevel::O));
    let ms = |t: &[f64]| t.iter().map(|x| format!("{:.0}", x * 1e3)).collect::<Vec<_>>().join("/");
    println!("compile time, kernels of 375/750/1500/3000 ifs (ms of {clock} time, best of 5; growth per doubling, 2.00 is linear):");
    println!("  -O0 whole pipeline  {} ms, {}", ms(&o0), growth(&o0));
    println!("  -O  whole pipeline  {} ms, {}", ms(&o), growth(&o));
    println!("  -O  IR stages       {} ms, {}", ms(&ir), growth(&ir));
}

fn gemm(opts: &CompileOptions) {
    let path = root().join("benches/kernels/gemm_microtile8x8.test");
    let Ok(test) = wavec::run::load_test_file(&path) else {
        println!("compile time, GEMM micro-tiles: {} not found", path.display());
        return;
    };
    let mut line = String::from("compile time, GEMM with 8x8 micro-tiles in local arrays (benches/kernels/gemm_microtile8x8.test):");
    for opt in [OptLevel::O0, OptLevel::O] {
        let o = with_opt(opts, opt);
        let n = compile(&test.source, &o).map(|c| instructions(&c.asm)).unwrap_or(0);
        let t = best_of(5, || {
            let _ = compile(&test.source, &o);
        });
        let name = if opt == OptLevel::O0 { "-O0" } else { "-O" };
        line.push_str(&format!(" {name} {n} instructions in {:.1} ms;", t * 1e3));
    }
    line.pop();
    println!("{line}");
}

pub fn report(opts: &CompileOptions) {
    small_kernels(opts);
    ifs_growth(opts);
    gemm(opts);
}
