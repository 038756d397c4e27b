//! The shipped `stdlib/` headers, embedded in the binary so that wavec works
//! from any directory. Searched last by `#include` (a `-I` directory can
//! shadow a header). A new header needs a line here; a unit test checks that
//! every header in `stdlib/` is listed. (`wavec_intrinsics.hlsl` is not a
//! header: it is the prelude compiled with every kernel, see `frontend::prelude`.)

/// `(path relative to stdlib/, text)`, sorted by path.
pub const FILES: &[(&str, &str)] = &[("limits.hlsli", include_str!("../../../../stdlib/limits.hlsli"))];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every header in stdlib/ (recursively) is embedded, with its current text.
    #[test]
    fn every_header_is_embedded() {
        fn walk(dir: &std::path::Path, prefix: &str, out: &mut Vec<String>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir).expect("stdlib/ exists").filter_map(|e| e.ok()).collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let name = format!("{prefix}{}", e.file_name().to_string_lossy());
                if e.path().is_dir() {
                    walk(&e.path(), &format!("{name}/"), out);
                } else if !name.ends_with(".md") && name != crate::frontend::PRELUDE_FILE {
                    out.push(name);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../stdlib");
        let mut on_disk = Vec::new();
        walk(&root, "", &mut on_disk);
        let embedded: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(embedded, on_disk, "list every stdlib/ header in preprocess/stdlib.rs, sorted");
        for (n, text) in FILES {
            assert_eq!(std::fs::read_to_string(root.join(n)).unwrap(), *text, "{n}");
        }
    }
}
