//! The compute entry point: which function (`-E`, `#pragma kernel`, or the
//! only `[numthreads]` function), its `numthreads`, and its system-value inputs.

use super::{err, FuncState, Sema};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{self, ExprKind as AK};
use crate::frontend::tast::*;

/// Largest workgroup: product of the numthreads dimensions.
pub const MAX_THREADS: u32 = 1024;
/// Per-dimension limits of numthreads (x, y, z), as in D3D12.
pub const MAX_NUMTHREADS: [u32; 3] = [1024, 1024, 64];

fn is_entry(f: &FuncState) -> bool {
    f.attrs.iter().any(|a| a.name.name.eq_ignore_ascii_case("numthreads"))
}

const ENTRY_NOTE: &str = "a compute entry point looks like `[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID)`";

impl Sema {
    /// Picks the entry function among the user's (ids from `first_user` on).
    pub(super) fn choose_entry(&mut self, first_user: usize, file_end: Span) -> Option<FuncId> {
        let user: Vec<FuncId> =
            (first_user..self.funcs.len()).map(|i| FuncId(i as u32)).filter(|f| self.funcs[f.0 as usize].body.is_some()).collect();
        let entries: Vec<FuncId> = user.iter().copied().filter(|f| is_entry(&self.funcs[f.0 as usize])).collect();
        let names = |s: &Sema, v: &[FuncId]| v.iter().map(|f| format!("`{}`", s.funcs[f.0 as usize].name)).collect::<Vec<_>>().join(", ");
        let wanted = self.opts.entry.clone().or_else(|| match self.opts.pragma_kernels.as_slice() {
            [(k, _)] => Some(k.clone()),
            _ => None,
        });
        if let Some(name) = wanted {
            let mut found: Vec<FuncId> = user.iter().copied().filter(|f| self.funcs[f.0 as usize].name == name).collect();
            // A helper may share the kernel's name (an overload): the `[numthreads]` one is meant.
            if found.len() > 1 && found.iter().filter(|f| is_entry(&self.funcs[f.0 as usize])).count() == 1 {
                found.retain(|f| is_entry(&self.funcs[f.0 as usize]));
            }
            return match found.as_slice() {
                [f] if is_entry(&self.funcs[f.0 as usize]) => Some(*f),
                [f] => {
                    let s = self.funcs[f.0 as usize].name_span;
                    self.emit(
                        err(
                            "E0231",
                            format!("`{name}` is not a compute entry point"),
                            s,
                            "this function has no [numthreads(...)] attribute",
                        )
                        .with_note(ENTRY_NOTE),
                    );
                    None
                }
                [] => {
                    let mut d = Diagnostic::error("E0231", format!("no entry point named `{name}`"));
                    if let Some((_, s)) = self.opts.pragma_kernels.iter().find(|(k, _)| *k == name) {
                        d = d.with_label(*s, "named by this #pragma kernel");
                    }
                    if !entries.is_empty() {
                        d = d.with_note(format!("entry points in this file: {}", names(self, &entries)));
                    }
                    self.emit(d);
                    None
                }
                several => {
                    let mut d = Diagnostic::error("E0232", format!("`{name}` is overloaded; an entry point must be unique"));
                    for f in several {
                        d = d.with_label(self.funcs[f.0 as usize].name_span, "a function of that name");
                    }
                    self.emit(d);
                    None
                }
            };
        }
        match entries.as_slice() {
            [] => {
                let mut d = Diagnostic::error("E0230", "no compute entry point");
                for f in &user {
                    d = d.with_label(self.funcs[f.0 as usize].name_span, "this function has no [numthreads(...)] attribute");
                }
                if user.is_empty() {
                    d = d.with_label(file_end, "expected a function with a [numthreads(...)] attribute");
                }
                self.emit(d.with_note(ENTRY_NOTE));
                None
            }
            [one] => Some(*one),
            several => {
                let mut d = Diagnostic::error("E0232", "several compute entry points; choose one by name");
                for f in several {
                    d = d.with_label(self.funcs[f.0 as usize].name_span, "entry point");
                }
                let listed = names(self, several);
                self.emit(d.with_note(format!("entry points in this file: {listed}; pass one with -E NAME (or Entry: in a pipeline)")));
                None
            }
        }
    }

    fn numthreads(&mut self, attrs: &[ast::Attribute]) -> Option<[u32; 3]> {
        let attr = attrs.iter().find(|a| a.name.name.eq_ignore_ascii_case("numthreads"))?.clone();
        let mut dims = [0u32; 3];
        if attr.args.len() != 3 {
            self.emit(err("E0235", "numthreads takes three integers", attr.span, "expected [numthreads(X, Y, Z)]"));
            return None;
        }
        for (i, a) in attr.args.iter().enumerate() {
            let v = self.const_uint(a, "a numthreads dimension")?;
            if !(1..=MAX_NUMTHREADS[i]).contains(&v) {
                self.emit(err(
                    "E0234",
                    format!("numthreads {} dimension out of range", ["x", "y", "z"][i]),
                    a.span,
                    format!("must be between 1 and {}", MAX_NUMTHREADS[i]),
                ));
                return None;
            }
            dims[i] = v;
        }
        let total = dims.iter().map(|&d| d as u64).product::<u64>();
        if total > MAX_THREADS as u64 {
            self.emit(err(
                "E0234",
                format!("numthreads({}, {}, {}) has {total} threads per group", dims[0], dims[1], dims[2]),
                attr.span,
                format!("at most {MAX_THREADS} threads per group"),
            ));
            return None;
        }
        Some(dims)
    }

    /// Checks the chosen entry function and describes its inputs.
    pub(super) fn entry(&mut self, id: FuncId) -> Option<Entry> {
        let attrs = self.funcs[id.0 as usize].attrs.clone();
        let numthreads = self.numthreads(&attrs);
        for a in &attrs {
            let n = a.name.name.to_ascii_lowercase();
            match n.as_str() {
                // D3D binding and scheduling descriptions: nothing to do on WAVE.
                "numthreads" | "rootsignature" => {}
                "shader" => {
                    let ok = matches!(a.args.as_slice(), [ast::Expr { kind: AK::StrLit(s), .. }] if s.trim_matches('"') == "compute");
                    if !ok {
                        self.emit(err("E0233", "only compute shaders are supported", a.span, "expected [shader(\"compute\")]"));
                    }
                }
                "wavesize" => {
                    self.warn("W0203", "attribute `WaveSize` ignored: the wave width is the target's", a.span, "ignored");
                }
                _ => self.warn("W0203", format!("attribute `{}` ignored", a.name.name), a.span, "unknown attribute"),
            }
        }
        let (ret, span, name, name_span) = {
            let f = &self.funcs[id.0 as usize];
            (f.ret, f.span, f.name.clone(), f.name_span)
        };
        if ret != Type::Void {
            self.emit(err("E0233", "a compute entry point must return void", name_span, "expected `void`"));
        }
        let params = self.funcs[id.0 as usize].params.clone();
        let semantics = self.funcs[id.0 as usize].semantics.clone();
        let mut inputs = Vec::new();
        let mut seen: Vec<(SystemValue, Span)> = Vec::new();
        for (p, sem) in params.iter().zip(semantics) {
            if p.dir != ParamDir::In {
                self.emit(err("E0239", "entry point parameters can only be inputs", p.span, "not an input"));
                continue;
            }
            let sv = match &sem {
                None => {
                    let pname = self.locals[p.local.0 as usize].name.clone();
                    self.emit(
                        err("E0236", format!("parameter `{pname}` has no semantic"), p.span, "missing semantic")
                            .with_note("compute entry parameters take SV_DispatchThreadID, SV_GroupThreadID, SV_GroupID or SV_GroupIndex"),
                    );
                    continue;
                }
                Some(s) => {
                    match s.name.to_ascii_lowercase().as_str() {
                        "sv_dispatchthreadid" => SystemValue::DispatchThreadId,
                        "sv_groupthreadid" => SystemValue::GroupThreadId,
                        "sv_groupid" => SystemValue::GroupId,
                        "sv_groupindex" => SystemValue::GroupIndex,
                        _ => {
                            self.emit(err("E0236", format!("unsupported semantic `{}`", s.name), s.span, "not a compute input").with_note(
                                "compute entry parameters take SV_DispatchThreadID, SV_GroupThreadID, SV_GroupID or SV_GroupIndex",
                            ));
                            continue;
                        }
                    }
                }
            };
            if let Some((_, prev)) = seen.iter().find(|(s, _)| *s == sv) {
                let prev = *prev;
                self.emit(err("E0238", format!("`{}` is used twice", sv.semantic()), p.span, "second use").with_label(prev, "first use"));
            }
            seen.push((sv, p.span));
            let ok = match sv {
                SystemValue::GroupIndex => matches!(p.ty, Type::Scalar(ScalarType::Uint | ScalarType::Int)),
                _ => {
                    matches!(p.ty.scalar(), Some(ScalarType::Uint | ScalarType::Int))
                        && (1..=3).contains(&p.ty.len())
                        && !matches!(p.ty, Type::Matrix(..))
                }
            };
            if !ok {
                let want = if sv == SystemValue::GroupIndex { "uint" } else { "uint3 (or uint, uint2)" };
                let t = self.type_name(p.ty);
                self.emit(err("E0237", format!("`{}` cannot have type `{t}`", sv.semantic()), p.ty_span, format!("expected {want}")));
                continue;
            }
            inputs.push(EntryInput { local: p.local, semantic: sv, ty: p.ty, span: p.span });
        }
        Some(Entry { func: id, name, numthreads: numthreads?, inputs, span })
    }
}
