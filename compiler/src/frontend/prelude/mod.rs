//! The stdlib prelude: intrinsics written in HLSL (`stdlib/wavec_intrinsics.hlsl`),
//! instantiated for every type they apply to.
//!
//! The file's `//@for TYPES ... //@end` blocks are a tiny template form (see
//! the file's header and [`template`]). The build script expands them for
//! both 16-bit modes and indexes the expanded text by function name
//! (`OUT_DIR/prelude_*.hlsl`, `OUT_DIR/prelude_tables.rs`), so nothing of it
//! is prepared at run time. A compilation parses only the definitions its
//! program can reach ([`reachable`]): those named by a word of the program
//! (`lerp` reaches every `__wavec_lerp`; names compare in ASCII lower case,
//! as sema's case hints do), then those their bodies name, transitively.
//! Each definition is lexed at its own offset in the expanded text, so its
//! spans are the ones a parse of the whole text gives (a test checks the
//! selection of everything against that parse). Sema declares them before the
//! user's code, marked as stdlib, analyses the bodies of the ones a kernel
//! calls, and only those are inlined. Functions no word of the program names
//! cannot take part in its name lookup, overload resolution or diagnostics,
//! so leaving them out changes nothing but the time (22 ms of CPU for a
//! one-line kernel when the whole prelude was parsed and declared; see
//! docs/design-notes.md, "Compile time").

// The build script uses all of it; the compiler reads the word rules and tests the rest.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod template;

use super::ast;
use super::lexer::{LexError, Lexer, Tok};

/// The prelude's file name in `stdlib/`.
pub const PRELUDE_FILE: &str = "wavec_intrinsics.hlsl";

/// The expanded prelude of one 16-bit mode and its index (written by the build script).
struct Table {
    text: &'static str,
    /// Each definition's byte range in `text`.
    items: &'static [(u32, u32)],
    /// Sorted by key ([`template::key`]): the definitions of each name, in text order.
    names: &'static [(&'static str, &'static [u32])],
    /// Per definition, the others its words reach.
    deps: &'static [&'static [u32]],
}

include!(concat!(env!("OUT_DIR"), "/prelude_tables.rs"));

fn table(native_16bit: bool) -> &'static Table {
    if native_16bit {
        &NATIVE16
    } else {
        &PLAIN
    }
}

impl Table {
    fn lookup(&self, key: &str) -> &'static [u32] {
        match self.names.binary_search_by(|(n, _)| (*n).cmp(key)) {
            Ok(at) => self.names[at].1,
            Err(_) => &[],
        }
    }

    /// The definitions the words of `program` reach, transitively, in text order.
    fn closure(&self, program: &str) -> Vec<u32> {
        let mut want = vec![false; self.items.len()];
        let mut stack: Vec<u32> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for w in template::words(program) {
            if !seen.insert(w) {
                continue;
            }
            for k in template::keys_of_word(w) {
                for &i in self.lookup(&k) {
                    if !std::mem::replace(&mut want[i as usize], true) {
                        stack.push(i);
                    }
                }
            }
        }
        while let Some(i) = stack.pop() {
            for &d in self.deps[i as usize] {
                if !std::mem::replace(&mut want[d as usize], true) {
                    stack.push(d);
                }
            }
        }
        (0..self.items.len() as u32).filter(|&i| want[i as usize]).collect()
    }

    /// Parses definitions `ids` (in text order) as one translation unit, each
    /// token at its offset in the whole expanded text.
    fn parse(&self, ids: &[u32]) -> ast::TranslationUnit {
        let mut toks: Vec<Result<(usize, Tok<'static>, usize), LexError>> = Vec::new();
        for &i in ids {
            let (start, end) = self.items[i as usize];
            let (start, end) = (start as usize, end as usize);
            for t in Lexer::new(&self.text[start..end]) {
                toks.push(t.map(|(l, tok, r)| (l + start, tok, r + start)));
            }
        }
        super::grammar::TranslationUnitParser::new()
            .parse(toks)
            .unwrap_or_else(|e| panic!("the stdlib prelude does not parse (a compiler bug): {e:?}"))
    }
}

/// The prelude definitions that preprocessed `program` text can reach, parsed.
pub fn reachable(native_16bit: bool, program: &str) -> ast::TranslationUnit {
    let t = table(native_16bit);
    t.parse(&t.closure(program))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    const SOURCE: &str = include_str!("../../../../stdlib/wavec_intrinsics.hlsl");

    #[test]
    fn the_build_scripts_tables_are_the_expanded_prelude() {
        for native in [false, true] {
            let text = template::expand(SOURCE, native);
            assert!(text.lines().filter(|l| !l.trim_start().starts_with("//")).all(|l| !l.contains('$')), "unexpanded placeholder");
            assert!(text.contains("float3 __wavec_cross(float3 a, float3 b)"));
            assert_eq!(text.contains("half2 __wavec_lerp"), native);
            let t = table(native);
            assert_eq!(t.text, text);
            let index = template::Index::new(&text).unwrap();
            let items: Vec<(u32, u32)> = index.items.iter().map(|i| (i.start as u32, i.end as u32)).collect();
            assert_eq!(t.items, items.as_slice());
            assert_eq!(t.names.len(), index.names.len());
            assert_eq!(t.deps.len(), index.deps.len());
        }
    }

    /// Every definition, selected, parses to exactly what preprocessing and
    /// parsing the whole expanded text gives, spans included.
    #[test]
    fn selecting_everything_parses_as_the_whole_text() {
        for native in [false, true] {
            let t = table(native);
            let file = SourceFile::new("<wavec stdlib>", t.text);
            let whole = crate::frontend::parse(&file).unwrap_or_else(|d| panic!("{}", crate::diag::render(&file, &d)));
            let all: Vec<u32> = (0..t.items.len() as u32).collect();
            let selected = t.parse(&all);
            assert_eq!(selected.items.len(), whole.items.len());
            assert!(selected == whole, "the selected definitions differ from the whole text's");
        }
    }

    fn names(tu: &ast::TranslationUnit) -> Vec<String> {
        let mut v: Vec<String> = tu
            .items
            .iter()
            .map(|i| match i {
                ast::Item::Function(f) => f.name.name.clone(),
                other => panic!("not a function: {other:?}"),
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn a_program_reaches_what_it_names_and_what_that_calls() {
        // Nothing named: nothing parsed.
        assert!(reachable(false, "[numthreads(1,1,1)] void main() {}").items.is_empty());
        // atan2 calls atan; every overload of each comes (overload resolution sees them all).
        let tu = reachable(false, "float f(float y) { return atan2(y, 2); }");
        assert_eq!(names(&tu), vec!["__wavec_atan", "__wavec_atan2"]);
        assert_eq!(tu.items.len(), 2 * 20);
        // Words differing by case reach too (sema's "names are case-sensitive" hint lists them).
        assert_eq!(names(&reachable(false, "LERP")), vec!["__wavec_lerp"]);
        // The internal name itself, and words in any position (a macro's expansion is text).
        assert_eq!(names(&reachable(true, "x = __wavec_cross;")), vec!["__wavec_cross"]);
        assert_eq!(reachable(true, "cross").items.len(), 2);
        // Numbers are not words.
        assert!(reachable(false, "1e5 0x1F 2.5f").items.is_empty());
    }
}
