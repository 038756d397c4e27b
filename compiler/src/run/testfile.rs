//! Loading tests: `.test` files in LLVM `split-file` form, or a pipeline and a
//! source given as two files.
//!
//! A `.test` file is cut at lines `#--- NAME` (also `//--- NAME`); `#--- end`
//! ends the last section and everything after it is ignored. Lines before the
//! first marker (comments, `RUN:` lines) are kept as the preamble. The section
//! whose name ends in `.hlsl` (or `.compute`, a Unity file: HLSL 2018 rules
//! unless a RUN line gives `-HV`) is the source and the one ending in `.yaml`/`.yml`
//! the pipeline (`source.hlsl` and `pipeline.yaml` win if there are several).
//! Like `split-file --leading-lines`, each section is padded with blank lines
//! so that line numbers in diagnostics are line numbers of the `.test` file.
//!
//! The other sections are files the source can `#include` by their section
//! name, as in the offload test suite, where `split-file --leading-lines`
//! writes them next to each other: `"NAME"` finds them first, `<NAME>` after
//! the `-I` directories (the suite compiles with `-I` on that directory).
//! They are named by their section name and padded like the source, so a
//! diagnostic in one says `common.hlsli:14` for line 14 of the `.test` file.
//! Quoted includes not found among them look next to the `.test` file.

use std::path::{Path, PathBuf};

use super::RunError;
use crate::diag::SourceFile;
use crate::source::Input;

/// A pipeline test: the HLSL source and the pipeline description, not yet parsed.
#[derive(Clone, Debug)]
pub struct PipelineTest {
    /// The `.test` file, or the pipeline file when given separately.
    pub name: String,
    /// Lines before the first `#---` marker (comments, RUN lines), verbatim.
    pub preamble: String,
    /// The HLSL source. Its name is the file diagnostics should mention.
    pub source: SourceFile,
    /// The other sections, as `(section name, text)`, for `#include`.
    pub includes: Vec<(String, SourceFile)>,
    /// Where the test lives: quoted includes not found among the sections look there.
    pub dir: Option<PathBuf>,
    /// Name of the pipeline section or file.
    pub pipeline_name: String,
    /// The pipeline YAML text.
    pub pipeline_text: String,
    /// Compiler flags from the file's `RUN:` lines.
    pub flags: super::flags::RunFlags,
    /// The source is a Unity `.compute` file (by its section or file name).
    pub unity_compute: bool,
}

/// One `split-file` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    /// 1-based line, in the whole file, of the section's first content line.
    pub first_line: u32,
    pub text: String,
}

fn marker(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("#--- ").or_else(|| line.strip_prefix("//--- "))?;
    let name = rest.trim();
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

/// Splits `text` into its preamble and sections.
pub fn split_file(text: &str) -> Result<(String, Vec<Section>), RunError> {
    let mut preamble = String::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut current: Option<Section> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let lineno = i as u32 + 1;
        if let Some(name) = marker(line.trim_end_matches(['\n', '\r'])) {
            sections.extend(current.take());
            if name == "end" {
                break;
            }
            if sections.iter().any(|s| s.name == name) {
                return Err(RunError::invalid(format!("line {lineno}: section `{name}` appears twice")));
            }
            current = Some(Section { name: name.to_string(), first_line: lineno + 1, text: String::new() });
            continue;
        }
        match &mut current {
            // A section may start with a byte order mark, as the file split-file writes would.
            Some(s) if s.text.is_empty() => s.text.push_str(line.strip_prefix('\u{feff}').unwrap_or(line)),
            Some(s) => s.text.push_str(line),
            None if sections.is_empty() => preamble.push_str(line),
            None => {}
        }
    }
    sections.extend(current);
    Ok((preamble, sections))
}

fn pick<'a>(sections: &'a [Section], preferred: &str, exts: &[&str], what: &str, file: &str) -> Result<&'a Section, RunError> {
    if let Some(s) = sections.iter().find(|s| s.name == preferred) {
        return Ok(s);
    }
    let found: Vec<&Section> = sections.iter().filter(|s| exts.iter().any(|e| s.name.ends_with(e))).collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(RunError::invalid(format!("{file}: no {what} section (`#--- {preferred}`)"))),
        _ => Err(RunError::invalid(format!(
            "{file}: several {what} sections ({}); name one `{preferred}` or give the files separately",
            found.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Pads `text` with blank lines so that its first line is line `first_line`.
fn pad(text: &str, first_line: u32) -> String {
    let mut s = "\n".repeat(first_line.saturating_sub(1) as usize);
    s.push_str(text);
    s
}

/// Parses the text of a `.test` file called `name`.
pub fn parse_test_text(name: &str, text: &str) -> Result<PipelineTest, RunError> {
    let (preamble, sections) = split_file(text)?;
    if sections.is_empty() {
        return Err(RunError::invalid(format!("{name}: no `#--- source.hlsl` / `#--- pipeline.yaml` sections")));
    }
    let src = pick(&sections, "source.hlsl", &[".hlsl", ".hlsli", ".compute"], "HLSL source", name)?;
    let yaml = pick(&sections, "pipeline.yaml", &[".yaml", ".yml"], "pipeline", name)?;
    let includes = sections
        .iter()
        .filter(|s| s.name != src.name && s.name != yaml.name)
        .map(|s| (s.name.clone(), SourceFile::new(s.name.clone(), pad(&s.text, s.first_line))))
        .collect();
    Ok(PipelineTest {
        name: name.to_string(),
        preamble,
        source: SourceFile::new(name, pad(&src.text, src.first_line)),
        includes,
        dir: None,
        pipeline_name: format!("{name}:{}", yaml.name),
        pipeline_text: pad(&yaml.text, yaml.first_line),
        flags: super::flags::test_flags(text),
        unity_compute: crate::source::is_unity_compute_name(&src.name),
    })
}

impl PipelineTest {
    /// What to compile: the source, with the other sections and the test's
    /// directory to include from.
    pub fn input(&self) -> Input {
        Input {
            main: self.source.clone(),
            path: None,
            dir: self.dir.clone(),
            files: self.includes.clone(),
            unity_compute: self.unity_compute,
        }
    }
}

/// Reads and decodes a regular file of at most `max_bytes` (UTF-8, UTF-16 with a BOM, or Latin-1).
fn read(path: &Path, max_bytes: u64) -> Result<String, RunError> {
    crate::source::read_file_limited(path, path.display().to_string(), max_bytes).map(|f| f.text).map_err(|d| {
        let notes: String = d.notes.iter().map(|n| format!(" ({n})")).collect();
        RunError::invalid(format!("[{}] {}{notes}", d.code, d.message))
    })
}

/// Loads a `.test` file (of at most the default `file-size` limit).
pub fn load_test_file(path: &Path) -> Result<PipelineTest, RunError> {
    load_test_file_limited(path, crate::limits::Limits::default().file_bytes)
}

/// [`load_test_file`] of a file of at most `max_bytes`.
pub fn load_test_file_limited(path: &Path, max_bytes: u64) -> Result<PipelineTest, RunError> {
    let mut t = parse_test_text(&path.display().to_string(), &read(path, max_bytes)?)?;
    t.dir = Some(path.parent().map(Path::to_path_buf).unwrap_or_default());
    Ok(t)
}

/// Loads a pipeline and its HLSL source given as two files (each of at most the default `file-size` limit).
pub fn load_pair(yaml_path: &Path, hlsl_path: &Path) -> Result<PipelineTest, RunError> {
    load_pair_limited(yaml_path, hlsl_path, crate::limits::Limits::default().file_bytes)
}

/// [`load_pair`] of files of at most `max_bytes` each.
pub fn load_pair_limited(yaml_path: &Path, hlsl_path: &Path, max_bytes: u64) -> Result<PipelineTest, RunError> {
    let yaml = read(yaml_path, max_bytes)?;
    let hlsl = read(hlsl_path, max_bytes)?;
    Ok(PipelineTest {
        name: yaml_path.display().to_string(),
        preamble: String::new(),
        source: SourceFile::new(hlsl_path.display().to_string(), hlsl),
        includes: Vec::new(),
        dir: Some(hlsl_path.parent().map(Path::to_path_buf).unwrap_or_default()),
        pipeline_name: yaml_path.display().to_string(),
        pipeline_text: yaml,
        flags: Default::default(),
        unity_compute: crate::source::is_unity_compute_name(&hlsl_path.to_string_lossy()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str = "# RUN: split-file %s %t\n# RUN: %offloader %t/pipeline.yaml %t/source.hlsl\n\n#--- source.hlsl\n[numthreads(1,1,1)]\nvoid main() {}\n#--- pipeline.yaml\n---\nShaders: []\n...\n#--- end\n\n# CHECK: ignored\n";

    #[test]
    fn splits_sections_and_keeps_preamble() {
        let (pre, s) = split_file(TEST).unwrap();
        assert_eq!(pre, "# RUN: split-file %s %t\n# RUN: %offloader %t/pipeline.yaml %t/source.hlsl\n\n");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0], Section { name: "source.hlsl".into(), first_line: 5, text: "[numthreads(1,1,1)]\nvoid main() {}\n".into() });
        assert_eq!(s[1].name, "pipeline.yaml");
        assert_eq!(s[1].first_line, 8);
        assert_eq!(s[1].text, "---\nShaders: []\n...\n");
    }

    #[test]
    fn test_text_lines_match_the_file() {
        let t = parse_test_text("x.test", TEST).unwrap();
        assert_eq!(t.source.line_text(5), "[numthreads(1,1,1)]");
        assert_eq!(t.source.line_text(6), "void main() {}");
        assert_eq!(t.source.name, "x.test");
        assert_eq!(t.pipeline_text.lines().nth(7), Some("---"));
        assert!(!t.pipeline_text.contains("CHECK"));
        assert_eq!(t.pipeline_name, "x.test:pipeline.yaml");
    }

    #[test]
    fn other_section_names_and_comment_styles() {
        let text = "//--- kernel.hlsl\nA\n//--- p.yml\nB\n";
        let t = parse_test_text("y.test", text).unwrap();
        assert_eq!(t.source.text.trim(), "A");
        assert_eq!(t.pipeline_text.trim(), "B");
        // No end marker: the last section runs to the end of the file.
        let (_, s) = split_file("#--- a.hlsl\nx\ny").unwrap();
        assert_eq!(s[0].text, "x\ny");
        let (_, s) = split_file("#--- a.hlsl\n\u{feff}x\n").unwrap();
        assert_eq!(s[0].text, "x\n");
    }

    #[test]
    fn missing_or_ambiguous_sections_are_errors() {
        assert!(parse_test_text("a", "just text\n").unwrap_err().message.contains("no `#--- source.hlsl`"));
        assert!(parse_test_text("a", "#--- source.hlsl\nx\n").unwrap_err().message.contains("no pipeline section"));
        let two = "#--- s.hlsl\nx\n#--- a.yaml\n#--- b.yaml\n";
        let e = parse_test_text("a", two).unwrap_err();
        assert!(e.message.contains("several pipeline sections (a.yaml, b.yaml)"), "{}", e.message);
        assert_eq!(e.exit_code, 2);
        let dup = "#--- s.hlsl\nx\n#--- s.hlsl\n";
        assert!(split_file(dup).unwrap_err().message.contains("twice"));
        // With several, the conventional names win.
        let t = parse_test_text("a", "#--- s.hlsl\nx\n#--- a.yaml\nA\n#--- pipeline.yaml\nP\n#--- source.hlsl\nS\n").unwrap();
        assert_eq!((t.source.text.trim(), t.pipeline_text.trim()), ("S", "P"));
    }

    #[test]
    fn other_sections_are_includable() {
        let text = "#--- source.hlsl\n#include \"common.hlsli\"\n#--- common.hlsli\n#define N 4\n#--- pipeline.yaml\nP\n";
        let t = parse_test_text("z.test", text).unwrap();
        assert_eq!(t.includes.len(), 1);
        let (key, file) = &t.includes[0];
        assert_eq!((key.as_str(), file.name.as_str()), ("common.hlsli", "common.hlsli"));
        // Padded: line 4 of the .test file is line 4 of the section.
        assert_eq!(file.line_text(4), "#define N 4");
        assert_eq!(t.input().files.len(), 1);
    }

    #[test]
    fn loads_files() {
        let dir = std::env::temp_dir().join(format!("wavec-run-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (y, h, t) = (dir.join("p.yaml"), dir.join("s.hlsl"), dir.join("t.test"));
        std::fs::write(&y, "Y\n").unwrap();
        std::fs::write(&h, "H\n").unwrap();
        std::fs::write(&t, TEST).unwrap();
        let p = load_pair(&y, &h).unwrap();
        assert_eq!((p.pipeline_text.as_str(), p.source.text.as_str()), ("Y\n", "H\n"));
        assert!(p.source.name.ends_with("s.hlsl"));
        assert_eq!(load_test_file(&t).unwrap().source.line_text(6), "void main() {}");
        let e = load_test_file(&dir.join("missing.test")).unwrap_err();
        assert_eq!(e.exit_code, 2);
        assert!(e.message.contains("cannot read"));
        // Latin-1 sources load too.
        std::fs::write(&h, b"// caf\xE9\r\n").unwrap();
        assert_eq!(load_pair(&y, &h).unwrap().source.text, "// caf\u{e9}\r\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}
