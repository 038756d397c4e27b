//! The prelude's template form and its index, shared by the build script
//! (`compiler/build.rs` includes this file) and the compiler: only `std`.
//!
//! `stdlib/wavec_intrinsics.hlsl` writes each intrinsic once per family of
//! types between `//@for FAMILY` and `//@end` ([`expand`] instantiates them).
//! The expanded text is a list of function definitions; [`split_items`]
//! finds each one's extent and name, and [`Index`] keys them by name, so
//! that a compilation parses only the definitions its program can reach
//! ([`words`] of the program, then of the definitions found, transitively).

/// One instantiation type: the type, its scalar, int and bool types of the same shape, its size.
struct Inst {
    t: String,
    s: &'static str,
    i: String,
    b: String,
    n: u32,
}

fn shapes(scalars: &[&'static str], int_of: &dyn Fn(&str) -> &'static str, dims: &[u32]) -> Vec<Inst> {
    let mut out = Vec::new();
    for &s in scalars {
        for &n in dims {
            let suffix = if n == 1 { String::new() } else { n.to_string() };
            out.push(Inst { t: format!("{s}{suffix}"), s, i: format!("{}{suffix}", int_of(s)), b: format!("bool{suffix}"), n });
        }
    }
    out
}

/// `S1x1` .. `S4x4` for each scalar.
fn matrices(scalars: &[&'static str], int_of: &dyn Fn(&str) -> &'static str) -> Vec<Inst> {
    let mut out = Vec::new();
    for &s in scalars {
        for r in 1..=4 {
            for c in 1..=4 {
                let shape = format!("{r}x{c}");
                out.push(Inst { t: format!("{s}{shape}"), s, i: format!("{}{shape}", int_of(s)), b: format!("bool{shape}"), n: r * c });
            }
        }
    }
    out
}

fn family(name: &str, native_16bit: bool) -> Vec<Inst> {
    let floats: &[&'static str] = if native_16bit { &["float", "half"] } else { &["float"] };
    let ints: &[&'static str] = if native_16bit { &["int", "int16_t", "int64_t"] } else { &["int", "int64_t"] };
    let uints: &[&'static str] = if native_16bit { &["uint", "uint16_t", "uint64_t"] } else { &["uint", "uint64_t"] };
    let int_of = |_: &str| "int";
    let int_keep16 = |s: &str| if s.ends_with("16_t") { "int16_t" } else { "int" };
    let with_matrices = |mut v: Vec<Inst>, m: Vec<Inst>| {
        v.extend(m);
        v
    };
    match name {
        "FLOATS" => shapes(floats, &int_of, &[1, 2, 3, 4]),
        "FLOAT_SHAPES" => with_matrices(shapes(floats, &int_of, &[1, 2, 3, 4]), matrices(floats, &int_of)),
        "INT_SHAPES" => with_matrices(shapes(ints, &int_keep16, &[1, 2, 3, 4]), matrices(ints, &int_keep16)),
        "UINT_SHAPES" => with_matrices(shapes(uints, &int_keep16, &[1, 2, 3, 4]), matrices(uints, &int_keep16)),
        "FLOAT3" => shapes(floats, &int_of, &[3]),
        "FLOAT_SCALARS" => shapes(floats, &int_of, &[1]),
        "DOUBLE_SHAPES" => with_matrices(shapes(&["double"], &int_of, &[1, 2, 3, 4]), matrices(&["double"], &int_of)),
        // $I is the uint type of the same shape here.
        "DOUBLE_SHAPES_U" => {
            let uint_of = |_: &str| "uint";
            with_matrices(shapes(&["double"], &uint_of, &[1, 2, 3, 4]), matrices(&["double"], &uint_of))
        }
        "INTS" => shapes(&ints[..ints.len() - 1], &|s| if s == "int16_t" { "int16_t" } else { "int" }, &[1, 2, 3, 4]),
        _ => Vec::new(),
    }
}

/// The prelude's HLSL (`source`) with every template block instantiated.
pub fn expand(source: &str, native_16bit: bool) -> String {
    let mut out = String::new();
    let mut block: Option<(String, Vec<&str>)> = None;
    for line in source.lines() {
        if let Some(name) = line.strip_prefix("//@for ") {
            block = Some((name.trim().to_string(), Vec::new()));
            out.push('\n');
            continue;
        }
        if line.starts_with("//@end") {
            if let Some((name, lines)) = block.take() {
                for inst in family(&name, native_16bit) {
                    for l in &lines {
                        out.push_str(
                            &l.replace("$T", &inst.t)
                                .replace("$S", inst.s)
                                .replace("$I", &inst.i)
                                .replace("$B", &inst.b)
                                .replace("$N", &inst.n.to_string()),
                        );
                        out.push(' ');
                    }
                    out.push(' ');
                }
            }
            out.push('\n');
            continue;
        }
        match &mut block {
            Some((_, lines)) => {
                // Comments inside a block would swallow the joined line: drop them.
                let code = line.split("//").next().unwrap_or("");
                lines.push(code);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// A function definition of the expanded text: its name and byte range
/// (from its first token to its closing brace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

/// The top-level items of the expanded text, in order. Every item must be a
/// function definition (`TYPE NAME(...) { ... }`), and the text must hold
/// nothing the preprocessor would change but `//` comments (no directives,
/// no block comments): then each item parses alone, at its own offsets, as
/// it parses in the whole text. Anything else is an error naming the offset.
pub fn split_items(text: &str) -> Result<Vec<Item>, String> {
    let b = text.as_bytes();
    let mut items = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut name: Option<String> = None;
    let mut last_word: Option<(usize, usize)> = None;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if (c == b'/' && b.get(i + 1) == Some(&b'*')) || c == b'#' || c == b'"' || c == b'\\' {
            return Err(format!("offset {i}: the prelude may not hold block comments, directives, strings or line continuations"));
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if depth == 0 && start.is_none() {
            start = Some(i);
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            last_word = Some((s, i));
            continue;
        }
        match c {
            b'(' if depth == 0 && name.is_none() => {
                let Some((s, e)) = last_word else { return Err(format!("offset {i}: `(` without a function name")) };
                name = Some(text[s..e].to_string());
                depth += 1;
            }
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1).ok_or(format!("offset {i}: unbalanced `{}`", c as char))?,
            b'}' => {
                depth = depth.checked_sub(1).ok_or(format!("offset {i}: unbalanced `}}`"))?;
                if depth == 0 {
                    let (Some(s), Some(n)) = (start.take(), name.take()) else {
                        return Err(format!("offset {i}: a braced item that is not a function definition"));
                    };
                    items.push(Item { name: n, start: s, end: i + 1 });
                }
            }
            b';' if depth == 0 => return Err(format!("offset {i}: only function definitions may be in the prelude")),
            _ => {}
        }
        i += 1;
    }
    if start.is_some() || depth != 0 {
        return Err("the prelude ends inside an item".to_string());
    }
    Ok(items)
}

/// The identifiers of `text` (runs of letters, digits and `_` that do not
/// start with a digit, so numbers such as `1e5` or `0x1F` are skipped).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if !b[s].is_ascii_digit() {
                    return Some(&text[s..i]);
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// The keys under which item names are found: a name in ASCII lower case
/// (sema's "names are case-sensitive" hints compare names case-insensitively,
/// so an item whose name differs from a program's word only by case is one
/// it can reach). A word `w` reaches the items keyed `w` and `__wavec_w`
/// (the stdlib intrinsics' internal names).
pub fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The keys a word of a program reaches (see [`key`]).
pub fn keys_of_word(word: &str) -> [String; 2] {
    let k = key(word);
    let internal = format!("__wavec_{k}");
    [k, internal]
}

/// The items keyed by name, with what each one's text reaches.
pub struct Index {
    pub items: Vec<Item>,
    /// Sorted by key: the items of each key, in text order.
    pub names: Vec<(String, Vec<u32>)>,
    /// Per item, the other items its words reach (sorted, without itself).
    pub deps: Vec<Vec<u32>>,
}

impl Index {
    pub fn new(text: &str) -> Result<Index, String> {
        let items = split_items(text)?;
        let mut map: std::collections::BTreeMap<String, Vec<u32>> = std::collections::BTreeMap::new();
        for (k, it) in items.iter().enumerate() {
            map.entry(key(&it.name)).or_default().push(k as u32);
        }
        let names: Vec<(String, Vec<u32>)> = map.into_iter().collect();
        let lookup = |k: &str| names.binary_search_by(|(n, _)| n.as_str().cmp(k)).ok().map(|at| &names[at].1);
        let deps = items
            .iter()
            .enumerate()
            .map(|(me, it)| {
                let mut d: Vec<u32> = words(&text[it.start..it.end])
                    .flat_map(|w| keys_of_word(w).into_iter().filter_map(|k| lookup(&k).cloned()).flatten().collect::<Vec<_>>())
                    .filter(|&x| x != me as u32)
                    .collect();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        Ok(Index { items, names, deps })
    }
}
