//! Compile time against kernel size: kernels of N `if` statements (each
//! stores, so they stay branches through if-conversion) for N = 750, 1500,
//! 3000, timed through the IR stages alone (front end, lowering, -O passes)
//! and through the whole pipeline. Reported as growth per doubling of N:
//! 2.0 is linear, 4.0 quadratic.

use crate::best_of;
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

/// Front end, lowering and the -O IR passes, without selection and allocation.
fn ir_stages(file: &SourceFile) {
    let Ok((module, _)) = wavec::frontend::analyze(file, None) else { return };
    let Ok(mut f) = wavec::lower::lower(&module) else { return };
    let _ = passes::run(&mut f, OptLevel::O, &PassContext::default(), false);
}

pub fn report(opts: &CompileOptions) {
    let sizes = [750usize, 1500, 3000];
    let files: Vec<SourceFile> = sizes.iter().map(|&n| ifs_kernel(n)).collect();
    let ir: Vec<f64> = files.iter().map(|f| best_of(3, || ir_stages(f))).collect();
    let full: Vec<f64> = files
        .iter()
        .map(|f| {
            best_of(3, || {
                let _ = compile(f, opts);
            })
        })
        .collect();
    let growth = |t: &[f64]| format!("x{:.2} x{:.2}", t[1] / t[0], t[2] / t[1]);
    println!(
        "compile time, kernels of 750/1500/3000 ifs: IR stages grow {} per doubling ({:.0} ms at 3000), whole pipeline {} ({:.0} ms at 3000); 2.00 is linear",
        growth(&ir),
        ir[2] * 1e3,
        growth(&full),
        full[2] * 1e3
    );
}
