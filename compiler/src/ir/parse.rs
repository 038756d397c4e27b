//! Reads the text form that `print_function` writes, so that
//! `print(parse(print(f))) == print(f)` and IR can be written by hand in tests.
//!
//! The grammar, one item per line (indentation is ignored, `;` starts a comment):
//!
//! ```text
//! kernel @name {              (or `kernel @name local_memory 1024 local_arrays 512 readable 0:16,2:64 padded 80:96 {`)
//! block0:                                  block3(v4:i32, v5:b1):
//!     v1:i32 = iadd v2, v3                 store.device [v7], v8
//!     <terminator>
//! }
//! ```
//!
//! Instructions: `iconst -1`, `fconst 1.5` or `fconst 0x7fc00001` (bits),
//! `iconst16 -2`, `fconst16 0x3c00` (16-bit constants; f16 always as bits),
//! `bconst true`, `kernel_arg 0`, `special sr_thread_id_x`, unary ops
//! (`ineg v1`), binary ops (`iadd v1, v2`), `icmp slt v1, v2`, `fcmp lt v1, v2`,
//! `select v1, v2, v3`, conversions (`sitof v1`), `load.device_ro.i32 [v1]`,
//! `store.local [v1], v2`, `fma v1, v2, v3`, `bitcast v1`,
//! `atomic_rmw.add.device [v1], v2`, `atomic_cas.local [v1], v2 (expected), v3 (value)`,
//! `barrier`, `fence.workgroup`, `fence.device`, `wave_reduce.fadd v1`,
//! `wave_prefix.iadd v1`, `wave_ballot v1, 0`, `wave_any v1`, `wave_all v1`,
//! `wave_read_lane v1, v2`, `wave_read_first v1`. Terminators: `return`, `jump block2(v1)`,
//! `if v1 then block2 else block3 merge block4`,
//! `loop block2(v1) exit block3 [unroll(4)]` (hint optional: `[loop]`,
//! `[unroll]`), `break_if v1 to block3(v2) else block4`, `<no terminator>`.
//!
//! Value and block numbers are kept: entities are created in number order and
//! numbers that the text skips become placeholders (a block with no
//! terminator; a value defined by an instruction that sits in no block, as
//! dead-code removal leaves them). Instruction numbers are not printed; they
//! follow the text. Spans are not printed and come back as `Span::default()`.
//! The entry block is the first block in the text.
//!
//! What is a parse error and what is left to `ir::verify`: the parser rejects
//! what it cannot represent: bad syntax, unknown ops, a value or block label
//! defined twice, a value that is used but defined nowhere in the text (it
//! would have no type). Everything that a `Function` can hold is accepted and
//! judged by the verifier: a use before the definition or outside its
//! dominance, a result type that does not match the instruction
//! (`v1:f32 = iadd v2, v3`), wrong operand types, edge arities, jumps to
//! blocks that are never labelled (they become blocks without a terminator),
//! unstructured control flow.

use super::*;
use cranelift_entity::EntityRef;
use std::collections::BTreeMap;

/// A parse error: the 1-based line and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Value and block numbers above this are refused, so that a stray digit
/// cannot make the parser allocate millions of placeholders.
pub const MAX_ENTITY: u32 = 1 << 20;

/// Parses one function in the form that `print_function` writes.
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let parsed = Parser::default().parse(text)?;
    build(parsed)
}

struct ParsedInst {
    line: usize,
    result: Option<(Value, Type)>,
    data: InstData,
}

struct ParsedBlock {
    line: usize,
    block: Block,
    params: Vec<(Value, Type)>,
    insts: Vec<ParsedInst>,
    term: Option<(usize, Terminator, LoopHint)>,
}

#[derive(Default)]
struct Parsed {
    name: String,
    local_memory: u32,
    local_arrays: u32,
    readable: BTreeMap<u32, u32>,
    padded: Option<Padding>,
    blocks: Vec<ParsedBlock>,
}

#[derive(Default)]
struct Parser {
    line: usize,
}

impl Parser {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError { line: self.line, message: message.into() })
    }

    fn parse(mut self, text: &str) -> Result<Parsed, ParseError> {
        let mut out = Parsed::default();
        let mut opened = false;
        let mut closed = false;
        for (i, raw) in text.lines().enumerate() {
            self.line = i + 1;
            let content = raw.split(';').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            if closed {
                return self.err("text after the closing `}`");
            }
            if !opened {
                self.kernel_header(content, &mut out)?;
                opened = true;
                continue;
            }
            if content == "}" {
                if let Some(b) = out.blocks.last() {
                    if b.term.is_none() {
                        return self.err(format!("{} has no terminator", b.block));
                    }
                }
                closed = true;
                continue;
            }
            let mut c = Cursor::new(content);
            if content.ends_with(':') && content.starts_with("block") {
                if let Some(b) = out.blocks.last() {
                    if b.term.is_none() {
                        return self.err(format!("{} has no terminator before this label", b.block));
                    }
                }
                let block = self.block_label(&mut c)?;
                out.blocks.push(block);
                continue;
            }
            let Some(cur) = out.blocks.last_mut() else {
                return self.err(format!("expected a block label, found `{content}`"));
            };
            if cur.term.is_some() {
                return self.err(format!("`{content}` after the terminator of {}", cur.block));
            }
            if let Some(term) = self.terminator(&mut c)? {
                cur.term = Some((self.line, term.0, term.1));
                continue;
            }
            let inst = self.inst(content)?;
            cur.insts.push(inst);
        }
        if !opened {
            self.line = text.lines().count().max(1);
            return self.err("expected `kernel @name {`");
        }
        if !closed {
            self.line = text.lines().count().max(1);
            return self.err("missing the closing `}`");
        }
        Ok(out)
    }

    /// `kernel @name {`, optionally with `local_memory 1024`, `local_arrays 512` and
    /// `readable 0:16,2:64` before the `{`, into `out`.
    fn kernel_header(&self, content: &str, out: &mut Parsed) -> Result<(), ParseError> {
        let bad = || self.err(format!("expected `kernel @name {{`, found `{content}`"));
        let Some(rest) = content.strip_prefix("kernel") else {
            return bad();
        };
        let Some(inner) = rest.trim_start().strip_prefix('@').and_then(|r| r.strip_suffix('{')) else {
            return bad();
        };
        let mut words = inner.split_whitespace();
        let name = words.next().unwrap_or("");
        if name.is_empty() || name.chars().any(|ch| "{}@".contains(ch)) {
            return self.err(format!("bad kernel name `{}`", inner.trim()));
        }
        let mut local_memory = 0;
        let mut local_arrays = 0;
        let mut readable = BTreeMap::new();
        let mut padded = None;
        while let Some(w) = words.next() {
            match (w, words.next()) {
                ("local_memory", Some(n)) => match entity_number(n) {
                    Some(n) => local_memory = n,
                    None => return self.err(format!("bad local_memory size `{n}`")),
                },
                ("local_memory", None) => return self.err("`local_memory` needs a size in bytes"),
                ("local_arrays", Some(n)) => match entity_number(n) {
                    Some(n) => local_arrays = n,
                    None => return self.err(format!("bad local_arrays size `{n}`")),
                },
                ("local_arrays", None) => return self.err("`local_arrays` needs a size in bytes"),
                ("readable", Some(list)) => {
                    for item in list.split(',') {
                        let parsed = item.split_once(':').and_then(|(a, n)| Some((entity_number(a)?, entity_number(n)?)));
                        match parsed {
                            Some((a, n)) => {
                                readable.insert(a, n);
                            }
                            None => return self.err(format!("bad readable argument `{item}` (expected ARG:BYTES)")),
                        }
                    }
                }
                ("readable", None) => return self.err("`readable` needs a list of ARG:BYTES"),
                ("padded", Some(n)) => match n.split_once(':').and_then(|(a, b)| Some((entity_number(a)?, entity_number(b)?))) {
                    Some((threads, launch)) if threads > 0 && threads < launch => padded = Some(Padding { threads, launch }),
                    _ => return self.err(format!("bad padded sizes `{n}` (expected THREADS:LAUNCH)")),
                },
                ("padded", None) => return self.err("`padded` needs THREADS:LAUNCH"),
                (w, _) => {
                    return self.err(format!(
                        "unexpected `{w}` in the kernel header (expected `local_memory N`, `local_arrays N`, `readable A:N,...`, \
                         `padded T:L` or `{{`)"
                    ))
                }
            }
        }
        (out.name, out.local_memory, out.local_arrays, out.readable) = (name.to_string(), local_memory, local_arrays, readable);
        out.padded = padded;
        Ok(())
    }

    /// `block3:` or `block3(v4:i32, v5:f32):`
    fn block_label(&self, c: &mut Cursor) -> Result<ParsedBlock, ParseError> {
        let block = self.block(c)?;
        let mut params = Vec::new();
        if c.eat('(') && !c.eat(')') {
            loop {
                let v = self.value(c)?;
                self.expect(c, ':')?;
                let ty = self.ty(c)?;
                params.push((v, ty));
                if c.eat(')') {
                    break;
                }
                self.expect(c, ',')?;
            }
        }
        self.expect(c, ':')?;
        self.end(c)?;
        Ok(ParsedBlock { line: self.line, block, params, insts: Vec::new(), term: None })
    }

    /// A terminator, or `None` if the line is not one.
    fn terminator(&self, c: &mut Cursor) -> Result<Option<(Terminator, LoopHint)>, ParseError> {
        if c.rest() == "<no terminator>" {
            return Ok(Some((Terminator::None, LoopHint::None)));
        }
        let save = c.pos;
        let word = c.word();
        let term = match word {
            "return" => Terminator::Return,
            "jump" => {
                let dest = self.block(c)?;
                let args = self.args(c)?;
                Terminator::Jump { dest, args }
            }
            "if" => {
                let cond = self.value(c)?;
                self.keyword(c, "then")?;
                let then_dest = self.block(c)?;
                self.keyword(c, "else")?;
                let else_dest = self.block(c)?;
                self.keyword(c, "merge")?;
                let merge = self.block(c)?;
                Terminator::If { cond, then_dest, else_dest, merge }
            }
            "loop" => {
                let header = self.block(c)?;
                let args = self.args(c)?;
                self.keyword(c, "exit")?;
                let exit = self.block(c)?;
                let hint = self.loop_hint(c)?;
                self.end(c)?;
                return Ok(Some((Terminator::Loop { header, args, exit }, hint)));
            }
            "break_if" => {
                let cond = self.value(c)?;
                self.keyword(c, "to")?;
                let exit = self.block(c)?;
                let args = self.args(c)?;
                self.keyword(c, "else")?;
                let cont = self.block(c)?;
                Terminator::BreakIf { cond, exit, args, cont }
            }
            _ => {
                c.pos = save;
                return Ok(None);
            }
        };
        self.end(c)?;
        Ok(Some((term, LoopHint::None)))
    }

    fn loop_hint(&self, c: &mut Cursor) -> Result<LoopHint, ParseError> {
        if !c.eat('[') {
            return Ok(LoopHint::None);
        }
        let hint = match c.word() {
            "loop" => LoopHint::DontUnroll,
            "unroll" => {
                if c.eat('(') {
                    let n = self.number(c, "an unroll count")?;
                    self.expect(c, ')')?;
                    LoopHint::Unroll(Some(n))
                } else {
                    LoopHint::Unroll(None)
                }
            }
            other => return self.err(format!("unknown loop hint `{other}` (expected `loop` or `unroll`)")),
        };
        self.expect(c, ']')?;
        Ok(hint)
    }

    /// An instruction line, with or without `vN:type = `.
    fn inst(&self, content: &str) -> Result<ParsedInst, ParseError> {
        let mut c = Cursor::new(content);
        let mut result = None;
        if content.starts_with('v') && content.contains('=') {
            let v = self.value(&mut c)?;
            self.expect(&mut c, ':')?;
            let ty = self.ty(&mut c)?;
            self.expect(&mut c, '=')?;
            result = Some((v, ty));
        }
        let op = c.word();
        if op.is_empty() {
            return self.err(format!("expected an instruction, found `{}`", c.rest()));
        }
        let data = match op {
            "iconst" | "fconst" | "bconst" | "iconst16" | "fconst16" => {
                let lit = c.rest().trim();
                c.pos = c.s.len();
                self.constant(op, lit)?
            }
            "kernel_arg" => InstData::KernelArg { index: self.number(&mut c, "a kernel argument index")? },
            "special" => {
                let name = c.word();
                match SpecialReg::ALL.iter().find(|r| r.asm_name() == name) {
                    Some(&reg) => InstData::Special { reg },
                    None => return self.err(format!("unknown special register `{name}`")),
                }
            }
            "icmp" | "fcmp" => {
                let cc = c.word();
                let Some(&cmp) = CmpOp::ALL.iter().find(|o| o.mnemonic() == op && o.name() == cc) else {
                    return self.err(format!("unknown condition `{op} {cc}`"));
                };
                let a = self.value(&mut c)?;
                self.expect(&mut c, ',')?;
                let b = self.value(&mut c)?;
                InstData::Cmp { op: cmp, args: [a, b] }
            }
            "select" => {
                let cond = self.value(&mut c)?;
                self.expect(&mut c, ',')?;
                let a = self.value(&mut c)?;
                self.expect(&mut c, ',')?;
                let b = self.value(&mut c)?;
                // The type is the result's; without a result there is none to check against.
                let ty = result.map_or(Type::I32, |r| r.1);
                InstData::Select { ty, cond, args: [a, b] }
            }
            _ if op.starts_with("load.") || op.starts_with("store.") => self.memory(op, &mut c)?,
            _ if op.starts_with("atomic_") => self.atomic(op, &mut c)?,
            "barrier" => InstData::Barrier,
            _ if op.starts_with("fence.") => match FenceScope::ALL.iter().find(|s| Some(s.name()) == op.strip_prefix("fence.")) {
                Some(&scope) => InstData::Fence { scope },
                None => return self.err(format!("unknown fence scope in `{op}` (expected fence.workgroup or fence.device)")),
            },
            _ if op.starts_with("wave_") => self.wave(op, &mut c, result.map(|r| r.1))?,
            "pack64" => {
                let lo = self.value(&mut c)?;
                self.expect(&mut c, ',')?;
                let hi = self.value(&mut c)?;
                // The type (i64 or f64) is the result's, as for `select`.
                let ty = result.map_or(Type::I64, |r| r.1);
                InstData::Pack64 { ty, lo, hi }
            }
            "lo32" | "hi32" => InstData::Unpack64 { hi: op == "hi32", arg: self.value(&mut c)? },
            _ if DoubleOp::ALL.iter().any(|o| o.name() == op) => {
                let Some(&dop) = DoubleOp::ALL.iter().find(|o| o.name() == op) else { unreachable!() };
                let mut args = Vec::new();
                for k in 0..dop.arity() {
                    if k > 0 {
                        self.expect(&mut c, ',')?;
                    }
                    args.push(self.value(&mut c)?);
                }
                let first = args[0];
                args.resize(3, first);
                InstData::Double { op: dop, args: [args[0], args[1], args[2]] }
            }
            "bitcast" => {
                // The type is the result's, as for `select`.
                let ty = result.map_or(Type::I32, |r| r.1);
                InstData::Bitcast { ty, arg: self.value(&mut c)? }
            }
            _ => {
                if let Some(&u) = UnaryOp::ALL.iter().find(|o| o.name() == op) {
                    InstData::Unary { op: u, arg: self.value(&mut c)? }
                } else if let Some(&conv) = ConvOp::ALL.iter().find(|o| o.name() == op) {
                    InstData::Convert { op: conv, arg: self.value(&mut c)? }
                } else if let Some(&bin) = BinaryOp::ALL.iter().find(|o| o.name() == op) {
                    let a = self.value(&mut c)?;
                    self.expect(&mut c, ',')?;
                    let b = self.value(&mut c)?;
                    InstData::Binary { op: bin, args: [a, b] }
                } else if let Some(&tern) = TernaryOp::ALL.iter().find(|o| o.name() == op) {
                    let a = self.value(&mut c)?;
                    self.expect(&mut c, ',')?;
                    let b = self.value(&mut c)?;
                    self.expect(&mut c, ',')?;
                    let d = self.value(&mut c)?;
                    InstData::Ternary { op: tern, args: [a, b, d] }
                } else {
                    return self.err(format!("unknown instruction `{op}`"));
                }
            }
        };
        self.end(&mut c)?;
        Ok(ParsedInst { line: self.line, result, data })
    }

    fn constant(&self, op: &str, lit: &str) -> Result<InstData, ParseError> {
        let hex = lit.strip_prefix("0x").map(|h| u32::from_str_radix(h, 16));
        let bad = || self.err(format!("bad `{op}` literal `{lit}`"));
        match op {
            "iconst" => {
                let bits = match hex {
                    Some(Ok(b)) => b,
                    Some(Err(_)) => return bad(),
                    None => match lit.parse::<i32>() {
                        Ok(x) => x as u32,
                        Err(_) => return bad(),
                    },
                };
                Ok(InstData::Const { ty: Type::I32, bits })
            }
            "iconst16" => match lit.parse::<i16>() {
                Ok(x) => Ok(InstData::Const { ty: Type::I16, bits: x as u16 as u32 }),
                Err(_) => bad(),
            },
            "fconst16" => match hex {
                Some(Ok(b)) if b <= 0xffff => Ok(InstData::Const { ty: Type::F16, bits: b }),
                _ => bad(),
            },
            "fconst" => {
                let bits = match hex {
                    Some(Ok(b)) => b,
                    Some(Err(_)) => return bad(),
                    // Digits, a sign, `inf` or `NaN`: not Rust's other spellings (`infinity`).
                    None if lit.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '+')
                        || ["inf", "NaN"].contains(&lit.trim_start_matches(['-', '+'])) =>
                    {
                        match lit.parse::<f32>() {
                            Ok(x) => x.to_bits(),
                            Err(_) => return bad(),
                        }
                    }
                    None => return bad(),
                };
                Ok(InstData::Const { ty: Type::F32, bits })
            }
            _ => {
                let bits = match lit {
                    "true" => 1,
                    "false" => 0,
                    _ => return bad(),
                };
                Ok(InstData::Const { ty: Type::Bool, bits })
            }
        }
    }

    /// `load.<space>.<type> [vA]` or `store.<space> [vA], vB`.
    fn memory(&self, op: &str, c: &mut Cursor) -> Result<InstData, ParseError> {
        let mut parts = op.split('.');
        let kind = parts.next().unwrap_or("");
        let space_name = parts.next().unwrap_or("");
        let Some(&space) = MemSpace::ALL.iter().find(|s| s.name() == space_name) else {
            return self.err(format!("unknown memory space `{space_name}` in `{op}`"));
        };
        let ty = if kind == "load" {
            let tn = parts.next().unwrap_or("");
            match Type::ALL.iter().find(|t| t.name() == tn) {
                Some(&t) => Some(t),
                None => return self.err(format!("unknown type `{tn}` in `{op}`")),
            }
        } else {
            None
        };
        if parts.next().is_some() {
            return self.err(format!("unknown instruction `{op}`"));
        }
        self.expect(c, '[')?;
        let addr = self.value(c)?;
        self.expect(c, ']')?;
        Ok(match ty {
            Some(ty) => InstData::Load { space, ty, addr },
            None => {
                self.expect(c, ',')?;
                let value = self.value(c)?;
                InstData::Store { space, addr, value }
            }
        })
    }

    /// `atomic_rmw.<op>.<space> [vA], vB` or `atomic_cas.<space> [vA], vExpected, vValue`.
    fn atomic(&self, op: &str, c: &mut Cursor) -> Result<InstData, ParseError> {
        let parts: Vec<&str> = op.split('.').collect();
        let (rmw, space_name) = match parts.as_slice() {
            ["atomic_rmw", o, s] => match AtomicOp::ALL.iter().find(|a| a.name() == *o) {
                Some(&a) => (Some(a), *s),
                None => return self.err(format!("unknown atomic operation `{o}` in `{op}`")),
            },
            ["atomic_cas", s] => (None, *s),
            _ => return self.err(format!("unknown instruction `{op}`")),
        };
        let Some(&space) = MemSpace::ALL.iter().find(|s| s.name() == space_name) else {
            return self.err(format!("unknown memory space `{space_name}` in `{op}`"));
        };
        self.expect(c, '[')?;
        let addr = self.value(c)?;
        self.expect(c, ']')?;
        self.expect(c, ',')?;
        let first = self.value(c)?;
        Ok(match rmw {
            Some(op) => InstData::AtomicRmw { op, space, addr, value: first },
            None => {
                self.expect(c, ',')?;
                let value = self.value(c)?;
                InstData::AtomicCas { space, addr, expected: first, value }
            }
        })
    }

    /// Wave operations; `ty` is the result's type where the instruction needs one.
    fn wave(&self, op: &str, c: &mut Cursor, ty: Option<Type>) -> Result<InstData, ParseError> {
        let ty = ty.unwrap_or(Type::I32);
        if let Some(vote) = VoteOp::ALL.iter().find(|v| v.name() == op) {
            return Ok(InstData::WaveVote { op: *vote, cond: self.value(c)? });
        }
        let (kind, sub) = op.split_once('.').unwrap_or((op, ""));
        match (kind, sub) {
            ("wave_reduce" | "wave_prefix", _) => {
                let Some(&wop) = WaveOp::ALL.iter().find(|w| w.name() == sub) else {
                    return self.err(format!("unknown wave operation `{sub}` in `{op}`"));
                };
                let arg = self.value(c)?;
                Ok(if kind == "wave_reduce" { InstData::WaveReduce { op: wop, arg } } else { InstData::WavePrefix { op: wop, arg } })
            }
            ("wave_ballot", "") => {
                let cond = self.value(c)?;
                self.expect(c, ',')?;
                let word = self.number(c, "a ballot word (0..=3)")?;
                Ok(InstData::WaveBallot { cond, word })
            }
            ("wave_read_lane", "") => {
                let arg = self.value(c)?;
                self.expect(c, ',')?;
                let lane = self.value(c)?;
                Ok(InstData::WaveReadLane { ty, arg, lane })
            }
            ("wave_read_first", "") => Ok(InstData::WaveReadFirst { ty, arg: self.value(c)? }),
            _ => self.err(format!("unknown instruction `{op}`")),
        }
    }

    /// `(v1, v2)`, possibly empty.
    fn args(&self, c: &mut Cursor) -> Result<Vec<Value>, ParseError> {
        self.expect(c, '(')?;
        let mut args = Vec::new();
        if c.eat(')') {
            return Ok(args);
        }
        loop {
            args.push(self.value(c)?);
            if c.eat(')') {
                return Ok(args);
            }
            self.expect(c, ',')?;
        }
    }

    fn value(&self, c: &mut Cursor) -> Result<Value, ParseError> {
        let w = c.word();
        match w.strip_prefix('v').and_then(entity_number) {
            Some(n) if n <= MAX_ENTITY => Ok(Value::from_u32(n)),
            Some(_) => self.err(format!("value number `{w}` is too large")),
            None => self.err(format!("expected a value (`v1`), found `{}`", if w.is_empty() { c.rest() } else { w })),
        }
    }

    fn block(&self, c: &mut Cursor) -> Result<Block, ParseError> {
        let w = c.word();
        match w.strip_prefix("block").and_then(entity_number) {
            Some(n) if n <= MAX_ENTITY => Ok(Block::from_u32(n)),
            Some(_) => self.err(format!("block number `{w}` is too large")),
            None => self.err(format!("expected a block (`block1`), found `{}`", if w.is_empty() { c.rest() } else { w })),
        }
    }

    fn ty(&self, c: &mut Cursor) -> Result<Type, ParseError> {
        let w = c.word();
        match Type::ALL.iter().find(|t| t.name() == w) {
            Some(&t) => Ok(t),
            None => self.err(format!("expected a type (b1, i32, f32, i16, f16, i64, f64), found `{w}`")),
        }
    }

    fn number(&self, c: &mut Cursor, what: &str) -> Result<u32, ParseError> {
        let w = c.word();
        match entity_number(w) {
            Some(n) => Ok(n),
            None => self.err(format!("expected {what}, found `{w}`")),
        }
    }

    fn keyword(&self, c: &mut Cursor, kw: &str) -> Result<(), ParseError> {
        let w = c.word();
        if w == kw {
            Ok(())
        } else {
            self.err(format!("expected `{kw}`, found `{}`", if w.is_empty() { c.rest() } else { w }))
        }
    }

    fn expect(&self, c: &mut Cursor, ch: char) -> Result<(), ParseError> {
        if c.eat(ch) {
            Ok(())
        } else {
            self.err(format!("expected `{ch}`, found `{}`", c.rest()))
        }
    }

    fn end(&self, c: &mut Cursor) -> Result<(), ParseError> {
        if c.rest().is_empty() {
            Ok(())
        } else {
            self.err(format!("unexpected `{}` at the end of the line", c.rest()))
        }
    }
}

/// Decimal digits only (no sign, no leading zero unless the number is 0), as the printer writes them.
fn entity_number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.parse().ok()
}

/// A position in one line.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Cursor<'a> {
        Cursor { s, pos: 0 }
    }

    fn skip_ws(&mut self) {
        let rest = &self.s[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The rest of the line, without leading blanks.
    fn rest(&mut self) -> &'a str {
        self.skip_ws();
        &self.s[self.pos..]
    }

    fn eat(&mut self, ch: char) -> bool {
        if self.rest().starts_with(ch) {
            self.pos += ch.len_utf8();
            true
        } else {
            false
        }
    }

    /// A run of letters, digits, `_` and `.` (possibly empty).
    fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')).unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }
}

/// Turns the parsed lines into a `Function`, creating entities in number order.
fn build(p: Parsed) -> Result<Function, ParseError> {
    let mut f = Function::new(p.name);
    f.local_memory = p.local_memory;
    f.local_arrays = p.local_arrays;
    f.readable = p.readable;
    f.padded = p.padded;
    fn err<T>(line: usize, message: String) -> Result<T, ParseError> {
        Err(ParseError { line, message })
    }

    // Where each value is defined: (line, type, definition); instruction ids follow the text.
    let mut defs: BTreeMap<Value, (usize, Type, ValueDef)> = BTreeMap::new();
    let mut labels: BTreeMap<Block, usize> = BTreeMap::new();
    let mut max_block: Option<Block> = None;
    let mut next_inst = 0usize;
    for pb in &p.blocks {
        if let Some(&first) = labels.get(&pb.block) {
            return err(pb.line, format!("{} is already defined on line {first}", pb.block));
        }
        labels.insert(pb.block, pb.line);
        max_block = max_block.max(Some(pb.block));
        let mut define = |v: Value, line: usize, ty: Type, def: ValueDef| {
            if let Some(&(first, ..)) = defs.get(&v) {
                return err(line, format!("{v} is already defined on line {first}"));
            }
            defs.insert(v, (line, ty, def));
            Ok(())
        };
        for (i, &(v, ty)) in pb.params.iter().enumerate() {
            define(v, pb.line, ty, ValueDef::Param(pb.block, i as u32))?;
        }
        for pi in &pb.insts {
            if let Some((v, ty)) = pi.result {
                define(v, pi.line, ty, ValueDef::Inst(Inst::new(next_inst)))?;
            }
            next_inst += 1;
        }
        if let Some((_, term, _)) = &pb.term {
            for s in term_blocks(term) {
                max_block = max_block.max(Some(s));
            }
        }
    }
    // Every use must name a value defined somewhere (where is the verifier's business).
    for pb in &p.blocks {
        let uses = pb.insts.iter().map(|pi| (pi.line, pi.data.args())).chain(pb.term.iter().map(|(line, t, _)| (*line, t.args())));
        for (line, args) in uses {
            if let Some(v) = args.into_iter().find(|v| !defs.contains_key(v)) {
                return err(line, format!("{v} is used but never defined"));
            }
        }
    }

    if let Some(max) = max_block {
        for _ in 0..=max.index() {
            f.create_block();
        }
    }
    f.entry = p.blocks.first().map(|b| b.block);

    // Values in number order; numbers the text skips get a placeholder that an
    // instruction outside every block defines, as dead-code removal leaves them.
    let mut placeholders = Vec::new();
    if let Some((&max, _)) = defs.iter().next_back() {
        for n in 0..=max.index() {
            let v = Value::new(n);
            let (ty, def) = match defs.get(&v) {
                Some(&(_, ty, def)) => (ty, def),
                None => {
                    let inst = Inst::new(next_inst + placeholders.len());
                    placeholders.push(v);
                    (Type::I32, ValueDef::Inst(inst))
                }
            };
            f.values.push(ValueData { ty, def });
        }
    }

    for pb in p.blocks {
        let b = pb.block;
        f.blocks[b].params = pb.params.iter().map(|&(v, _)| v).collect();
        for pi in pb.insts {
            let inst = f.insts.push(pi.data);
            f.results[inst] = pi.result.map(|(v, _)| v);
            f.blocks[b].insts.push(inst);
        }
        if let Some((_, term, hint)) = pb.term {
            f.blocks[b].term = term;
            if hint != LoopHint::None {
                f.loop_hints[b] = hint;
            }
        }
    }
    for v in placeholders {
        let inst = f.insts.push(InstData::Const { ty: Type::I32, bits: 0 });
        f.results[inst] = Some(v);
    }
    Ok(f)
}

fn term_blocks(t: &Terminator) -> Vec<Block> {
    match t {
        Terminator::None | Terminator::Return => vec![],
        Terminator::Jump { dest, .. } => vec![*dest],
        Terminator::If { then_dest, else_dest, merge, .. } => vec![*then_dest, *else_dest, *merge],
        Terminator::Loop { header, exit, .. } => vec![*header, *exit],
        Terminator::BreakIf { exit, cont, .. } => vec![*exit, *cont],
    }
}

#[cfg(test)]
mod tests;
