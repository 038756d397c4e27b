//! Semantic analysis: names, types, HLSL conversion rules, overloads,
//! resources and layouts, entry point. Produces the typed AST of
//! [`super::tast`]. Split by concern:
//!
//! * this file: analysis state, scopes, top-level items and module assembly;
//! * [`types`]: type names, conversions and the usual arithmetic conversions;
//! * [`consteval`]: compile-time constants (array sizes, `numthreads`, cases);
//! * [`resources`]: buffers, cbuffers, `$Globals`, groupshared, bindings;
//! * [`expr`]: expressions and places; [`intrinsics`]: builtin functions;
//! * [`literals`]: numeric literals, DXC's 64-bit literal integer arithmetic;
//! * [`specconst`]: `[[vk::constant_id(N)]]` specialization constants;
//! * [`calls`]: user functions and overload resolution ([`overload`]: DXC's
//!   ranking of candidates); [`stmt`]: statements;
//! * [`entry`]: entry-point selection, `numthreads`, system values;
//! * [`enums`]: enumerations, as integer constants;
//! * [`legacy`]: the HLSL 2018 rules (`-HV 2018`, Unity `.compute` files).
//!
//! Analysis goes on after an error to report as many independent errors as
//! possible; an expression that failed yields `None` and its parents stay
//! silent (no cascades). Any error makes the whole analysis fail.

mod calls;
mod consteval;
mod entry;
mod enums;
mod expr;
mod intrinsics;
mod legacy;
mod literals;
mod overload;
mod resources;
mod specconst;
mod stmt;
mod types;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::ast;
use super::tast::*;
use crate::diag::{Diagnostic, Span};

pub use entry::{MAX_NUMTHREADS, MAX_THREADS};

/// What the front end needs besides the source.
#[derive(Clone, Debug, Default)]
pub struct FrontendOptions {
    /// Entry point name (`-E`); `None` picks the single `[numthreads]` function.
    pub entry: Option<String>,
    /// `-enable-16bit-types`: `half`, `min16*` and `*16_t` are real 16-bit types.
    pub native_16bit: bool,
    /// `#pragma kernel NAME` lines (Unity `.compute` files): their names and spans.
    pub pragma_kernels: Vec<(String, Span)>,
    /// `-Zpr`: matrices are row-major in memory unless declared otherwise
    /// (`#pragma pack_matrix` changes it from its position on).
    pub row_major_default: bool,
    /// `--robust-access`: every used buffer gets a size argument for bounds checks.
    pub robust_access: bool,
    /// `-denorm ftz`: fp32 arithmetic flushes denormals (`passes::ftz`).
    pub flush_denormals: bool,
    /// `-HV`: before 2021, `&&`/`||`/`?:` evaluate everything element-wise,
    /// `for` init variables leak, and same-layout structs convert.
    pub hlsl_version: crate::options::HlslVersion,
    /// How many descriptors the host binds from a register on (`--array-size`, a
    /// pipeline's `ArraySize`): the size of an unbounded resource array there.
    pub descriptor_counts: Vec<(crate::interface::Binding, u32)>,
}

/// What a global name refers to.
#[derive(Clone, Copy, Debug)]
enum Global {
    Resource(ResourceId),
    /// Field `1` of the cbuffer resource `0` (a named cbuffer's member or a `$Globals` member).
    CbField(ResourceId, u32),
    Shared(SharedId),
    /// A `static` global (or `static const`): a per-thread local.
    Static(LocalId),
    /// A resource array, or a global struct holding resources (index into `Sema::groups`).
    Group(usize),
    /// A declaration that failed: uses stay silent.
    Poisoned,
    /// A resource wavec does not support (a texture, ...): declaring it is fine
    /// (DXC drops unused resources); using it is an error in the kernel that does.
    Unsupported {
        what: &'static str,
        why: &'static str,
    },
}

/// Something a function body refers to, for reachability from the entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Use {
    Resource(ResourceId),
    ResourceSize(ResourceId),
    Shared(SharedId),
    Static(LocalId),
    Call(FuncId),
    /// The UAV counter of a resource.
    Counter(ResourceId),
    /// Sizes (`GetDimensions`) or counters of buffers held in variables: every used
    /// resource of this handle type needs one.
    SizesOf(HandleId),
    CountersOf(HandleId),
    /// An error that counts only if the entry point reaches it (index into `Sema::deferred`).
    Deferred(usize),
}

/// The resources of a resource array or of a global struct holding resources:
/// a value of type `ty` whose handle leaves are `leaves`.
struct ResourceGroup {
    ty: Type,
    leaves: Vec<ResourceId>,
    /// A resource array: its registers are reserved (and implicitly bound) as one
    /// range, used or not (DXC's rule; resources in structs bind one by one).
    contiguous: bool,
}

/// A function as known while analysing (signature first, body when seen).
struct FuncState {
    name: String,
    params: Vec<Param>,
    /// Semantics written on the parameters (entry points).
    semantics: Vec<Option<ast::Ident>>,
    ret: Type,
    body: Option<Block>,
    span: Span,
    name_span: Span,
    attrs: Vec<ast::Attribute>,
    stdlib: bool,
    uses: BTreeSet<Use>,
    /// Spans of calls, for the recursion diagnostic.
    call_spans: BTreeMap<FuncId, Span>,
    /// Default argument per parameter (already converted to its type).
    defaults: Vec<Option<Expr>>,
    /// A member function: what its body does to `this` (see `Sema::method_mutates`).
    this_effects: ThisEffects,
}

/// What a member function's body does to its object: writes it directly, or calls
/// these member functions on it (which may write it).
#[derive(Clone, Debug, Default)]
struct ThisEffects {
    writes: bool,
    calls: Vec<FuncId>,
}

/// A named type (struct or typedef).
#[derive(Clone, Copy, Debug)]
struct NamedType {
    ty: Type,
    major: Option<MatrixMajor>,
}

/// The innermost construct a `break`/`continue` refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Breakable {
    Loop,
    Switch,
}

pub(crate) struct Sema {
    opts: FrontendOptions,
    diags: Vec<Diagnostic>,
    types: Types,
    type_names: HashMap<String, NamedType>,
    locals: Vec<LocalInfo>,
    scopes: Vec<HashMap<String, LocalId>>,
    globals: HashMap<String, (Global, Span)>,
    resources: Vec<Resource>,
    groups: Vec<ResourceGroup>,
    /// Matrix orientation recorded per cbuffer field and per buffer (the module default at the declaration).
    shared: Vec<SharedVar>,
    local_memory: u32,
    statics: Vec<(LocalId, Option<Expr>)>,
    static_uses: BTreeMap<LocalId, BTreeSet<Use>>,
    /// The implicit `$Globals` cbuffer, once a loose global is declared.
    globals_cb: Option<ResourceId>,
    funcs: Vec<FuncState>,
    overloads: HashMap<String, Vec<FuncId>>,
    /// Leaf values of locals whose value is known at compile time (`static const`, `const` with constant init).
    const_values: HashMap<LocalId, Vec<Const>>,
    /// Spans of literals written without a suffix: they adopt the other operand's type.
    untyped_literals: HashSet<Span>,
    /// Unsuffixed integer literals whose value needs more than 32 bits: the whole
    /// value, until they meet a type (see [`literals`]).
    wide_literals: HashMap<Span, i64>,
    /// The exact (f64) values of unsuffixed float literals, kept for a `double` they meet.
    literal_floats: HashMap<Span, f64>,
    /// A `precise` qualifier was written somewhere: no multiply-add contraction
    /// in this kernel (see `Module::precise`).
    saw_precise: bool,
    // Per-function state.
    cur_ret: Option<Type>,
    cur_uses: BTreeSet<Use>,
    cur_calls: BTreeMap<FuncId, Span>,
    breakables: Vec<Breakable>,
    /// Errors reported only if the entry point reaches the code that has them ([`Use::Deferred`]).
    deferred: Vec<Diagnostic>,
    /// Functions whose signature has a texture or sampler: their errors in `deferred`.
    unsupported_funcs: HashMap<String, Vec<usize>>,
    /// Each enum's enumerators (for `E::A`), as constants.
    enums: HashMap<String, Vec<(String, LocalId)>>,
    /// Structs declared (`struct S;`) and not defined yet: their ids, which the
    /// definition fills in (one that is never defined is an empty struct).
    forward_structs: HashMap<String, StructId>,
    in_stdlib: bool,
    /// The prelude item being declared (while `in_stdlib`), and the stdlib functions whose
    /// bodies wait until a call needs them (function -> prelude item index): most kernels
    /// call few of the hundreds of instantiations.
    stdlib_item: Option<usize>,
    pending_stdlib: BTreeMap<FuncId, usize>,
    reported_too_deep: bool,
    /// The matrix layout in force (`-Zpr`, `#pragma pack_matrix`).
    cur_major: MatrixMajor,
    /// Member functions of each struct, as written (a derived struct has its base's too).
    /// Member functions of each struct, inherited ones included (hidden or not),
    /// each with the struct that declares it.
    struct_methods: HashMap<StructId, Vec<(StructId, ast::Function)>>,
    /// The names of the member functions each struct declares itself.
    own_methods: HashMap<StructId, BTreeSet<String>>,
    /// `struct D : B`: D's base.
    struct_base: HashMap<StructId, StructId>,
    /// Inside a member function: its `this`, the struct of `this`, and the struct that
    /// declares the function (a base of it, for an inherited one).
    cur_this: Option<(LocalId, StructId, StructId)>,
    /// Inside a member function (static ones too): the struct of `this` and the declaring struct.
    cur_struct: Option<(StructId, StructId)>,
    /// Inside a member function: what it does to `this` so far.
    cur_this_effects: ThisEffects,
    /// Declaring a `for` init under HLSL 2018 rules: redeclaring a name of the
    /// enclosing scope shadows it with a warning instead of being an error.
    for_init_leaks: bool,
    /// Names `for` inits declared whose loop has ended (HLSL 2021), for a hint
    /// when code written for HLSL 2018 uses one after its loop.
    ended_for_vars: BTreeSet<String>,
}

fn err(code: &'static str, msg: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, msg).with_label(span, label)
}

fn lit(c: Const, span: Span) -> Expr {
    Expr { kind: ExprKind::Literal(c), ty: Type::Scalar(c.scalar_type()), span }
}

impl Sema {
    pub(crate) fn new(opts: FrontendOptions) -> Sema {
        Sema {
            diags: Vec::new(),
            types: Types::default(),
            type_names: HashMap::new(),
            locals: Vec::new(),
            scopes: Vec::new(),
            globals: HashMap::new(),
            resources: Vec::new(),
            groups: Vec::new(),
            shared: Vec::new(),
            local_memory: 0,
            statics: Vec::new(),
            static_uses: BTreeMap::new(),
            globals_cb: None,
            funcs: Vec::new(),
            overloads: HashMap::new(),
            const_values: HashMap::new(),
            untyped_literals: HashSet::new(),
            wide_literals: HashMap::new(),
            literal_floats: HashMap::new(),
            saw_precise: false,
            cur_ret: None,
            cur_uses: BTreeSet::new(),
            cur_calls: BTreeMap::new(),
            breakables: Vec::new(),
            deferred: Vec::new(),
            unsupported_funcs: HashMap::new(),
            enums: HashMap::new(),
            forward_structs: HashMap::new(),
            in_stdlib: false,
            stdlib_item: None,
            pending_stdlib: BTreeMap::new(),
            reported_too_deep: false,
            struct_methods: HashMap::new(),
            own_methods: HashMap::new(),
            struct_base: HashMap::new(),
            cur_this: None,
            cur_struct: None,
            cur_this_effects: ThisEffects::default(),
            for_init_leaks: false,
            ended_for_vars: BTreeSet::new(),
            cur_major: if opts.row_major_default { MatrixMajor::Row } else { MatrixMajor::Column },
            opts,
        }
    }

    /// Analyses the bodies of the stdlib functions that analysed code calls, until none is left.
    fn analyse_called_stdlib(&mut self, prelude: &ast::TranslationUnit, stdlib_major: MatrixMajor) {
        let saved_major = std::mem::replace(&mut self.cur_major, stdlib_major);
        self.in_stdlib = true;
        loop {
            let called: BTreeSet<FuncId> = self
                .funcs
                .iter()
                .flat_map(|f| f.uses.iter())
                .filter_map(|u| match u {
                    Use::Call(f) => Some(*f),
                    _ => None,
                })
                .filter(|f| self.pending_stdlib.contains_key(f))
                .collect();
            if called.is_empty() {
                break;
            }
            for f in called {
                if let Some(item) = self.pending_stdlib.remove(&f) {
                    if let ast::Item::Function(func) = &prelude.items[item] {
                        self.function(func);
                    }
                }
            }
        }
        self.in_stdlib = false;
        self.cur_major = saved_major;
    }

    fn emit(&mut self, d: Diagnostic) {
        if self.in_stdlib {
            // The stdlib is tested to analyse cleanly; never blame the user for it.
            let d = d.with_note("(in wavec's stdlib: this is a compiler bug)");
            self.diags.push(Diagnostic { labels: Vec::new(), ..d });
            return;
        }
        self.diags.push(d);
    }

    fn warn(&mut self, code: &'static str, msg: impl Into<String>, span: Span, label: impl Into<String>) {
        if !self.in_stdlib {
            self.diags.push(Diagnostic::warning(code, msg).with_label(span, label));
        }
    }

    fn too_deep(&mut self, span: Span) {
        if !self.reported_too_deep {
            self.reported_too_deep = true;
            self.emit(
                err("E0105", "nesting too deep", span, "the nesting limit is reached inside this construct")
                    .with_note(format!("expressions and statements may nest at most {} levels", ast::MAX_DEPTH)),
            );
        }
    }

    fn type_name(&self, t: Type) -> String {
        self.types.name(t)
    }

    /// The matrix orientation in force for a declaration (`-Zpr`, `#pragma pack_matrix`).
    fn default_major(&self, _span: Span) -> MatrixMajor {
        self.cur_major
    }

    // ------------------------------------------------------------ module

    /// Analyses the stdlib prelude and then the user's translation unit.
    pub(crate) fn run(
        mut self,
        prelude: &ast::TranslationUnit,
        tu: &ast::TranslationUnit,
        file_end: Span,
    ) -> Result<(Module, Vec<Diagnostic>), Vec<Diagnostic>> {
        self.in_stdlib = true;
        for (i, item) in prelude.items.iter().enumerate() {
            self.stdlib_item = Some(i);
            self.item(item);
        }
        self.stdlib_item = None;
        let stdlib_funcs = self.funcs.len();
        self.in_stdlib = false;
        let user_major = self.cur_major;
        for item in &tu.items {
            self.item(item);
        }
        self.analyse_called_stdlib(prelude, user_major);
        self.report_unsettled_wide_literals();
        let entry = self.choose_entry(stdlib_funcs, file_end);
        let entry = entry.and_then(|f| self.entry(f));
        if let Some(e) = &entry {
            // Errors in code the entry point reaches (uses of unsupported resources).
            let reached: Vec<usize> = self
                .reachable_uses(e.func)
                .into_iter()
                .filter_map(|u| match u {
                    Use::Deferred(i) => Some(i),
                    _ => None,
                })
                .collect();
            for i in reached {
                let d = self.deferred[i].clone();
                self.diags.push(d);
            }
        }
        self.check_recursion();
        if let Some(e) = &entry {
            self.check_defined(e.func);
        }
        let has_error = self.diags.iter().any(|d| d.is_error());
        match entry {
            Some(entry) if !has_error => {
                let mut next_slot = self.bind_resources(entry.func);
                let has_error = self.diags.iter().any(|d| d.is_error());
                if has_error {
                    return Err(self.diags);
                }
                let statics = self.reachable_statics(entry.func);
                let const_tables = self.const_tables(&statics, &mut next_slot);
                let functions = self
                    .funcs
                    .into_iter()
                    .map(|f| Function {
                        name: f.name,
                        params: f.params,
                        ret: f.ret,
                        body: f.body.unwrap_or(Block { stmts: Vec::new(), span: f.span }),
                        span: f.span,
                        stdlib: f.stdlib,
                    })
                    .collect();
                let statics = self.statics.into_iter().filter(|(l, _)| statics.contains(l)).collect();
                Ok((
                    Module {
                        entry,
                        functions,
                        resources: self.resources,
                        groupshared: self.shared,
                        local_memory: self.local_memory,
                        locals: self.locals,
                        statics,
                        types: self.types,
                        native_16bit: self.opts.native_16bit,
                        robust_access: self.opts.robust_access,
                        flush_denormals: self.opts.flush_denormals,
                        precise: self.saw_precise,
                        const_tables,
                    },
                    self.diags,
                ))
            }
            _ => Err(self.diags),
        }
    }

    fn item(&mut self, item: &ast::Item) {
        match item {
            ast::Item::Function(f) => self.function(f),
            ast::Item::GlobalVar(v) => self.global_var(v),
            ast::Item::Cbuffer(cb) => self.cbuffer(cb),
            ast::Item::Struct(s) => {
                self.struct_decl(s);
            }
            ast::Item::Typedef(t) => self.typedef(t),
            ast::Item::Enum(e) => self.enum_decl(e),
            ast::Item::MemberDef { owner, func } => self.member_def(owner, func),
            ast::Item::StructForward(n) => self.struct_forward(n),
            ast::Item::PackMatrix { row_major, .. } => {
                self.cur_major = if *row_major { MatrixMajor::Row } else { MatrixMajor::Column };
            }
            ast::Item::Unsupported { what, span } => {
                self.emit(err("E0312", format!("`{what}` is not supported"), *span, "not supported"));
            }
        }
    }

    /// Functions reachable from `root` through calls (root included), in id order.
    fn reachable_functions(&self, root: FuncId) -> BTreeSet<FuncId> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            for u in &self.funcs[f.0 as usize].uses {
                if let Use::Call(g) = u {
                    stack.push(*g);
                }
            }
        }
        seen
    }

    /// Everything the entry point uses, through calls and static initializers.
    fn reachable_uses(&self, root: FuncId) -> BTreeSet<Use> {
        let mut uses = BTreeSet::new();
        for f in self.reachable_functions(root) {
            uses.extend(self.funcs[f.0 as usize].uses.iter().copied());
        }
        // Static initializers may use resources and other statics.
        loop {
            let before = uses.len();
            let statics: Vec<LocalId> = uses
                .iter()
                .filter_map(|u| match u {
                    Use::Static(l) => Some(*l),
                    _ => None,
                })
                .collect();
            for l in statics {
                if let Some(more) = self.static_uses.get(&l) {
                    uses.extend(more.iter().copied());
                }
            }
            if uses.len() == before {
                break;
            }
        }
        uses
    }

    fn reachable_statics(&self, root: FuncId) -> BTreeSet<LocalId> {
        self.reachable_uses(root)
            .into_iter()
            .filter_map(|u| match u {
                Use::Static(l) => Some(l),
                _ => None,
            })
            .collect()
    }

    /// Every function the entry point calls needs a body: a prototype that is never
    /// defined is an error (DXC reports an undefined function too).
    fn check_defined(&mut self, root: FuncId) {
        let reach = self.reachable_functions(root);
        for &f in &reach {
            let st = &self.funcs[f.0 as usize];
            if st.body.is_some() {
                continue;
            }
            let call = reach.iter().find_map(|g| self.funcs[g.0 as usize].call_spans.get(&f).copied());
            let mut d = Diagnostic::error("E0256", format!("`{}` is called but never defined", st.name));
            if let Some(c) = call {
                d = d.with_label(c, "called here");
            }
            d = d.with_label(st.name_span, "declared here, without a body").with_note("define it (a prototype alone is not enough)");
            self.diags.push(d);
        }
    }

    /// Recursion is refused (every call is inlined): report each cycle once, naming it.
    fn check_recursion(&mut self) {
        use petgraph::graph::DiGraph;
        let mut g: DiGraph<u32, ()> = DiGraph::new();
        let nodes: Vec<_> = (0..self.funcs.len()).map(|i| g.add_node(i as u32)).collect();
        for (i, f) in self.funcs.iter().enumerate() {
            for u in &f.uses {
                if let Use::Call(c) = u {
                    g.add_edge(nodes[i], nodes[c.0 as usize], ());
                }
            }
        }
        let mut sccs = petgraph::algo::tarjan_scc(&g);
        sccs.iter_mut().for_each(|c| c.sort());
        sccs.sort();
        for scc in sccs {
            let members: Vec<usize> = scc.iter().map(|n| g[*n] as usize).collect();
            let self_loop = members.len() == 1 && self.funcs[members[0]].uses.contains(&Use::Call(FuncId(members[0] as u32)));
            if members.len() < 2 && !self_loop {
                continue;
            }
            // Walk the cycle from its first member to name it in call order.
            let start = members[0];
            let mut order = vec![start];
            let mut cur = start;
            for _ in 0..members.len() {
                let next = self.funcs[cur]
                    .uses
                    .iter()
                    .find_map(|u| match u {
                        Use::Call(c)
                            if members.contains(&(c.0 as usize)) && (c.0 as usize == start || !order.contains(&(c.0 as usize))) =>
                        {
                            Some(c.0 as usize)
                        }
                        _ => None,
                    })
                    .unwrap_or(start);
                if next == start {
                    break;
                }
                order.push(next);
                cur = next;
            }
            let mut names: Vec<String> = order.iter().map(|&i| format!("`{}`", self.funcs[i].name)).collect();
            names.push(format!("`{}`", self.funcs[start].name));
            let mut d = Diagnostic::error("E0250", format!("recursive call cycle: {}", names.join(" -> ")))
                .with_label(self.funcs[start].name_span, "this function calls itself through the cycle");
            for w in order.windows(2).chain(std::iter::once(&[*order.last().unwrap_or(&start), start][..])) {
                let (from, to) = (w[0], w[1]);
                if let Some(&s) = self.funcs[from].call_spans.get(&FuncId(to as u32)) {
                    d = d.with_label(s, format!("`{}` calls `{}` here", self.funcs[from].name, self.funcs[to].name));
                }
            }
            self.emit(d.with_note("every call is inlined, so recursion cannot be compiled; rewrite it as a loop"));
        }
    }

    // ------------------------------------------------------------ scopes and names

    fn declare_local(&mut self, name: &ast::Ident, ty: Type, kind: LocalKind) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(LocalInfo { name: name.name.clone(), ty, kind, span: name.span });
        if let Some(scope) = self.scopes.last_mut() {
            if let Some(prev) = scope.insert(name.name.clone(), id) {
                if self.for_init_leaks {
                    self.warn_for_redefinition(name, prev);
                    return id;
                }
                let prev_span = self.locals[prev.0 as usize].span;
                self.emit(
                    err("E0202", format!("`{}` is declared twice in the same scope", name.name), name.span, "redeclared here")
                        .with_label(prev_span, "first declared here"),
                );
            }
        }
        id
    }

    fn lookup_local(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn declare_global(&mut self, name: &ast::Ident, g: Global) -> bool {
        let prev = self
            .globals
            .get(&name.name)
            .map(|(_, s)| *s)
            .or_else(|| self.overloads.get(&name.name).and_then(|v| v.first()).map(|f| self.funcs[f.0 as usize].name_span));
        if let Some(prev) = prev {
            self.emit(
                err("E0202", format!("`{}` is declared twice", name.name), name.span, "redeclared here")
                    .with_label(prev, "first declared here"),
            );
            return false;
        }
        self.globals.insert(name.name.clone(), (g, name.span));
        true
    }

    fn unknown_name(&mut self, name: &str, span: Span) {
        let mut d = err("E0201", format!("unknown name `{name}`"), span, "not found in this scope");
        let lower = name.to_ascii_lowercase();
        let mut candidates: Vec<&String> =
            self.scopes.iter().flat_map(|s| s.keys()).chain(self.globals.keys()).chain(self.overloads.keys()).collect();
        candidates.sort();
        if let Some(s) = candidates.into_iter().find(|k| k.to_ascii_lowercase() == lower && k.as_str() != name) {
            d = d.with_note(format!("a name `{s}` exists (names are case-sensitive)"));
        }
        if self.ended_for_vars.contains(name) {
            d = d.with_note(format!(
                "a `for` loop declares `{name}`, and HLSL 2021 scopes it to that loop; -HV 2018 keeps it after the loop"
            ));
        }
        self.emit(d);
    }

    fn note_use(&mut self, u: Use) {
        self.cur_uses.insert(u);
    }

    // ------------------------------------------------------------ structs and typedefs

    /// Declares a struct; returns its type.
    fn struct_decl(&mut self, s: &ast::StructDecl) -> Option<Type> {
        let name = s.name.as_ref().map_or("<anonymous>".to_string(), |n| n.name.clone());
        let mut fields: Vec<Field> = Vec::new();
        let mut ok = true;
        // `struct D : B`: B's fields come first (its layout is a prefix of D's).
        if let Some(b) = &s.base {
            match self.type_names.get(&b.name).map(|t| t.ty) {
                Some(Type::Struct(bs)) => fields.extend(self.types.strukt(bs).fields.iter().cloned()),
                Some(Type::Void) => ok = false,
                Some(other) => {
                    let t = self.type_name(other);
                    self.emit(err("E0206", format!("`{t}` cannot be a base: only structs can be inherited"), b.span, "not a struct"));
                    ok = false;
                }
                None => {
                    self.emit(err("E0203", format!("unknown base struct `{}`", b.name), b.span, "not a type"));
                    ok = false;
                }
            }
        }
        for v in &s.fields {
            let major = types::major_of(&v.qualifiers);
            for (q, span) in &v.qualifiers {
                self.saw_precise |= *q == ast::Qualifier::Precise;
                if !matches!(q, ast::Qualifier::RowMajor | ast::Qualifier::ColumnMajor | ast::Qualifier::Other(_) | ast::Qualifier::Precise)
                {
                    self.emit(err("E0206", "this qualifier is not allowed on a struct field", *span, "not allowed here"));
                }
            }
            let Some(base) = self.resolve_type(&v.ty) else {
                ok = false;
                continue;
            };
            if base == Type::Void {
                self.emit(err("E0243", "a struct field cannot have type void", v.ty.span, "void"));
                ok = false;
                continue;
            }
            for d in &v.declarators {
                if let Some(init) = &d.init {
                    self.emit(err("E0206", "struct fields cannot have an initializer", init.span(), "initializer"));
                }
                let Some(ty) = self.array_type(base, &d.dims, false) else {
                    ok = false;
                    continue;
                };
                if let Some(prev) = fields.iter().find(|f| f.name == d.name.name) {
                    let prev = prev.span;
                    self.emit(
                        err("E0202", format!("field `{}` is declared twice", d.name.name), d.name.span, "redeclared here")
                            .with_label(prev, "first declared here"),
                    );
                    continue;
                }
                fields.push(Field {
                    name: d.name.name.clone(),
                    ty,
                    major: major.or(self.type_major(&v.ty)),
                    offset: None,
                    span: d.name.span,
                });
            }
        }
        if !ok {
            if let Some(n) = &s.name {
                // Keep the name resolvable so that uses stay silent.
                self.type_names.entry(n.name.clone()).or_insert(NamedType { ty: Type::Void, major: None });
            }
            return None;
        }
        let forward = s.name.as_ref().and_then(|n| self.forward_structs.remove(&n.name));
        let def = StructDef { name: name.clone(), fields, span: s.span };
        let id = match forward {
            Some(id) => {
                self.types.structs[id.0 as usize] = def;
                id
            }
            None => {
                self.types.structs.push(def);
                StructId(self.types.structs.len() as u32 - 1)
            }
        };
        let ty = Type::Struct(id);
        if let (Some(n), None) = (&s.name, forward) {
            if self.type_names.contains_key(&n.name) {
                self.emit(err("E0202", format!("type `{}` is declared twice", n.name), n.span, "redeclared here"));
            } else {
                self.type_names.insert(n.name.clone(), NamedType { ty, major: None });
            }
        }
        // Member functions: the base's, analysed again for this struct (its fields are a
        // prefix of ours) but still resolving names as in the base (no virtual calls),
        // then our own, which hide the base's of the same name.
        let mut methods: Vec<(StructId, ast::Function)> = Vec::new();
        if let Some(Some(Type::Struct(bs))) = s.base.as_ref().map(|b| self.type_names.get(&b.name).map(|t| t.ty)) {
            self.struct_base.insert(id, bs);
            methods.extend(self.struct_methods.get(&bs).into_iter().flatten().cloned());
        }
        methods.extend(s.methods.iter().map(|m| (id, m.clone())));
        self.own_methods.insert(id, s.methods.iter().map(|m| m.name.name.clone()).collect());
        self.struct_methods.insert(id, methods.clone());
        // Signatures first (a member function may call one declared after it), then bodies.
        for (origin, m) in &methods {
            self.function_in(&ast::Function { body: None, ..m.clone() }, Some((id, *origin)));
        }
        for (origin, m) in methods.iter().filter(|(_, m)| m.body.is_some()) {
            self.function_in(m, Some((id, *origin)));
        }
        Some(ty)
    }

    /// `struct S;`: S names a struct now (usable in declarations), defined later.
    fn struct_forward(&mut self, n: &ast::Ident) {
        if self.type_names.contains_key(&n.name) {
            return;
        }
        let id = StructId(self.types.structs.len() as u32);
        self.types.structs.push(StructDef { name: n.name.clone(), fields: Vec::new(), span: n.span });
        self.type_names.insert(n.name.clone(), NamedType { ty: Type::Struct(id), major: None });
        self.forward_structs.insert(n.name.clone(), id);
    }

    /// `R S::f(...) { ... }`: the body of member function `f` that struct `S`
    /// declares (a prototype in the struct), for S and every struct derived from it.
    fn member_def(&mut self, owner: &ast::Ident, f: &ast::Function) {
        let Some(Type::Struct(sid)) = self.type_names.get(&owner.name).map(|t| t.ty) else {
            self.emit(err("E0203", format!("`{}` is not a struct", owner.name), owner.span, "not a struct"));
            return;
        };
        let proto = self.struct_methods.get(&sid).and_then(|ms| {
            ms.iter().find(|(origin, m)| *origin == sid && m.name.name == f.name.name && m.params.len() == f.params.len()).cloned()
        });
        let Some((_, proto)) = proto else {
            self.emit(
                err("E0201", format!("struct `{}` declares no member function `{}`", owner.name, f.name.name), f.name.span, "not declared")
                    .with_note("declare it inside the struct first"),
            );
            return;
        };
        // `static` is written on the declaration only.
        let def = ast::Function { qualifiers: proto.qualifiers.clone(), ..f.clone() };
        let users: Vec<StructId> = self
            .struct_methods
            .iter()
            .filter(|(_, ms)| ms.iter().any(|(origin, m)| *origin == sid && m.name.name == f.name.name))
            .map(|(obj, _)| *obj)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        // Structs derived from S later inherit the definition.
        for ms in self.struct_methods.values_mut() {
            for (origin, m) in ms.iter_mut() {
                if *origin == sid && m.name.name == f.name.name && m.params.len() == f.params.len() && m.body.is_none() {
                    m.body = def.body.clone();
                }
            }
        }
        for obj in users {
            self.function_in(&def, Some((obj, sid)));
        }
    }

    fn typedef(&mut self, t: &ast::Typedef) {
        let base = self.resolve_type(&t.ty);
        let major = self.type_major(&t.ty);
        for d in &t.declarators {
            let ty = base.and_then(|b| self.array_type(b, &d.dims, false));
            if self.type_names.contains_key(&d.name.name) {
                self.emit(err("E0202", format!("type `{}` is declared twice", d.name.name), d.name.span, "redeclared here"));
                continue;
            }
            // A failed typedef stays known (as void) so that its uses stay silent.
            self.type_names.insert(d.name.name.clone(), NamedType { ty: ty.unwrap_or(Type::Void), major });
        }
    }
}
