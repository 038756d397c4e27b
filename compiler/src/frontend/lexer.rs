//! Hand-written lexer feeding the LALRPOP parser (an "external lexer").
//!
//! It reads the preprocessor's output (so directives are gone and comments
//! are blanked, though it still skips comments for direct use), skips
//! whitespace (`\r` included), recognises keywords, builtin type names
//! (`float3`, `uint`, `dword`, ...) and resource type names as separate tokens
//! (so that casts `(float)x` parse without ambiguity), and reports lexing
//! errors with a code and the exact byte span: E0101 unexpected character (a
//! `#` that survived preprocessing too), E0103 unterminated block comment,
//! E0104 malformed numeric literal. (E0102, "no preprocessor", is retired.)

use std::collections::BTreeSet;

use crate::diag::{Diagnostic, Span};

/// One token. Identifiers, type names and literals borrow their text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    Ident(&'a str),
    /// A builtin scalar, vector or matrix type name: `float`, `uint3`, `dword`, `float4x4`.
    TypeName(&'a str),
    /// A resource template name: `StructuredBuffer`, `RWTexture2D`, ...
    ResourceName(&'a str),
    IntLit(&'a str),
    FloatLit(&'a str),
    /// A string literal with its quotes (only meaningful in attributes: `[shader("compute")]`).
    StrLit(&'a str),
    // Keywords.
    If,
    Else,
    For,
    While,
    Do,
    Break,
    Continue,
    Return,
    Void,
    True,
    False,
    Cbuffer,
    Register,
    Struct,
    Enum,
    Vector,
    Const,
    Static,
    Groupshared,
    Uniform,
    In,
    Out,
    Inout,
    Precise,
    Switch,
    Case,
    Default,
    Typedef,
    Unsigned,
    Sizeof,
    Matrix,
    Discard,
    Extern,
    Inline,
    RowMajor,
    ColumnMajor,
    GloballyCoherent,
    Volatile,
    /// Interpolation and typed-buffer format modifiers (`nointerpolation`, `snorm`, ...).
    Modifier(&'a str),
    /// Keywords of constructs refused by name (`template`, `namespace`, `class`, ...).
    Reserved(&'a str),
    // Punctuation.
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Semi,
    Comma,
    Colon,
    Question,
    Dot,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    AmpAmp,
    PipePipe,
    Shl,
    Shr,
    Eq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
    PlusPlus,
    MinusMinus,
    ColonColon,
    /// The `<` opening template arguments of a method call (`buf.Load<float4>(a)`).
    TemplateLt,
    /// The `>` closing them.
    TemplateGt,
    /// `#pragma pack_matrix(row_major)` (true) or `(column_major)`: inserted by
    /// the parser's driver where the preprocessor saw the pragma; never lexed.
    PragmaPackMatrix(bool),
}

impl Tok<'_> {
    /// How the token is named in "unexpected ..." messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("identifier `{s}`"),
            Tok::TypeName(s) => format!("type name `{s}`"),
            Tok::ResourceName(s) => format!("resource type `{s}`"),
            Tok::IntLit(s) => format!("integer literal `{s}`"),
            Tok::FloatLit(s) => format!("float literal `{s}`"),
            Tok::StrLit(s) => format!("string {s}"),
            other => {
                let text = other.text();
                if text.chars().all(|c| c.is_ascii_alphabetic()) {
                    format!("keyword `{text}`")
                } else {
                    format!("`{text}`")
                }
            }
        }
    }

    /// Source text of fixed tokens (keywords and punctuation).
    pub fn text(&self) -> &str {
        match self {
            Tok::Ident(s)
            | Tok::TypeName(s)
            | Tok::ResourceName(s)
            | Tok::IntLit(s)
            | Tok::FloatLit(s)
            | Tok::StrLit(s)
            | Tok::Modifier(s)
            | Tok::Reserved(s) => s,
            Tok::If => "if",
            Tok::Else => "else",
            Tok::For => "for",
            Tok::While => "while",
            Tok::Do => "do",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Return => "return",
            Tok::Void => "void",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Cbuffer => "cbuffer",
            Tok::Register => "register",
            Tok::Struct => "struct",
            Tok::Enum => "enum",
            Tok::Vector => "vector",
            Tok::Const => "const",
            Tok::Static => "static",
            Tok::Groupshared => "groupshared",
            Tok::Uniform => "uniform",
            Tok::In => "in",
            Tok::Out => "out",
            Tok::Inout => "inout",
            Tok::Precise => "precise",
            Tok::Switch => "switch",
            Tok::Case => "case",
            Tok::Default => "default",
            Tok::Typedef => "typedef",
            Tok::Unsigned => "unsigned",
            Tok::Sizeof => "sizeof",
            Tok::Matrix => "matrix",
            Tok::Discard => "discard",
            Tok::Extern => "extern",
            Tok::Inline => "inline",
            Tok::RowMajor => "row_major",
            Tok::ColumnMajor => "column_major",
            Tok::GloballyCoherent => "globallycoherent",
            Tok::Volatile => "volatile",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Question => "?",
            Tok::Dot => ".",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::Bang => "!",
            Tok::Lt => "<",
            Tok::Gt => ">",
            Tok::Le => "<=",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::AmpAmp => "&&",
            Tok::PipePipe => "||",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::Eq => "=",
            Tok::PlusEq => "+=",
            Tok::MinusEq => "-=",
            Tok::StarEq => "*=",
            Tok::SlashEq => "/=",
            Tok::PercentEq => "%=",
            Tok::AmpEq => "&=",
            Tok::PipeEq => "|=",
            Tok::CaretEq => "^=",
            Tok::ShlEq => "<<=",
            Tok::ShrEq => ">>=",
            Tok::PlusPlus => "++",
            Tok::MinusMinus => "--",
            Tok::ColonColon => "::",
            Tok::TemplateLt => "<",
            Tok::TemplateGt => ">",
            Tok::PragmaPackMatrix(_) => "#pragma pack_matrix",
        }
    }
}

/// A lexing error, already in diagnostic form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError(pub Diagnostic);

fn keyword(s: &str) -> Option<Tok<'static>> {
    Some(match s {
        "if" => Tok::If,
        "else" => Tok::Else,
        "for" => Tok::For,
        "while" => Tok::While,
        "do" => Tok::Do,
        "break" => Tok::Break,
        "continue" => Tok::Continue,
        "return" => Tok::Return,
        "void" => Tok::Void,
        "true" => Tok::True,
        "false" => Tok::False,
        "cbuffer" => Tok::Cbuffer,
        "tbuffer" => Tok::Reserved("tbuffer"),
        "register" => Tok::Register,
        "struct" => Tok::Struct,
        "vector" => Tok::Vector,
        "const" => Tok::Const,
        "static" => Tok::Static,
        "groupshared" => Tok::Groupshared,
        "uniform" => Tok::Uniform,
        "in" => Tok::In,
        "out" => Tok::Out,
        "inout" => Tok::Inout,
        "precise" => Tok::Precise,
        "switch" => Tok::Switch,
        "case" => Tok::Case,
        "default" => Tok::Default,
        "typedef" => Tok::Typedef,
        "unsigned" => Tok::Unsigned,
        "sizeof" => Tok::Sizeof,
        "matrix" => Tok::Matrix,
        "discard" => Tok::Discard,
        "extern" => Tok::Extern,
        "inline" => Tok::Inline,
        "row_major" => Tok::RowMajor,
        "column_major" => Tok::ColumnMajor,
        "globallycoherent" => Tok::GloballyCoherent,
        "volatile" => Tok::Volatile,
        "nointerpolation" => Tok::Modifier("nointerpolation"),
        "snorm" => Tok::Modifier("snorm"),
        "unorm" => Tok::Modifier("unorm"),
        "template" => Tok::Reserved("template"),
        "namespace" => Tok::Reserved("namespace"),
        // HLSL classes are structs (no access control, no virtual functions).
        "class" => Tok::Struct,
        "interface" => Tok::Reserved("interface"),
        "enum" => Tok::Enum,
        "using" => Tok::Reserved("using"),
        "goto" => Tok::Reserved("goto"),
        _ => return None,
    })
}

/// Scalar type names the lexer knows (supported or not: sema decides).
pub const SCALAR_NAMES: &[&str] = &[
    "bool",
    "int",
    "uint",
    "dword",
    "float",
    "half",
    "double",
    "int32_t",
    "uint32_t",
    "float32_t",
    "int16_t",
    "uint16_t",
    "float16_t",
    "int64_t",
    "uint64_t",
    "float64_t",
    "min16float",
    "min10float",
    "min16int",
    "min12int",
    "min16uint",
];

const RESOURCE_NAMES: &[&str] = &[
    "StructuredBuffer",
    "ConstantBuffer",
    "RWTexture2DArray",
    "Texture2DArray",
    "Texture2DMS",
    "TextureCubeArray",
    "SamplerComparisonState",
    "RasterizerOrderedBuffer",
    "RasterizerOrderedStructuredBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "RaytracingAccelerationStructure",
    "RWStructuredBuffer",
    "Buffer",
    "RWBuffer",
    "ByteAddressBuffer",
    "RWByteAddressBuffer",
    "AppendStructuredBuffer",
    "ConsumeStructuredBuffer",
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "TextureCube",
    "RWTexture1D",
    "RWTexture2D",
    "RWTexture3D",
    "SamplerState",
    // Less common texture kinds, and the legacy sampler keywords DXC still accepts
    // (`sampler s : register(s0);`): recognised so that they are refused by name.
    "Texture1DArray",
    "Texture2DMSArray",
    "RWTexture1DArray",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray",
    "RasterizerOrderedTexture3D",
    "FeedbackTexture2D",
    "FeedbackTexture2DArray",
    "sampler",
    "sampler1D",
    "sampler2D",
    "sampler3D",
    "samplerCUBE",
];

/// Is `s` a builtin scalar (`float`), vector (`float3`) or matrix (`float3x4`) type name?
pub fn is_builtin_type_name(s: &str) -> bool {
    SCALAR_NAMES.iter().any(|base| match s.strip_prefix(base) {
        Some("") => true,
        Some(rest) => {
            let b = rest.as_bytes();
            let dim = |c: u8| (b'1'..=b'4').contains(&c);
            (b.len() == 1 && dim(b[0])) || (b.len() == 3 && dim(b[0]) && b[1] == b'x' && dim(b[2]))
        }
        None => false,
    })
}

pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    done: bool,
    /// Struct and typedef names: lexed as [`Tok::TypeName`] so that casts
    /// `(MyStruct)x` and declarations `MyStruct s;` parse without feedback
    /// from the parser (HLSL, like C, needs to know which names are types).
    user_types: Option<&'a BTreeSet<String>>,
    /// The last two tokens, to recognise `. name <` template method calls.
    prev: [Option<Tok<'a>>; 2],
    /// Byte positions of `>` characters that close template arguments: the
    /// outermost becomes [`Tok::TemplateGt`], inner ones plain `>` (never `>>`).
    template_closers: Vec<(usize, bool)>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, pos: 0, done: false, user_types: None, prev: [None, None], template_closers: Vec::new() }
    }

    /// A lexer that knows the user type names found by [`user_type_names`].
    pub fn with_user_types(src: &'a str, types: &'a BTreeSet<String>) -> Lexer<'a> {
        Lexer { user_types: Some(types), ..Lexer::new(src) }
    }

    /// At a `<` after `. name`: if a balanced `<...>` of type-like text follows,
    /// directly followed by `(`, it opens template arguments. Records the
    /// closing positions and says whether it does.
    fn template_ahead(&mut self) -> bool {
        let b = self.src.as_bytes();
        let mut depth = 0usize;
        let mut closers = Vec::new();
        let mut i = self.pos;
        while i < b.len() {
            match b[i] {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    closers.push((i, depth == 0));
                    if depth == 0 {
                        break;
                    }
                }
                c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b',' | b' ' | b'\t' | b':') => {}
                _ => return false,
            }
            i += 1;
        }
        if depth != 0 || i >= b.len() {
            return false;
        }
        let mut j = i + 1;
        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if b.get(j) != Some(&b'(') {
            return false;
        }
        self.template_closers.extend(closers);
        true
    }

    fn peek(&self, off: usize) -> u8 {
        *self.src.as_bytes().get(self.pos + off).unwrap_or(&0)
    }

    fn err(&mut self, code: &'static str, msg: String, start: usize, end: usize, label: &str) -> LexError {
        self.done = true;
        LexError(Diagnostic::error(code, msg).with_label(Span::new(start, end), label))
    }

    /// Skips whitespace and comments; reports unterminated comments.
    fn skip_trivia(&mut self) -> Result<(), LexError> {
        loop {
            let c = self.peek(0);
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.src.len() && self.peek(0) != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    let start = self.pos;
                    match self.src[self.pos + 2..].find("*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => {
                            return Err(self.err(
                                "E0103",
                                "unterminated block comment".into(),
                                start,
                                start + 2,
                                "this comment is never closed with `*/`",
                            ))
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn number(&mut self) -> Result<Tok<'a>, LexError> {
        let start = self.pos;
        let b = self.src.as_bytes();
        let mut i = self.pos;
        let mut is_float = false;
        let mut ok = true;
        if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
            let digits = i;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                i += 1;
            }
            ok &= i > digits;
            while i < b.len() && matches!(b[i], b'u' | b'U' | b'l' | b'L') {
                i += 1;
            }
        } else if b[i] == b'0' && matches!(b.get(i + 1), Some(b'b' | b'B')) && matches!(b.get(i + 2), Some(b'0' | b'1')) {
            // Binary literals (`0b1010`, clang's extension that DXC inherits).
            i += 2;
            while i < b.len() && matches!(b[i], b'0' | b'1') {
                i += 1;
            }
            while i < b.len() && matches!(b[i], b'u' | b'U' | b'l' | b'L') {
                i += 1;
            }
        } else {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            // `2.xx`, `1.rgb`: DXC ends an integer before a dot followed by `x` or `r`,
            // so the swizzle applies to the integer literal.
            let int_swizzle = b.get(i) == Some(&b'.') && matches!(b.get(i + 1), Some(b'x' | b'r'));
            if i < b.len() && b[i] == b'.' && !int_swizzle {
                is_float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && matches!(b[i], b'e' | b'E') {
                is_float = true;
                i += 1;
                if i < b.len() && matches!(b[i], b'+' | b'-') {
                    i += 1;
                }
                let digits = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                ok &= i > digits;
            }
            if is_float {
                if i < b.len() && matches!(b[i], b'f' | b'F' | b'h' | b'H' | b'l' | b'L') {
                    i += 1;
                }
            } else {
                while i < b.len() && matches!(b[i], b'u' | b'U' | b'l' | b'L') {
                    i += 1;
                }
            }
        }
        // `0.5.xx`: a swizzle of a float literal; the literal ends before the dot. After an
        // integer (`2.xx`, `0xFFu.x`), as in DXC, only a swizzle starting with `x` or `r`.
        let swizzle_letters: &[u8] = if is_float { b"xyzwrgba" } else { b"xr" };
        let swizzle_follows = b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(|c| swizzle_letters.contains(c));
        // Letters or digits glued to the literal make it malformed (`12ab`, `1.5q`, `0x`).
        while !swizzle_follows && i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
            ok = false;
            i += 1;
        }
        self.pos = i;
        let text = &self.src[start..i];
        if !ok {
            return Err(self.err("E0104", format!("malformed numeric literal `{text}`"), start, i, "not a valid integer or float literal"));
        }
        Ok(if is_float { Tok::FloatLit(text) } else { Tok::IntLit(text) })
    }

    fn next_token(&mut self) -> Option<Result<(usize, Tok<'a>, usize), LexError>> {
        if self.done {
            return None;
        }
        if let Err(e) = self.skip_trivia() {
            return Some(Err(e));
        }
        if self.pos >= self.src.len() {
            self.done = true;
            return None;
        }
        let start = self.pos;
        let c = self.peek(0);
        if c.is_ascii_alphabetic() || c == b'_' {
            let b = self.src.as_bytes();
            let mut i = start;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            self.pos = i;
            let text = &self.src[start..i];
            let next_is_lt = self.src[i..].trim_start().starts_with('<');
            let tok = if (text == "matrix" || text == "vector") && !next_is_lt {
                // `matrix` alone is float4x4 and `vector` alone float4 (sema maps the names).
                Tok::TypeName(text)
            } else if let Some(k) = keyword(text) {
                k
            } else if is_builtin_type_name(text) || self.user_types.is_some_and(|t| t.contains(text)) {
                Tok::TypeName(text)
            } else if RESOURCE_NAMES.contains(&text) {
                Tok::ResourceName(text)
            } else {
                Tok::Ident(text)
            };
            return Some(Ok((start, tok, i)));
        }
        if c == b'"' {
            let b = self.src.as_bytes();
            let mut i = start + 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() || b[i] != b'"' {
                let e = self.err("E0106", "unterminated string literal".into(), start, i.min(b.len()), "this string is never closed");
                return Some(Err(e));
            }
            self.pos = i + 1;
            return Some(Ok((start, Tok::StrLit(&self.src[start..i + 1]), self.pos)));
        }
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_ascii_digit()) {
            return Some(self.number().map(|t| (start, t, self.pos)));
        }
        if c == b'>' {
            if let Some(k) = self.template_closers.iter().position(|&(p, _)| p == start) {
                let (_, outer) = self.template_closers.remove(k);
                self.pos += 1;
                return Some(Ok((start, if outer { Tok::TemplateGt } else { Tok::Gt }, self.pos)));
            }
        }
        if c == b'<'
            && matches!(self.prev, [Some(Tok::Dot), Some(Tok::Ident(_))])
            && self.peek(1) != b'<'
            && self.peek(1) != b'='
            && self.template_ahead()
        {
            self.pos += 1;
            return Some(Ok((start, Tok::TemplateLt, self.pos)));
        }
        let three = [c, self.peek(1), self.peek(2)];
        let (tok, len) = match three {
            [b'<', b'<', b'='] => (Tok::ShlEq, 3),
            [b'>', b'>', b'='] => (Tok::ShrEq, 3),
            [b'<', b'<', _] => (Tok::Shl, 2),
            [b'>', b'>', _] => (Tok::Shr, 2),
            [b'<', b'=', _] => (Tok::Le, 2),
            [b'>', b'=', _] => (Tok::Ge, 2),
            [b'=', b'=', _] => (Tok::EqEq, 2),
            [b'!', b'=', _] => (Tok::Ne, 2),
            [b'&', b'&', _] => (Tok::AmpAmp, 2),
            [b'|', b'|', _] => (Tok::PipePipe, 2),
            [b'+', b'+', _] => (Tok::PlusPlus, 2),
            [b'-', b'-', _] => (Tok::MinusMinus, 2),
            [b'+', b'=', _] => (Tok::PlusEq, 2),
            [b'-', b'=', _] => (Tok::MinusEq, 2),
            [b'*', b'=', _] => (Tok::StarEq, 2),
            [b'/', b'=', _] => (Tok::SlashEq, 2),
            [b'%', b'=', _] => (Tok::PercentEq, 2),
            [b'&', b'=', _] => (Tok::AmpEq, 2),
            [b'|', b'=', _] => (Tok::PipeEq, 2),
            [b'^', b'=', _] => (Tok::CaretEq, 2),
            [b':', b':', _] => (Tok::ColonColon, 2),
            [b'(', ..] => (Tok::LParen, 1),
            [b')', ..] => (Tok::RParen, 1),
            [b'[', ..] => (Tok::LBracket, 1),
            [b']', ..] => (Tok::RBracket, 1),
            [b'{', ..] => (Tok::LBrace, 1),
            [b'}', ..] => (Tok::RBrace, 1),
            [b';', ..] => (Tok::Semi, 1),
            [b',', ..] => (Tok::Comma, 1),
            [b':', ..] => (Tok::Colon, 1),
            [b'?', ..] => (Tok::Question, 1),
            [b'.', ..] => (Tok::Dot, 1),
            [b'+', ..] => (Tok::Plus, 1),
            [b'-', ..] => (Tok::Minus, 1),
            [b'*', ..] => (Tok::Star, 1),
            [b'/', ..] => (Tok::Slash, 1),
            [b'%', ..] => (Tok::Percent, 1),
            [b'&', ..] => (Tok::Amp, 1),
            [b'|', ..] => (Tok::Pipe, 1),
            [b'^', ..] => (Tok::Caret, 1),
            [b'~', ..] => (Tok::Tilde, 1),
            [b'!', ..] => (Tok::Bang, 1),
            [b'<', ..] => (Tok::Lt, 1),
            [b'>', ..] => (Tok::Gt, 1),
            [b'=', ..] => (Tok::Eq, 1),
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('\u{fffd}');
                let end = start + ch.len_utf8();
                let shown = if ch.is_control() || ch.is_whitespace() { format!("{:?}", ch) } else { format!("`{ch}`") };
                let note = if ch == '#' {
                    "`#` is only meaningful at the start of a preprocessor directive line or inside a macro body"
                } else {
                    ""
                };
                let e = self.err("E0101", format!("unexpected character {shown}"), start, end, "not valid here");
                return Some(Err(if note.is_empty() { e } else { LexError(e.0.with_note(note)) }));
            }
        };
        self.pos += len;
        Some(Ok((start, tok, self.pos)))
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<(usize, Tok<'a>, usize), LexError>;
    fn next(&mut self) -> Option<Self::Item> {
        let t = self.next_token();
        if let Some(Ok((_, tok, _))) = &t {
            self.prev = [self.prev[1], Some(*tok)];
        }
        t
    }
}

/// Names declared as types anywhere in `src`: `struct NAME`, and the
/// declared name of every `typedef ... NAME[...];`. A pre-scan over the
/// tokens, so the lexer can classify them (see [`Lexer::with_user_types`]).
pub fn user_type_names(src: &str) -> BTreeSet<String> {
    let toks: Vec<Tok<'_>> = Lexer::new(src).map_while(|t| t.ok()).map(|(_, t, _)| t).collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            Tok::Struct => {
                if let Some(Tok::Ident(n)) = toks.get(i + 1) {
                    names.insert(n.to_string());
                }
            }
            // `enum NAME`, `enum class NAME`, `enum struct NAME`.
            Tok::Enum => {
                let k = if matches!(toks.get(i + 1), Some(Tok::Struct | Tok::Reserved("class"))) { i + 2 } else { i + 1 };
                if let Some(Tok::Ident(n)) = toks.get(k) {
                    names.insert(n.to_string());
                }
            }
            Tok::Typedef => {
                // The typedef's names are the identifiers at brace depth 0
                // followed by `;`, `,` or `[` before the terminating `;`.
                let mut depth = 0i32;
                let mut j = i + 1;
                while j < toks.len() {
                    match toks[j] {
                        Tok::LBrace => depth += 1,
                        Tok::RBrace => depth -= 1,
                        Tok::Semi if depth == 0 => break,
                        Tok::Ident(n) if depth == 0 => {
                            if matches!(toks.get(j + 1), Some(Tok::Semi | Tok::Comma | Tok::LBracket)) {
                                names.insert(n.to_string());
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                i = j;
            }
            _ => {}
        }
        i += 1;
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        Lexer::new(s).map(|r| r.unwrap().1).collect()
    }

    #[test]
    fn tokens_and_comments() {
        assert_eq!(
            toks("uint3 id /* c */ : // x\n a<<=1.5f;"),
            vec![Tok::TypeName("uint3"), Tok::Ident("id"), Tok::Colon, Tok::Ident("a"), Tok::ShlEq, Tok::FloatLit("1.5f"), Tok::Semi]
        );
        assert_eq!(
            toks(".5 1. 1e3 0x1Fu 7L"),
            vec![Tok::FloatLit(".5"), Tok::FloatLit("1."), Tok::FloatLit("1e3"), Tok::IntLit("0x1Fu"), Tok::IntLit("7L")]
        );
        // `vector<...>` is the template; a bare `vector` is the type float4.
        assert_eq!(
            toks("float4x4 vector RWStructuredBuffer"),
            vec![Tok::TypeName("float4x4"), Tok::TypeName("vector"), Tok::ResourceName("RWStructuredBuffer")]
        );
        assert_eq!(toks("vector<")[0], Tok::Vector);
    }

    #[test]
    fn binary_literals_and_literal_swizzles() {
        assert_eq!(toks("0b1010 0B1u 0b11L"), vec![Tok::IntLit("0b1010"), Tok::IntLit("0B1u"), Tok::IntLit("0b11L")]);
        // DXC: an integer ends before `.x...`/`.r...`; a float before any swizzle.
        assert_eq!(toks("2.xx"), vec![Tok::IntLit("2"), Tok::Dot, Tok::Ident("xx")]);
        assert_eq!(toks("7u.rg"), vec![Tok::IntLit("7u"), Tok::Dot, Tok::Ident("rg")]);
        assert_eq!(toks("0x10.x"), vec![Tok::IntLit("0x10"), Tok::Dot, Tok::Ident("x")]);
        assert_eq!(toks("1.0.yzw"), vec![Tok::FloatLit("1.0"), Tok::Dot, Tok::Ident("yzw")]);
        assert_eq!(toks("1e3.xx"), vec![Tok::FloatLit("1e3"), Tok::Dot, Tok::Ident("xx")]);
        assert_eq!(toks("2.5"), vec![Tok::FloatLit("2.5")]);
        let first_err = |s: &str| Lexer::new(s).find_map(|r| r.err()).unwrap().0;
        // As in DXC: `2.yy` is a malformed float, `0b2` a malformed binary literal.
        assert_eq!(first_err("a = 2.yy;").code, "E0104");
        assert_eq!(first_err("a = 0b102;").code, "E0104");
        assert_eq!(first_err("a = 0b;").code, "E0104");
    }

    #[test]
    fn lex_errors() {
        let first_err = |s: &str| Lexer::new(s).find_map(|r| r.err()).unwrap().0;
        let e = first_err("int a; /* open");
        assert_eq!((e.code, e.labels[0].0), ("E0103", Span::new(7, 9)));
        // Directives never reach this lexer: a `#` here is a stray character.
        let e = first_err("  #define N 4\nint a;");
        assert_eq!((e.code, e.labels[0].0), ("E0101", Span::new(2, 3)));
        let e = first_err("a = 12ab;");
        assert_eq!((e.code, e.labels[0].0), ("E0104", Span::new(4, 8)));
        let e = first_err("a = b @ c;");
        assert_eq!((e.code, e.labels[0].0), ("E0101", Span::new(6, 7)));
        let e = first_err("a = é;");
        assert_eq!((e.code, e.labels[0].0), ("E0101", Span::new(4, 6)));
    }
}
