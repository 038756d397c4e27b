//! The pipeline description (`pipeline.yaml`): the serde schema as the LLVM
//! offload-test-suite writes it, and the checked model the runner uses.
//!
//! Unknown YAML keys are ignored (no `deny_unknown_fields`); unknown stages,
//! formats, resource kinds and rules are *unsupported* (exit 77), not errors.

use serde::Deserialize;

use super::format::Format;
use super::RunError;
use crate::interface::Binding;

// ---- serde schema -------------------------------------------------------

#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "PascalCase")]
struct RawPipeline {
    #[serde(default)]
    shaders: Vec<RawShader>,
    dispatch_parameters: Option<RawDispatch>,
    #[serde(default)]
    buffers: Vec<RawBuffer>,
    #[serde(default)]
    results: Vec<RawResult>,
    #[serde(default)]
    descriptor_sets: Vec<RawSet>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawShader {
    stage: String,
    entry: Option<String>,
    dispatch_size: Option<Vec<u32>>,
    dispatch_parameters: Option<RawDispatch>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawDispatch {
    dispatch_group_count: Option<Vec<u32>>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawBuffer {
    name: String,
    format: String,
    stride: Option<u32>,
    /// Raw scalar texts (so `-0` keeps its sign and `nan` needs no quoting); a list of
    /// such lists for a resource array (`ArraySize` > 1).
    data: Option<RawData>,
    fill_size: Option<u64>,
    fill_value: Option<String>,
    /// Components per element of a typed-buffer view (default 1).
    channels: Option<u32>,
    /// Number of buffers of a resource array (default 1), each `Data` entry one of them.
    array_size: Option<u32>,
}

/// `Data:` of one buffer (scalars), or of every element of a resource array (lists).
type RawData = Vec<RawItem>;

/// One entry of `Data:`: a scalar's text, or a list of them.
#[derive(Debug)]
enum RawItem {
    Scalar(String),
    List(Vec<String>),
}

/// The text of a YAML scalar. serde_yaml reports a plain scalar that looks like a
/// number as a number; its text is rebuilt so that it means the same: integers in
/// decimal (a zero reported as negative was written `-0`, which matters to floats),
/// floats in the shortest form that reads back to the same value.
struct ScalarText(String);

struct ScalarVisitor;

impl<'de> serde::de::Visitor<'de> for ScalarVisitor {
    type Value = String;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<String, E> {
        // serde_yaml reads non-negative integers as u64: a zero here was `-0`.
        Ok(if v == 0 { "-0".to_string() } else { v.to_string() })
    }
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<String, E> {
        Ok(if v == 0 { "-0".to_string() } else { v.to_string() })
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<String, E> {
        Ok(format!("{v:?}"))
    }
}

impl<'de> Deserialize<'de> for ScalarText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor).map(ScalarText)
    }
}

struct ItemVisitor;

impl<'de> serde::de::Visitor<'de> for ItemVisitor {
    type Value = RawItem;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number or a list of numbers")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawItem, E> {
        ScalarVisitor.visit_str(v).map(RawItem::Scalar)
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<RawItem, E> {
        ScalarVisitor.visit_bool(v).map(RawItem::Scalar)
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RawItem, E> {
        ScalarVisitor.visit_u64(v).map(RawItem::Scalar)
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<RawItem, E> {
        ScalarVisitor.visit_u128(v).map(RawItem::Scalar)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RawItem, E> {
        ScalarVisitor.visit_i64(v).map(RawItem::Scalar)
    }
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<RawItem, E> {
        ScalarVisitor.visit_i128(v).map(RawItem::Scalar)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<RawItem, E> {
        ScalarVisitor.visit_f64(v).map(RawItem::Scalar)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawItem, A::Error> {
        let mut out = Vec::new();
        while let Some(ScalarText(t)) = seq.next_element()? {
            out.push(t);
        }
        Ok(RawItem::List(out))
    }
}

impl<'de> Deserialize<'de> for RawItem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawResult {
    result: String,
    rule: String,
    actual: String,
    expected: String,
    #[serde(rename = "ULPT")]
    ulpt: Option<u64>,
    epsilon: Option<f64>,
    denorm_mode: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawSet {
    #[serde(default)]
    resources: Vec<RawResource>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawResource {
    name: String,
    kind: String,
    /// A UAV counter (D3D's hidden counter of a structured buffer), one per array element.
    #[serde(default)]
    has_counter: bool,
    #[serde(rename = "DirectXBinding")]
    directx_binding: Option<RawDxBinding>,
    vulkan_binding: Option<RawVkBinding>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawDxBinding {
    register: u32,
    #[serde(default)]
    space: u32,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
struct RawVkBinding {
    binding: u32,
}

// ---- checked model ------------------------------------------------------

/// Where the dispatch size was written, so the output keeps the input's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DispatchStyle {
    /// `Shaders[0].DispatchSize` (older files).
    ShaderDispatchSize,
    /// Top-level `DispatchParameters: { DispatchGroupCount }`.
    TopLevel,
    /// `Shaders[0].DispatchParameters: { DispatchGroupCount }`.
    InShader,
    /// Not written: one workgroup, as the offloader defaults.
    Default,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    /// Always "Compute" (anything else is unsupported).
    pub stage: String,
    pub entry: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub format: Format,
    pub stride: Option<u32>,
    /// Contents, little-endian; for a resource array (`array_size` > 1), the
    /// buffers one after the other, all of the same size.
    pub data: Vec<u8>,
    /// `Channels:` components per typed-buffer element (the offloader's default is 1).
    pub channels: Option<u32>,
    /// `ArraySize:` how many buffers of `data.len() / array_size` bytes this is
    /// (a descriptor binding it covers that many consecutive registers).
    pub array_size: u32,
    /// UAV counter values, one per buffer of the array, once a run has read them
    /// back (printed as `Counter:` / `Counters:` as the offloader does); empty otherwise.
    pub counters: Vec<u32>,
}

impl Buffer {
    /// A copy without the contents (`data` empty).
    pub fn clone_without_data(&self) -> Buffer {
        Buffer {
            name: self.name.clone(),
            format: self.format,
            stride: self.stride,
            data: Vec::new(),
            channels: self.channels,
            array_size: self.array_size,
            counters: self.counters.clone(),
        }
    }

    /// Number of whole elements (of all buffers of an array).
    pub fn len(&self) -> usize {
        self.data.len() / self.format.size()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Bytes of one buffer of the array.
    pub fn element_bytes(&self) -> usize {
        self.data.len() / self.array_size.max(1) as usize
    }
    /// The bytes of array element `k`.
    pub fn element(&self, k: u32) -> &[u8] {
        let n = self.element_bytes();
        &self.data[k as usize * n..(k as usize + 1) * n]
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    BufferExact,
    BufferFloatULP { ulpt: u64 },
    BufferFloatEpsilon { epsilon: f64 },
}

impl Rule {
    pub fn name(&self) -> &'static str {
        match self {
            Rule::BufferExact => "BufferExact",
            Rule::BufferFloatULP { .. } => "BufferFloatULP",
            Rule::BufferFloatEpsilon { .. } => "BufferFloatEpsilon",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub name: String,
    pub rule: Rule,
    /// Indices into `Pipeline::buffers`.
    pub actual: usize,
    pub expected: usize,
    /// `DenormMode: Any` on a float rule: an expected denormal also matches a zero of
    /// its sign (the device may flush). `FTZ` and `Preserve` compare as written.
    pub denorm_any: bool,
}

/// Resource kinds the pipeline format names (the kernel interface's kinds).
pub use crate::interface::ResourceKind as DescriptorKind;

#[derive(Clone, Debug, PartialEq)]
pub struct Descriptor {
    /// Index into `Pipeline::buffers`.
    pub buffer: usize,
    pub kind: DescriptorKind,
    /// The HLSL register this resource binds to.
    pub binding: Binding,
    /// Whether `DirectXBinding` was written (else derived from `VulkanBinding`).
    pub directx_written: bool,
    pub vulkan_binding: Option<u32>,
    /// `HasCounter: true`: each buffer of the resource has a UAV counter, starting at 0.
    pub has_counter: bool,
}

impl Descriptor {
    /// The array element of this descriptor's buffer that register `b` names, if
    /// `b` lies in the range of registers the descriptor covers (`array_size` of them).
    pub fn element_at(&self, b: Binding, array_size: u32) -> Option<u32> {
        let same = b.class == self.binding.class && b.space == self.binding.space;
        let k = b.index.checked_sub(self.binding.index)?;
        (same && k < array_size.max(1)).then_some(k)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DescriptorSet {
    pub resources: Vec<Descriptor>,
}

/// A checked pipeline description.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    pub shader: Shader,
    pub dispatch: [u32; 3],
    pub dispatch_style: DispatchStyle,
    pub buffers: Vec<Buffer>,
    pub results: Vec<Check>,
    pub descriptor_sets: Vec<DescriptorSet>,
}

impl Pipeline {
    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }
    /// Every descriptor, in set order.
    pub fn descriptors(&self) -> impl Iterator<Item = &Descriptor> {
        self.descriptor_sets.iter().flat_map(|s| s.resources.iter())
    }
}

fn dims(v: &[u32], what: &str) -> Result<[u32; 3], RunError> {
    if v.is_empty() || v.len() > 3 {
        return Err(RunError::invalid(format!("{what} needs one to three numbers, found {}", v.len())));
    }
    let mut d = [1u32; 3];
    d[..v.len()].copy_from_slice(v);
    if d.contains(&0) {
        return Err(RunError::invalid(format!("{what} {d:?} has a zero dimension")));
    }
    Ok(d)
}

/// Parses and checks a pipeline description.
/// Drops empty entries of flow sequences (`[1, 2,, 3]`): LLVM's YAML parser, which
/// the offload-test-suite's offloader uses, skips them and some of its tests have them.
fn drop_empty_flow_entries(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(",,") && !text.contains(", ,") && !text.contains(",\n") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let (mut depth, mut quote, mut last_sig) = (0u32, None::<char>, ' ');
    let (mut comment, mut prev) = (false, '\n');
    for c in text.chars() {
        if comment || (quote.is_none() && c == '#' && prev.is_whitespace()) {
            // A comment runs to the end of its line; quotes in it mean nothing.
            comment = c != '\n';
            out.push(c);
            prev = c;
            continue;
        }
        prev = c;
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' => depth += 1,
                ']' => depth = depth.saturating_sub(1),
                ',' if depth > 0 && last_sig == ',' => continue,
                _ => {}
            },
        }
        if !c.is_whitespace() {
            last_sig = c;
        }
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// How deeply `text` nests YAML collections, read without a YAML parser:
/// flow brackets (`[`, `{`) outside quotes and comments, plus the block
/// structure's levels (a line indented more than the lines it is under, each
/// `- ` opening a sequence entry). It may count a level the YAML parser would
/// not, never fewer; it stops counting past `limit`.
pub fn yaml_depth(text: &str, limit: u64) -> u64 {
    let mut deepest = 0u64;
    // Indentations of the open block levels.
    let mut blocks: Vec<usize> = Vec::new();
    let mut flow = 0u64;
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        if flow == 0 && !(rest.is_empty() || rest.starts_with('#')) {
            while blocks.last().is_some_and(|&b| b >= indent) {
                blocks.pop();
            }
            blocks.push(indent);
            // `- - x`: each dash opens one more level, indented past the dash.
            let mut col = indent;
            let mut r = rest;
            while let Some(after) = r.strip_prefix("- ").or_else(|| (r == "-").then_some("")) {
                let skip = r.len() - after.trim_start_matches(' ').len();
                col += skip;
                r = &r[skip..];
                blocks.push(col);
                if blocks.len() as u64 > limit {
                    return blocks.len() as u64;
                }
            }
        }
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for c in line.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev.is_whitespace() => break,
                    '"' | '\'' => quote = Some(c),
                    '[' | '{' => {
                        flow += 1;
                        deepest = deepest.max(blocks.len() as u64 + flow);
                        if deepest > limit {
                            return deepest;
                        }
                    }
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = c;
        }
        deepest = deepest.max(blocks.len() as u64 + flow);
    }
    deepest
}

/// The buffers of a pipeline may take at most a third of the `memory` limit:
/// the runner holds them, the device memory made from them and the buffers
/// read back from it (`run::memory_needed` counts it all before a run).
fn check_memory(buffer_bytes: u64, limits: &crate::limits::Limits) -> Result<(), RunError> {
    let need = buffer_bytes.saturating_mul(3);
    if need > limits.run_memory_bytes {
        return Err(RunError::invalid(format!(
            "the buffers need {} ({} of data, held three times: as given, in device memory and read back), \
             more than the {} memory limit (`--limit memory=N` raises it)",
            crate::limits::show_bytes(need),
            crate::limits::show_bytes(buffer_bytes),
            crate::limits::show_bytes(limits.run_memory_bytes)
        )));
    }
    Ok(())
}

/// `Data:` lists with at least this many elements are read by [`extract_big_data_lists`].
const BIG_DATA_LIST: usize = 4096;

/// Takes each `Data: [ ... ]` flow list of at least [`BIG_DATA_LIST`] plain
/// decimal numbers out of `text`, leaving `Data: [ KEY ]` in its place, and
/// returns the lists by KEY as the scalar texts serde_yaml and [`ScalarText`]
/// would give, joined by commas: an integer of at most 18 digits (no leading
/// zero) is its own text, a decimal fraction (`1.5`, `-0.25e-3`) is the shortest
/// text of its f64. A list with anything else (hex, words, quotes, comments,
/// empty entries) stays for serde_yaml, so either way it means the same.
fn extract_big_data_lists(text: &str) -> (std::borrow::Cow<'_, str>, std::collections::HashMap<String, String>) {
    let mut big = std::collections::HashMap::new();
    if text.len() < BIG_DATA_LIST * 2 {
        return (std::borrow::Cow::Borrowed(text), big);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = text[from..].find("Data:").map(|i| from + i) {
        from = at + 5;
        let before = text[..at].trim_end_matches([' ', '\t']);
        if !(before.is_empty() || before.ends_with(['\n', '{', ','])) {
            continue;
        }
        let after = &text[at + 5..];
        let open = at + 5 + (after.len() - after.trim_start_matches([' ', '\t']).len());
        if !text[open..].starts_with('[') {
            continue;
        }
        let Some(len) = text[open + 1..].find(']') else { continue };
        let body = &text[open + 1..open + 1 + len];
        let Some(list) = plain_number_list(body) else { continue };
        let key = format!("__wavec_data_{}", big.len());
        out.push_str(&text[copied..open]);
        out.push_str(&format!("[ {key} ]"));
        copied = open + 1 + len + 1;
        from = copied;
        big.insert(key, list);
    }
    if big.is_empty() {
        return (std::borrow::Cow::Borrowed(text), big);
    }
    out.push_str(&text[copied..]);
    (std::borrow::Cow::Owned(out), big)
}

/// The elements of a flow list's inside, as [`extract_big_data_lists`] keeps
/// them, if it has enough and all are plain decimal numbers.
fn plain_number_list(body: &str) -> Option<String> {
    if !body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-' | b',' | b' ' | b'\t' | b'\n' | b'\r')) {
        return None;
    }
    let n = body.matches(',').count() + 1;
    if n < BIG_DATA_LIST {
        return None;
    }
    let mut out = String::with_capacity(body.len());
    for (i, e) in body.split(',').enumerate() {
        let e = e.trim_matches([' ', '\t', '\n', '\r']);
        if i > 0 {
            out.push(',');
        }
        let digits = e.strip_prefix('-').unwrap_or(e);
        let int = !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|c| c.is_ascii_digit());
        if int && !(digits.len() > 1 && digits.starts_with('0')) {
            // serde_yaml: u64 for a non-negative one, i64 for a negative one (`-0` stays `-0`).
            out.push_str(e);
            continue;
        }
        // `-?D+.D+` with an optional exponent: serde_yaml reads it as an f64.
        let (mantissa, exp) = match digits.find(['e', 'E']) {
            Some(k) => (&digits[..k], Some(&digits[k + 1..])),
            None => (digits, None),
        };
        let (whole, frac) = mantissa.split_once('.')?;
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
        let exp_ok = exp.is_none_or(|x| all_digits(x.strip_prefix(['+', '-']).unwrap_or(x)));
        if !(all_digits(whole) && all_digits(frac) && exp_ok) {
            return None;
        }
        let v: f64 = e.parse().ok().filter(|v: &f64| v.is_finite())?;
        out.push_str(&format!("{v:?}"));
    }
    Some(out)
}

/// Parses and checks a pipeline description (with the default limits).
pub fn parse_pipeline(text: &str) -> Result<Pipeline, RunError> {
    parse_pipeline_limited(text, &crate::limits::Limits::default())
}

/// [`parse_pipeline`] under `limits`: the YAML's nesting (`yaml-depth`, checked
/// before the YAML parser sees it) and the bytes of buffers (`memory`, checked
/// before they are made).
pub fn parse_pipeline_limited(text: &str, limits: &crate::limits::Limits) -> Result<Pipeline, RunError> {
    let depth = yaml_depth(text, limits.yaml_depth);
    if depth > limits.yaml_depth {
        return Err(RunError::invalid(format!(
            "pipeline YAML: nested more than {} deep (lists and maps in one another); `--limit yaml-depth=N` raises the limit",
            limits.yaml_depth
        )));
    }
    // Long `Data:` lists of plain numbers are read here, not by serde_yaml, whose
    // events would take some 150 bytes per element (gigabytes for a list of millions).
    let (text, big) = extract_big_data_lists(text);
    let text = drop_empty_flow_entries(&text);
    let raw: RawPipeline = serde_yaml::from_str(&text).map_err(|e| RunError::invalid(format!("pipeline YAML: {e}")))?;
    let mut buffer_bytes = 0u64;

    // Shaders.
    let [raw_shader] = raw.shaders.as_slice() else {
        return Err(if raw.shaders.is_empty() {
            RunError::invalid("pipeline YAML: no `Shaders` entry")
        } else {
            RunError::unsupported(format!("{} shaders in one pipeline (only one compute shader)", raw.shaders.len()))
        });
    };
    if raw_shader.stage != "Compute" {
        return Err(RunError::unsupported(format!("shader stage `{}` (only Compute)", raw_shader.stage)));
    }
    let shader = Shader { stage: raw_shader.stage.clone(), entry: raw_shader.entry.clone() };

    // Dispatch: top level, in the shader, or the older DispatchSize.
    let (dispatch, dispatch_style) = if let Some(v) = raw.dispatch_parameters.as_ref().and_then(|d| d.dispatch_group_count.as_ref()) {
        (dims(v, "DispatchGroupCount")?, DispatchStyle::TopLevel)
    } else if let Some(v) = raw_shader.dispatch_parameters.as_ref().and_then(|d| d.dispatch_group_count.as_ref()) {
        (dims(v, "DispatchGroupCount")?, DispatchStyle::InShader)
    } else if let Some(v) = &raw_shader.dispatch_size {
        (dims(v, "DispatchSize")?, DispatchStyle::ShaderDispatchSize)
    } else {
        // The offloader's default: DispatchGroupCount [1, 1, 1].
        ([1, 1, 1], DispatchStyle::Default)
    };

    // Buffers.
    let mut buffers: Vec<Buffer> = Vec::new();
    for b in &raw.buffers {
        if buffers.iter().any(|o| o.name == b.name) {
            return Err(RunError::invalid(format!("buffer `{}` is declared twice", b.name)));
        }
        let format =
            Format::from_name(&b.format).ok_or_else(|| RunError::unsupported(format!("buffer `{}` has format `{}`", b.name, b.format)))?;
        let size = format.size();
        if let Some(s) = b.stride {
            if s == 0 || s as usize % size > 0 {
                return Err(RunError::invalid(format!(
                    "buffer `{}`: Stride {s} is not a positive multiple of the {}-byte {} element",
                    b.name,
                    size,
                    format.name()
                )));
            }
        }
        let array_size = b.array_size.unwrap_or(1);
        if array_size == 0 {
            return Err(RunError::invalid(format!("buffer `{}`: ArraySize must be at least 1", b.name)));
        }
        let encode_each = |values: &mut dyn Iterator<Item = &str>, n: usize, what: &str| -> Result<Vec<u8>, RunError> {
            let mut bytes = Vec::with_capacity(n * size);
            for (i, v) in values.enumerate() {
                let e = format.encode(v).map_err(|e| RunError::invalid(format!("buffer `{}`{what} element {i}: {e}", b.name)))?;
                bytes.extend(e);
            }
            Ok(bytes)
        };
        let encode_all = |values: &[String], what: &str| -> Result<Vec<u8>, RunError> {
            encode_each(&mut values.iter().map(String::as_str), values.len(), what)
        };
        let extracted = match b.data.as_deref() {
            Some([RawItem::Scalar(t)]) => big.get(t),
            _ => None,
        };
        let data = match (&b.data, b.fill_size) {
            (Some(_), Some(_)) => {
                return Err(RunError::invalid(format!("buffer `{}` has both Data and FillSize", b.name)));
            }
            (Some(_), None) if array_size == 1 && extracted.is_some() => {
                let list = extracted.expect("checked");
                encode_each(&mut list.split(','), list.matches(',').count() + 1, "")?
            }
            (Some(items), None) if array_size == 1 && items.iter().all(|i| matches!(i, RawItem::Scalar(_))) => {
                let values: Vec<String> = items
                    .iter()
                    .map(|i| match i {
                        RawItem::Scalar(t) => t.clone(),
                        RawItem::List(_) => String::new(),
                    })
                    .collect();
                encode_all(&values, "")?
            }
            (Some(items), None) if array_size > 1 && items.iter().all(|i| matches!(i, RawItem::List(_))) => {
                let lists: Vec<&Vec<String>> = items
                    .iter()
                    .filter_map(|i| match i {
                        RawItem::List(l) => Some(l),
                        RawItem::Scalar(_) => None,
                    })
                    .collect();
                // The offloader's rule: ArraySize lists, all of the same length.
                if lists.len() != array_size as usize {
                    return Err(RunError::invalid(format!(
                        "buffer `{}`: ArraySize {array_size} but Data has {} lists",
                        b.name,
                        lists.len()
                    )));
                }
                if lists.iter().any(|l| l.len() != lists[0].len()) {
                    return Err(RunError::invalid(format!("buffer `{}`: the Data lists of an array must have the same length", b.name)));
                }
                let mut bytes = Vec::new();
                for (k, l) in lists.iter().enumerate() {
                    bytes.extend(encode_all(l, &format!(" [{k}]"))?);
                }
                bytes
            }
            (Some(_), None) if array_size == 1 => {
                return Err(RunError::invalid(format!("buffer `{}`: Data has lists in it, which needs ArraySize greater than 1", b.name)));
            }
            (Some(_), None) => {
                return Err(RunError::invalid(format!(
                    "buffer `{}`: ArraySize {array_size} needs Data as {array_size} lists (`- [ ... ]`)",
                    b.name
                )));
            }
            (None, Some(fill)) => {
                if fill % size as u64 != 0 {
                    return Err(RunError::invalid(format!(
                        "buffer `{}`: FillSize {fill} is not a multiple of the {}-byte {} element",
                        b.name,
                        size,
                        format.name()
                    )));
                }
                let total = fill.saturating_mul(array_size as u64);
                if total > 1 << 30 {
                    return Err(RunError::invalid(format!("buffer `{}`: FillSize {fill} is too large", b.name)));
                }
                // Checked before the buffer is made (the run checks all it needs again).
                buffer_bytes = buffer_bytes.saturating_add(total);
                check_memory(buffer_bytes, limits)?;
                let elem = match &b.fill_value {
                    Some(v) => format.encode(v).map_err(|e| RunError::invalid(format!("buffer `{}` FillValue: {e}", b.name)))?,
                    None => vec![0; size],
                };
                // Every buffer of an array is filled alike.
                elem.iter().copied().cycle().take(fill as usize * array_size as usize).collect()
            }
            (None, None) => {
                return Err(RunError::invalid(format!("buffer `{}` has neither Data nor FillSize", b.name)));
            }
        };
        buffer_bytes = buffer_bytes.saturating_add(if b.fill_size.is_some() { 0 } else { data.len() as u64 });
        buffers.push(Buffer {
            name: b.name.clone(),
            format,
            stride: b.stride,
            data,
            channels: b.channels,
            array_size,
            counters: Vec::new(),
        });
    }
    let find = |name: &str, what: &str| {
        buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| RunError::invalid(format!("{what} names buffer `{name}`, which is not declared")))
    };

    // Results.
    let mut results = Vec::new();
    for r in &raw.results {
        let rule = match r.rule.as_str() {
            "BufferExact" => Rule::BufferExact,
            "BufferFloatULP" => Rule::BufferFloatULP {
                ulpt: r.ulpt.ok_or_else(|| RunError::invalid(format!("result `{}`: BufferFloatULP needs ULPT", r.result)))?,
            },
            "BufferFloatEpsilon" => {
                let epsilon =
                    r.epsilon.ok_or_else(|| RunError::invalid(format!("result `{}`: BufferFloatEpsilon needs Epsilon", r.result)))?;
                if epsilon.is_nan() || epsilon < 0.0 {
                    return Err(RunError::invalid(format!("result `{}`: Epsilon must be a non-negative number", r.result)));
                }
                Rule::BufferFloatEpsilon { epsilon }
            }
            other => return Err(RunError::unsupported(format!("result rule `{other}` in `{}`", r.result))),
        };
        let actual = find(&r.actual, &format!("result `{}`", r.result))?;
        let expected = find(&r.expected, &format!("result `{}`", r.result))?;
        if !matches!(rule, Rule::BufferExact) {
            for i in [actual, expected] {
                if !buffers[i].format.is_float() {
                    return Err(RunError::invalid(format!(
                        "result `{}`: rule {} needs float buffers, `{}` is {}",
                        r.result,
                        rule.name(),
                        buffers[i].name,
                        buffers[i].format.name()
                    )));
                }
            }
            if buffers[actual].format != buffers[expected].format {
                return Err(RunError::invalid(format!(
                    "result `{}`: `{}` is {} but `{}` is {}",
                    r.result,
                    buffers[actual].name,
                    buffers[actual].format.name(),
                    buffers[expected].name,
                    buffers[expected].format.name()
                )));
            }
        }
        let denorm_any = match r.denorm_mode.as_deref() {
            None | Some("Preserve") | Some("FTZ") => false,
            Some("Any") => true,
            Some(other) => {
                return Err(RunError::invalid(format!("result `{}`: DenormMode is Any, FTZ or Preserve, not `{other}`", r.result)))
            }
        };
        results.push(Check { name: r.result.clone(), rule, actual, expected, denorm_any });
    }

    // Descriptor sets.
    let mut descriptor_sets = Vec::new();
    for (set_index, set) in raw.descriptor_sets.iter().enumerate() {
        let mut resources = Vec::new();
        for r in &set.resources {
            let kind = match r.kind.as_str() {
                "StructuredBuffer" => DescriptorKind::StructuredBuffer,
                "RWStructuredBuffer" => DescriptorKind::RWStructuredBuffer,
                "ByteAddressBuffer" => DescriptorKind::ByteAddressBuffer,
                "RWByteAddressBuffer" => DescriptorKind::RWByteAddressBuffer,
                "Buffer" => DescriptorKind::Buffer,
                "RWBuffer" => DescriptorKind::RWBuffer,
                "ConstantBuffer" => DescriptorKind::ConstantBuffer,
                other => return Err(RunError::unsupported(format!("resource `{}` of kind `{other}`", r.name))),
            };
            let buffer = find(&r.name, "descriptor")?;
            // Without a DirectXBinding, the Vulkan binding number is the register and the set the space.
            let (index, space) = match (&r.directx_binding, &r.vulkan_binding) {
                (Some(dx), _) => (dx.register, dx.space),
                (None, Some(vk)) => (vk.binding, set_index as u32),
                (None, None) => {
                    return Err(RunError::invalid(format!("resource `{}` has neither DirectXBinding nor VulkanBinding", r.name)));
                }
            };
            resources.push(Descriptor {
                buffer,
                kind,
                binding: Binding { class: kind.binding_class(), index, space },
                directx_written: r.directx_binding.is_some(),
                vulkan_binding: r.vulkan_binding.as_ref().map(|v| v.binding),
                has_counter: r.has_counter,
            });
        }
        descriptor_sets.push(DescriptorSet { resources });
    }
    // No two descriptors may cover the same register (a resource array covers ArraySize of them).
    let all: Vec<&Descriptor> = descriptor_sets.iter().flat_map(|s| s.resources.iter()).collect();
    for (i, d) in all.iter().enumerate() {
        for e in &all[..i] {
            let n = buffers[e.buffer].array_size;
            let m = buffers[d.buffer].array_size;
            let overlaps = (0..m).any(|k| e.element_at(Binding { index: d.binding.index.saturating_add(k), ..d.binding }, n).is_some());
            if overlaps {
                return Err(RunError::invalid(format!("two resources bind to register {}", d.binding)));
            }
        }
    }
    Ok(Pipeline { shader, dispatch, dispatch_style, buffers, results, descriptor_sets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::BindingClass;

    const BASIC: &str = r#"---
Shaders:
  - Stage: Compute
    Entry: main
    DispatchSize: [4, 1, 1]
Buffers:
  - Name: In
    Format: Float32
    Stride: 4
    Data: [ 1.0, -0, nan, inf ]
  - Name: Out
    Format: Float32
    FillSize: 16
  - Name: Fill
    Format: Int32
    FillSize: 8
    FillValue: -2
  - Name: ExpectedOut
    Format: Float32
    Data: [ 2, 4, 6, 8 ]
Results:
  - Result: Test0
    Rule: BufferFloatULP
    ULPT: 2
    Actual: Out
    Expected: ExpectedOut
DescriptorSets:
  - Resources:
    - Name: In
      Kind: StructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
      VulkanBinding: { Binding: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding:
        Register: 1
        Space: 2
      VulkanBinding: { Binding: 1 }
SomethingNew: 3
...
"#;

    #[test]
    fn empty_flow_entries_are_skipped_as_llvm_does() {
        let y = "---\nShaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n  # it's a comment, with a quote\n  - Name: A\n    Format: Int32\n    Data: [ 1, 2,, 3,\n      , 4 ]\n...\n";
        let p = parse_pipeline(y).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(p.buffers[0].data, [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
    }

    #[test]
    fn parses_the_older_layout() {
        let p = parse_pipeline(BASIC).unwrap();
        assert_eq!(p.dispatch, [4, 1, 1]);
        assert_eq!(p.dispatch_style, DispatchStyle::ShaderDispatchSize);
        assert_eq!(p.shader.entry.as_deref(), Some("main"));
        assert_eq!(p.buffers.len(), 4);
        let b = &p.buffers[0];
        assert_eq!(b.stride, Some(4));
        assert_eq!(&b.data[0..4], 1.0f32.to_le_bytes());
        assert_eq!(&b.data[4..8], (-0.0f32).to_bits().to_le_bytes());
        assert!(f32::from_le_bytes(b.data[8..12].try_into().unwrap()).is_nan());
        assert_eq!(&b.data[12..16], f32::INFINITY.to_le_bytes());
        assert_eq!(p.buffers[1].data, vec![0; 16]);
        assert_eq!(p.buffers[2].data, [(-2i32).to_le_bytes(), (-2i32).to_le_bytes()].concat());
        assert_eq!(
            p.results[0],
            Check { name: "Test0".into(), rule: Rule::BufferFloatULP { ulpt: 2 }, denorm_any: false, actual: 1, expected: 3 }
        );
        let d: Vec<_> = p.descriptors().collect();
        assert_eq!(d[0].binding, Binding { class: BindingClass::T, index: 0, space: 0 });
        assert_eq!(d[1].binding, Binding { class: BindingClass::U, index: 1, space: 2 });
        assert_eq!(d[1].buffer, 1);
    }

    #[test]
    fn parses_dispatch_group_count_in_both_places() {
        let top = BASIC
            .replace("    DispatchSize: [4, 1, 1]\n", "")
            .replace("Buffers:", "DispatchParameters: { DispatchGroupCount: [2, 3, 1] }\nBuffers:");
        let p = parse_pipeline(&top).unwrap();
        assert_eq!((p.dispatch, p.dispatch_style), ([2, 3, 1], DispatchStyle::TopLevel));
        let inner = BASIC.replace("    DispatchSize: [4, 1, 1]\n", "    DispatchParameters:\n      DispatchGroupCount: [5, 1, 2]\n");
        let p = parse_pipeline(&inner).unwrap();
        assert_eq!((p.dispatch, p.dispatch_style), ([5, 1, 2], DispatchStyle::InShader));
        // Without any, one workgroup (the offloader's default), and nothing is written back.
        let none = BASIC.replace("    DispatchSize: [4, 1, 1]\n", "");
        let p = parse_pipeline(&none).unwrap();
        assert_eq!((p.dispatch, p.dispatch_style), ([1, 1, 1], DispatchStyle::Default));
        assert!(!crate::run::emit::pipeline_to_yaml(&p, false).contains("Dispatch"));
        // Top level wins over the older key.
        let both = BASIC.replace("Buffers:", "DispatchParameters: { DispatchGroupCount: [7] }\nBuffers:");
        assert_eq!(parse_pipeline(&both).unwrap().dispatch, [7, 1, 1]);
        let zero = BASIC.replace("[4, 1, 1]", "[0, 1, 1]");
        assert_eq!(parse_pipeline(&zero).unwrap_err().exit_code, 2);
    }

    #[test]
    fn unsupported_things_exit_77() {
        let cases = [
            BASIC.replace("Format: Int32", "Format: Depth32"),
            BASIC.replace("Kind: StructuredBuffer", "Kind: Texture2D"),
            BASIC.replace("Kind: StructuredBuffer", "Kind: Sampler"),
            BASIC.replace("Stage: Compute", "Stage: Vertex"),
            BASIC.replace("Rule: BufferFloatULP", "Rule: BufferParticlePos"),
        ];
        for c in cases {
            let e = parse_pipeline(&c).unwrap_err();
            assert_eq!(e.exit_code, 77, "{}", e.message);
            assert!(e.message.starts_with("unsupported: "), "{}", e.message);
        }
    }

    #[test]
    fn invalid_things_exit_2() {
        let cases = [
            (BASIC.replace("FillSize: 16", "FillSize: 15"), "FillSize"),
            (BASIC.replace("Actual: Out", "Actual: Nope"), "Nope"),
            (BASIC.replace("    - Name: In\n      Kind", "    - Name: Missing\n      Kind"), "Missing"),
            (BASIC.replace("    ULPT: 2\n", ""), "ULPT"),
            (BASIC.replace("Data: [ 2, 4, 6, 8 ]", "Data: [ 2, x ]"), "element 1"),
            (
                BASIC
                    .replace("Register: 1", "Register: 0")
                    .replace("Kind: RWStructuredBuffer", "Kind: StructuredBuffer")
                    .replace("Space: 2", "Space: 0"),
                "two resources",
            ),
            (BASIC.replace("Stride: 4", "Stride: 6"), "Stride"),
            ("Shaders: [".to_string(), "YAML"),
            (BASIC.replace("ExpectedOut\n    Format: Float32", "ExpectedOut\n    Format: Int32"), "needs float"),
        ];
        for (c, word) in cases {
            let e = parse_pipeline(&c).unwrap_err();
            assert_eq!(e.exit_code, 2, "{}", e.message);
            assert!(e.message.contains(word), "{} does not mention {word}", e.message);
        }
    }

    #[test]
    fn resource_arrays_and_counters() {
        let y = "---\nShaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n\
                 \x20 - Name: A\n    Format: Float32\n    ArraySize: 2\n    Data:\n      - [ 1.5, -0 ]\n      - [ 0x2, nan ]\n\
                 \x20 - Name: F\n    Format: Int32\n    ArraySize: 3\n    FillSize: 8\n    FillValue: -1\n\
                 \x20 - Name: H\n    Format: Float16\n    Data: [ 0x3c00, 15360, -0 ]\n\
                 DescriptorSets:\n  - Resources:\n\
                 \x20   - { Name: A, Kind: RWStructuredBuffer, HasCounter: true, DirectXBinding: { Register: 2, Space: 0 } }\n\
                 \x20   - { Name: F, Kind: RWBuffer, DirectXBinding: { Register: 4, Space: 0 } }\n...\n";
        let p = parse_pipeline(y).unwrap_or_else(|e| panic!("{}", e.message));
        let a = &p.buffers[0];
        assert_eq!((a.array_size, a.element_bytes()), (2, 8));
        let f32s: Vec<u32> = a.data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        // `-0` keeps its sign, hex integers their value, in nested lists too.
        assert_eq!(&f32s[..3], &[1.5f32.to_bits(), (-0.0f32).to_bits(), 2.0f32.to_bits()]);
        assert!(f32::from_bits(f32s[3]).is_nan());
        assert_eq!(p.buffers[1].data, [0xff; 24]);
        assert_eq!(p.buffers[2].data, [0x00, 0x3c, 0x00, 0x3c, 0x00, 0x00]);
        let d: Vec<_> = p.descriptors().collect();
        assert!(d[0].has_counter && !d[1].has_counter);
        // Element k of a descriptor's array is register + k.
        let u = |index| Binding { class: BindingClass::U, index, space: 0 };
        assert_eq!((d[0].element_at(u(2), 2), d[0].element_at(u(3), 2), d[0].element_at(u(4), 2)), (Some(0), Some(1), None));
        assert_eq!(d[1].element_at(u(6), 3), Some(2));
        // Lists need an ArraySize to match; ranges must not overlap.
        let bad = [
            (y.replace("    ArraySize: 2\n", ""), "ArraySize"),
            (y.replace("ArraySize: 2", "ArraySize: 3"), "has 2 lists"),
            (y.replace("[ 0x2, nan ]", "[ 0x2 ]"), "same length"),
            (y.replace("ArraySize: 3\n    FillSize", "ArraySize: 3\n    Data: [ 1, 2 ]\n    FillSize"), "both"),
            (y.replace("Register: 4", "Register: 3"), "two resources"),
        ];
        for (text, word) in bad {
            let e = parse_pipeline(&text).unwrap_err();
            assert!(e.message.contains(word), "{} does not mention {word}", e.message);
        }
        // The output has ArraySize, the counters and one list per buffer, and reads back.
        let mut p2 = p.clone();
        p2.buffers[0].counters = vec![3, 0];
        let out = crate::run::emit::pipeline_to_yaml(&p2, false);
        assert!(out.contains("    ArraySize: 2\n    Counters: [ 3, 0 ]\n    Data:\n      - [ 1.5, -0 ]\n      - [ 2, nan ]\n"), "{out}");
        assert!(out.contains("      Kind: RWStructuredBuffer\n      HasCounter: true\n"), "{out}");
        p2.buffers[0] = Buffer { array_size: 1, counters: vec![7], data: p2.buffers[0].data[..8].to_vec(), ..p2.buffers[0].clone() };
        assert!(crate::run::emit::pipeline_to_yaml(&p2, false).contains("    Counter: 7\n    Data: [ 1.5, -0 ]\n"));
        let back = parse_pipeline(&out).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(back.buffers[0].data, p.buffers[0].data);
    }

    #[test]
    fn vulkan_binding_alone_gives_register_and_space() {
        let text = BASIC.replace("      DirectXBinding: { Register: 0, Space: 0 }\n", "");
        let p = parse_pipeline(&text).unwrap();
        let d = p.descriptors().next().unwrap();
        assert_eq!(d.binding, Binding { class: BindingClass::T, index: 0, space: 0 });
        assert!(!d.directx_written);
    }
}
