//! The published backends on wavec's compat output (docs/backends.md): every
//! execution test's `-O --isa wave-0.1.2` listing is assembled by wave-asm
//! 0.1.2 and translated by wave-ptx, wave-hip, wave-metal and wave-sycl 0.1.2,
//! and the listing never holds an instruction those read unlike wave-emu.
//! The PTX of all of them goes to NVIDIA's `ptxas` in one call (one module,
//! each kernel renamed), where `ptxas` can be found (`PTXAS`, `PATH`, or the
//! pip package nvidia-cuda-nvcc-cu12 that `.ci/run` installs); without it that
//! test says so and passes.

use std::path::PathBuf;
use std::process::Command;
use wavec::driver::{Isa, OptLevel};
use wavec::emit::backends::{translate_listing, Backend};
use wavec::run;
use wavec_tests::*;

/// Codes with which the compiler refuses a kernel that does not fit WAVE 0.1.2.
const NOT_FOR_012: &[&str] = &["E0403", "E0406", "E0407", "E0408"];

/// Mnemonics the backends read unlike wave-emu (docs/backends.md).
const AMBIGUOUS: &[&str] =
    &["cvt_f32_f16", "cvt_f16_f32", "cvt_f32_f64", "cvt_f64_f32", "imul_hi", "bfi", "fcmp_ne", "ffract", "fround", "bitfind"];

/// `(test, listing)` for every execution test of 32-lane waves that fits 0.1.2.
fn compat_listings() -> Vec<(PathBuf, String)> {
    let mut paths = files_with_ext("tests/corpus", "test");
    paths.extend(files_with_ext("examples", "test"));
    paths.extend(files_with_ext("benches/kernels", "test"));
    paths.extend(files_with_ext("tests/lang", "test"));
    paths.retain(|p| !p.to_string_lossy().ends_with("_w64.test"));
    let mut out = Vec::new();
    for path in paths {
        let test = run::load_test_file(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        let pipeline = run::parse_pipeline(&test.pipeline_text).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        let mut opts = options(Isa::Wave012, OptLevel::O);
        test.flags.apply(&mut opts);
        run::apply_pipeline(&pipeline, &mut opts);
        let c = wavec::driver::compile_input(&test.input(), &opts, false);
        match c.result {
            Ok(compiled) => out.push((path, compiled.asm)),
            Err(d) if d.iter().any(|d| NOT_FOR_012.contains(&d.code)) => {}
            Err(d) => panic!("{}: does not compile:\n{}", path.display(), wavec::diag::render(&c.sources, &d)),
        }
    }
    assert!(out.len() >= 100, "only {} tests fit wave-0.1.2", out.len());
    out
}

#[test]
fn every_execution_test_translates_through_every_backend() {
    let mut failures = Vec::new();
    for (path, asm) in compat_listings() {
        for line in asm.lines().map(|l| l.split(';').next().unwrap_or("").trim()) {
            let mut words = line.split_whitespace();
            let first = words.next().unwrap_or("");
            let mnemonic = if first.starts_with('@') { words.next().unwrap_or("") } else { first };
            if AMBIGUOUS.contains(&mnemonic) {
                failures.push(format!("{}: `{line}` is read differently by the backends", path.display()));
            }
        }
        for b in Backend::ALL {
            match translate_listing(b, &asm, "test") {
                Ok(text) if !text.trim().is_empty() => {}
                Ok(_) => failures.push(format!("{}: {} gave nothing", path.display(), b.name())),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let ok = |p: &PathBuf| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success());
    let on_path = PathBuf::from("ptxas");
    if ok(&on_path) {
        return Some(on_path);
    }
    // Where pip puts the package (a venv of .ci/run's, or the user's site).
    let home = std::env::var("HOME").unwrap_or_default();
    let mut roots = vec![repo_root().join("target/ptxas-venv"), PathBuf::from(&home).join(".local")];
    roots.retain(|r| r.exists());
    for root in roots {
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(root.join(lib)) else { continue };
            for e in entries.flatten() {
                let p = e.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
                if ok(&p) {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// One PTX module with every test's kernel, renamed `k0`, `k1`, ... (labels and
/// shared memory are local to each entry in PTX, so they do not collide).
/// wavec retypes wave-ptx 0.1.2's `.u32` atomic and/or/xor/exch as the `.b32`
/// ptxas wants (`emit::backends::retype_bit_atomics`; docs/backends.md), so
/// every kernel goes in.
fn one_module(listings: &[(PathBuf, String)]) -> (String, Vec<String>) {
    let mut module = String::new();
    let mut names = Vec::new();
    for (k, (path, asm)) in listings.iter().enumerate() {
        let ptx = translate_listing(Backend::Ptx, asm, "test").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            !["and", "or", "xor", "exch"].iter().any(|op| ptx.contains(&format!(".{op}.u32 "))),
            "{}: a bitwise atomic typed .u32 is left in the PTX",
            path.display()
        );
        let start = ptx.find(".visible .entry ").expect("an entry");
        if module.is_empty() {
            module.push_str(&ptx[..start]);
        }
        let body = &ptx[start..];
        let open = body.find('(').expect("a parameter list");
        module.push_str(&format!(".visible .entry k{k}{}", &body[open..]));
        names.push(path.display().to_string());
    }
    (module, names)
}

#[test]
fn ptxas_accepts_the_ptx_of_every_execution_test() {
    let Some(ptxas) = find_ptxas() else {
        eprintln!("skipped: no ptxas (install the pip package nvidia-cuda-nvcc-cu12, or set PTXAS)");
        return;
    };
    let listings = compat_listings();
    let (module, names) = one_module(&listings);
    let dir = std::env::temp_dir().join(format!("wavec-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("all.ptx");
    std::fs::write(&input, &module).expect("write the module");
    let out = Command::new(&ptxas).args(["-arch=sm_75", "-o"]).arg(dir.join("all.cubin")).arg(&input).output().expect("ptxas runs");
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        // Name the tests of the kernels ptxas complains about.
        let log = String::from_utf8_lossy(&out.stderr);
        panic!("ptxas rejected the PTX (kernel kN is test N of: {}):\n{log}", names.join(", "));
    }
    eprintln!("ptxas accepted the PTX of {} execution tests", names.len());
}
