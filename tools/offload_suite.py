#!/usr/bin/env python3
"""offload_suite.py - run offload-test-suite style .test files against a runner.

Enumerates the LLVM offload-test-suite's lit tests (or any directory of .test
files in the same format), keeps the compute-only ones a
buffer-only HLSL compute target can run, splits each (split-file style) into
its parts in a temp dir, runs a RUNNER command on every offloader invocation
and judges it.  Prints a per-directory table and writes a JSON report.
`tools/offload-suite` runs it with `wavec run` as the runner.

  python3 offload_suite.py --suite SUITE --runner 'wavec run {pipeline} {source} --entry {entry} {args}' --wave-size 32
  python3 offload_suite.py --suite SUITE --list                    # eligibility only, no runs
  python3 offload_suite.py --tests DIR --runner '...'              # any directory of .test files

SUITE is a checkout of llvm/offload-test-suite, its test/ directory, or a bare git mirror of it.
Needs Python 3 with PyYAML and numpy, and FileCheck (llvm-15-tools) for FileCheck-judged tests.

Runner contract (what `wavec run` must do):
  * placeholders: {pipeline} pipeline.yaml path, {source} HLSL path, {entry}
    entry point, {profile} e.g. cs_6_5, {args} the test's other DXC flags
    (-D.., -enable-16bit-types, -HV 2021, ...; already shell-quoted), {dir}
    the temp dir, {test} the test's path relative to the suite root.  Values
    are shell-quoted; the command runs under /bin/sh in {dir}.
  * read the pipeline (Buffers, DescriptorSets, Results, Shaders,
    DispatchParameters.DispatchGroupCount or legacy Shaders[].DispatchSize),
    compile + run, compare every Results entry (BufferExact, BufferFloatULP,
    BufferFloatEpsilon; see check_result below).
  * exit 0 when all Results match; then print the pipeline with the buffers'
    final contents to stdout in the offloader's YAML format (tests without
    Results are judged by running FileCheck on that output, as lit does).
  * exit 1 when a Result does not match (details to stderr); 77 = "this
    runner does not support something in the test"; anything else = error.

Eligibility (runner-independent; see skip_reasons()): compute stage only, no
textures/samplers, root signatures, ray tracing, push or specialization
constants, descriptor-heap indexing or reserved resources, offloader runs that
are expected to fail (`not %offloader`) are dropped, and REQUIRES/UNSUPPORTED
are evaluated against the target's feature set: SM_6_0..SM_6_9, the
--features given (Half, Int16, Int64, Double, ...) and WaveSize_<n> for each
--wave-size.  Features implied by the YAML (Float16 -> Half, Int16/UInt16 ->
Int16, Int64/UInt64/Hex64 -> Int64, Float64 -> Double) and by 64-/16-bit types
in the source count as REQUIRES too.  No API (DirectX/Vulkan/Metal) or
compiler (DXC/Clang) feature is set, so `REQUIRES: Vulkan` tests are skipped
and `UNSUPPORTED: Vulkan` ones are kept.

Failures are classified (`class` in the report): from the runner's exit code
and the first diagnostic, or from NOTES (a JSON file of {test: {class, note}}
written after reading each failure; --notes).

Only our code; the suite itself is read from a local checkout or bare mirror
and never copied into the repository.
"""

import argparse
import collections
import fractions
import json
import math
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import yaml  # PyYAML: BaseLoader keeps every scalar a string; LLVM rules applied below

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SUITE = os.environ.get("OFFLOAD_SUITE_GIT")
SM_FEATURES = {"SM_6_%d" % i for i in range(10)}

# --------------------------------------------------------------------------
# lit-style test files


def split_file(text):
    """LLVM split-file: a part starts at a line `X--- name` (X one char) or
    `//--- name`; returns {name: content} in order."""
    parts, cur, buf = collections.OrderedDict(), None, []
    for line in text.split("\n"):
        ml = 6 if line.startswith("//") else 5
        if len(line) >= ml and line[ml - 4:ml] == "--- " and line[ml:].strip():
            if cur is not None:
                parts[cur] = "\n".join(buf) + "\n"
            cur, buf = line[ml:].strip(), []
            continue
        if cur is not None:
            buf.append(line)
    if cur is not None:
        parts[cur] = "\n".join(buf).rstrip("\n") + "\n"
    return parts


def directive_lines(text, kw):
    """Values of `# KW: ...` lines (lit keywords)."""
    return [m.group(1).strip() for m in re.finditer(r"(?m)^\s*(?:#|//|;)\s*%s:(.*)$" % kw, text)]


def run_lines(text):
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^\s*(?:#|//|;)\s*RUN:(.*)$", lines[i])
        if m:
            s = m.group(1).strip()
            while s.endswith("\\") and i + 1 < len(lines):
                i += 1
                m2 = re.match(r"^\s*(?:#|//|;)\s*RUN:(.*)$", lines[i])
                s = s[:-1].rstrip() + " " + (m2.group(1).strip() if m2 else "")
            out.append(s)
        i += 1
    return out


# ---- lit boolean expressions (REQUIRES / UNSUPPORTED / XFAIL)

def _lit_eval(expr, feats):
    toks = re.findall(r"\{\{.*?\}\}[-+=._a-zA-Z0-9{}]*|[-+=._a-zA-Z0-9]+(?:\{\{.*?\}\}[-+=._a-zA-Z0-9]*)*|&&|\|\||!|\(|\)", expr)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take():
        pos[0] += 1
        return toks[pos[0] - 1]

    def atom():
        t = take()
        if t == "!":
            return not atom()
        if t == "(":
            v = orx()
            take()
            return v
        if t == "true":
            return True
        if "{{" in t:
            rx = "".join(p[2:-2] if p.startswith("{{") else re.escape(p)
                         for p in re.split(r"(\{\{.*?\}\})", t) if p)
            return any(re.fullmatch(rx, f) for f in feats)
        return t in feats

    def andx():
        v = atom()
        while peek() == "&&":
            take()
            v = atom() and v
        return v

    def orx():
        v = andx()
        while peek() == "||":
            take()
            v = andx() or v
        return v
    return orx()


def lit_requires_missing(lines, feats):
    bad = []
    for line in lines:
        for e in line.split(","):
            if e.strip() and not _lit_eval(e, feats):
                bad.append(e.strip())
    return bad


def lit_any_true(lines, feats):
    hits = []
    for line in lines:
        for e in line.split(","):
            if e.strip() == "*" or (e.strip() and _lit_eval(e, feats)):
                hits.append(e.strip())
    return hits


# ---- RUN line commands

def parse_runs(runs):
    """-> (compiles {objname: dict}, offloads [dict], others [str])."""
    compiles, offloads, others = {}, [], []
    for r in runs:
        for cmd in [c.strip() for c in r.split("&&")]:
            stages = [s.strip() for s in cmd.split("|")]
            try:
                words = shlex.split(stages[0])
            except ValueError:
                words = stages[0].split()
            if not words:
                continue
            neg = False
            if words[0] == "not":
                neg, words = True, words[1:]
            tool = words[0] if words else ""
            if tool in ("%dxc_target", "%dxc_target_lib"):
                c = dict(profile=None, entry=None, out=None, src=None, args=[])
                k = 1
                while k < len(words):
                    w = words[k]
                    if w == "-T":
                        c["profile"] = words[k + 1]; k += 2; continue
                    if w == "-E":
                        c["entry"] = words[k + 1]; k += 2; continue
                    if w == "-Fo":
                        c["out"] = words[k + 1]; k += 2; continue
                    if w in ("-D", "-HV", "-I"):
                        c["args"] += [w, words[k + 1]]; k += 2; continue
                    if w.startswith("-"):
                        c["args"].append(w); k += 1; continue
                    c["src"] = w
                    k += 1
                compiles[c["out"]] = c
            elif tool == "%offloader":
                o = dict(neg=neg, yaml=None, objs=[], opts=[], filecheck=None, stderr_to_stdout=False)
                for w in words[1:]:
                    if w.startswith("2>&1"):
                        o["stderr_to_stdout"] = True
                    elif w.startswith("-"):
                        o["opts"].append(w)
                    elif o["yaml"] is None:
                        o["yaml"] = w
                    else:
                        o["objs"].append(w)
                if len(stages) > 1 and "FileCheck" in stages[1]:
                    o["filecheck"] = shlex.split(stages[1])[1:]
                offloads.append(o)
            elif tool in ("split-file",):
                continue
            else:
                others.append(cmd)
    return compiles, offloads, others


def _tname(path):
    """'%t/pipeline.yaml' -> 'pipeline.yaml'"""
    return path.replace("%t/", "").replace("%t", "")


# --------------------------------------------------------------------------
# pipeline.yaml (LLVM YAMLTraits semantics on top of PyYAML's BaseLoader)

FORMATS = {  # name -> (struct code, size, kind)
    "Hex8": ("B", 1, "u"), "Hex16": ("H", 2, "u"), "Hex32": ("I", 4, "u"), "Hex64": ("Q", 8, "u"),
    "UInt16": ("H", 2, "u"), "UInt32": ("I", 4, "u"), "UInt64": ("Q", 8, "u"),
    "Int16": ("h", 2, "i"), "Int32": ("i", 4, "i"), "Int64": ("q", 8, "i"),
    "Float16": ("H", 2, "u"),  # raw half bits, as the offloader reads it (Hex16)
    "Float32": ("I", 4, "f"), "Depth32": ("I", 4, "f"), "Float64": ("Q", 8, "d"),
    "Bool": ("I", 4, "u"),
}
FLOAT_FORMATS = ("Float16", "Float32", "Float64")
FORMAT_FEATURE = {"Float16": "Half", "Int16": "Int16", "UInt16": "Int16", "Float64": "Double",
                  "Int64": "Int64", "UInt64": "Int64", "Hex64": "Int64"}


class PipelineError(Exception):
    pass


def _auto_radix_int(s):
    """llvm::getAsUnsignedInteger(S, 0, N): 0x / 0b / 0o / leading-0 octal."""
    t = s
    if t[:2] in ("0x", "0X"):
        base, t = 16, t[2:]
    elif t[:2] in ("0b", "0B"):
        base, t = 2, t[2:]
    elif t[:2] == "0o":
        base, t = 8, t[2:]
    elif len(t) > 1 and t[0] == "0":
        base, t = 8, t[1:]
    else:
        base = 10
    if not t or not re.fullmatch(r"[0-9a-fA-F]+", t):
        raise PipelineError("invalid number %r" % s)
    return int(t, base)


def parse_int(s, bits, signed):
    s = s.strip()
    if signed and s.startswith("-"):
        v = -_auto_radix_int(s[1:])
    else:
        v = _auto_radix_int(s)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= v <= hi:
        raise PipelineError("out of range number %r" % s)
    return v


def _round_fraction(q, mant_bits, emin, emax):
    """Round a non-negative Fraction to an IEEE binary format: (biased exp, mantissa)."""
    if q == 0:
        return 0, 0
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if fractions.Fraction(2) ** e > q:
        e -= 1
    e = max(e, emin)
    scaled = q * fractions.Fraction(2) ** (mant_bits - e)
    m = scaled.numerator // scaled.denominator
    rem = scaled - m
    if rem > fractions.Fraction(1, 2) or (rem == fractions.Fraction(1, 2) and m & 1):
        m += 1
    if m >= 1 << (mant_bits + 1):
        m >>= 1
        e += 1
    if e > emax:
        return (1 << 30), 0  # overflow -> inf (caller maps)
    if m < 1 << mant_bits:  # subnormal
        return 0, m
    return e - emin + 1, m - (1 << mant_bits)


def float_bits(s, bits):
    """strtof/strtod of a YAML scalar -> raw IEEE bits (32 or 64)."""
    t = s.strip()
    neg = t.startswith("-")
    body = t[1:] if t[:1] in "+-" else t
    low = body.lower()
    mant, expb = (23, 8) if bits == 32 else (52, 11)
    sign = (1 << (bits - 1)) if neg else 0
    expmask = ((1 << expb) - 1) << mant
    if low in ("inf", "infinity"):
        return sign | expmask
    if low == "nan" or low.startswith("nan("):
        return sign | expmask | (1 << (mant - 1))
    try:
        if low.startswith("0x"):
            q = fractions.Fraction(float.fromhex(body)) if "p" in low or "." in low else fractions.Fraction(int(body, 16))
        else:
            if not re.fullmatch(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", body):
                raise ValueError
            q = fractions.Fraction(body)
    except (ValueError, OverflowError):
        raise PipelineError("invalid floating point number %r" % s)
    emax = (1 << (expb - 1)) - 1
    emin = 1 - emax
    be, m = _round_fraction(q, mant, emin, emax)
    if be >= (1 << expb) - 1:
        return sign | expmask
    return sign | (be << mant) | m


def parse_scalar(s, fmt):
    code, size, kind = FORMATS[fmt]
    if kind == "f":
        return float_bits(s, 32)
    if kind == "d":
        return float_bits(s, 64)
    return parse_int(s, size * 8, kind == "i")


def pack_values(vals, fmt):
    code = FORMATS[fmt][0]
    return struct.pack("<%d%s" % (len(vals), code), *vals)


def unpack_values(raw, fmt):
    code, size, _ = FORMATS[fmt]
    n = len(raw) // size
    return list(struct.unpack_from("<%d%s" % (n, code), raw))


class Buffer:
    def __init__(self, d):
        self.name = d["Name"]
        self.format = d["Format"]
        if self.format not in FORMATS:
            raise PipelineError("unknown Format %r" % self.format)
        self.channels = int(d.get("Channels", "1"))
        self.stride = int(d.get("Stride", "0"))
        self.array_size = int(d.get("ArraySize", "1"))
        self.output_props = d.get("OutputProps")
        if self.stride and self.channels != 1:
            raise PipelineError("Cannot set a structure stride and more than one channel.")
        if "ZeroInitSize" in d:
            raise PipelineError("invalid key 'ZeroInitSize' - did you mean 'FillSize'?")
        esize = FORMATS[self.format][1]
        fill = parse_int(d.get("FillSize", "0"), 63, True)
        if fill > 0:
            fv = parse_scalar(d["FillValue"], self.format) if "FillValue" in d else 0
            one = pack_values([fv], self.format)
            raw = (one * (fill // esize + 1))[:fill]
            self.data = [bytearray(raw) for _ in range(self.array_size)]
        else:
            if "FillValue" in d:
                raise PipelineError("'FillValue' specified without 'FillSize'")
            data = d.get("Data")
            if data is None:
                raise PipelineError("buffer %s: missing required key 'Data'" % self.name)
            if self.array_size == 1:
                self.data = [bytearray(pack_values([parse_scalar(x, self.format) for x in data], self.format))]
            else:
                arrs = [bytearray(pack_values([parse_scalar(x, self.format) for x in a], self.format)) for a in data]
                if len(set(len(a) for a in arrs)) > 1:
                    raise PipelineError("All buffers must have the same size.")
                if len(arrs) != self.array_size:
                    raise PipelineError("Expected %d buffers, found %d" % (self.array_size, len(arrs)))
                self.data = arrs
        self.size = len(self.data[0])
        self.counters = []

    def element_size(self):
        return self.stride if self.stride > 0 else FORMATS[self.format][1] * self.channels


class Resource:
    def __init__(self, d, set_index):
        self.name = d["Name"]
        self.kind = d["Kind"]
        self.set_index = set_index
        self.has_counter = d.get("HasCounter", "false").lower() in ("true", "1", "yes")
        dx = d.get("DirectXBinding")
        self.dx = (int(dx["Register"]), int(dx["Space"])) if dx else None
        vkb = d.get("VulkanBinding")
        self.vk = int(vkb["Binding"]) if vkb else None
        self.vk_counter = int(vkb["CounterBinding"]) if vkb and "CounterBinding" in vkb else None
        self.heap_index = d.get("HeapIndex")
        self.extra = {k: d[k] for k in ("TilesMapped", "IsReserved") if k in d}

    @property
    def dx_class(self):
        return {"StructuredBuffer": "t", "ByteAddressBuffer": "t", "Buffer": "t", "Texture2D": "t",
                "RWStructuredBuffer": "u", "RWByteAddressBuffer": "u", "RWBuffer": "u", "RWTexture2D": "u",
                "ConstantBuffer": "b", "Sampler": "s"}.get(self.kind, "?")


class Result:
    def __init__(self, d):
        self.name = d["Result"]
        self.rule = d["Rule"]
        self.actual = d["Actual"]
        self.expected = d["Expected"]
        self.denorm = d.get("DenormMode", "Any")
        self.ulpt = int(d["ULPT"]) if "ULPT" in d else None
        self.epsilon = float(d["Epsilon"]) if "Epsilon" in d else None
        self.zero_tol = float(d.get("ZeroTolerance", "0"))
        if self.rule == "BufferFloatULP" and self.ulpt is None:
            raise PipelineError("missing required key 'ULPT'")
        if self.rule == "BufferFloatEpsilon" and self.epsilon is None:
            raise PipelineError("missing required key 'Epsilon'")
        if self.rule not in ("BufferExact", "BufferFloatULP", "BufferFloatEpsilon"):
            raise PipelineError("unknown Rule %r" % self.rule)


class Pipeline:
    def __init__(self, text):
        # LLVM's YAML parser skips repeated flow-entry commas ("0,, 1"): so do we
        text = re.sub(r",(\s*,)+", ",", text)
        try:
            doc = yaml.load(text, Loader=yaml.BaseLoader)
        except yaml.YAMLError as e:
            raise PipelineError("YAML: %s" % e)
        if not isinstance(doc, dict):
            raise PipelineError("pipeline is not a mapping")
        self.doc = doc
        for k in ("Shaders", "Buffers", "DescriptorSets"):
            if k not in doc:
                raise PipelineError("missing required key '%s'" % k)
        self.shaders = doc["Shaders"]
        self.buffers = [Buffer(b) for b in doc["Buffers"]]
        self.by_name = {b.name: b for b in self.buffers}
        self.sets = [[Resource(r, i) for r in (s.get("Resources") or [])] for i, s in enumerate(doc["DescriptorSets"] or [])]
        self.resources = [r for s in self.sets for r in s]
        self.results = [Result(r) for r in (doc.get("Results") or [])]
        for r in self.resources:
            if r.kind not in ("Sampler", "AccelerationStructure") and r.name not in self.by_name:
                raise PipelineError("Referenced buffer %s not found!" % r.name)
        for r in self.results:
            for n in (r.actual, r.expected):
                if n not in self.by_name:
                    raise PipelineError("Reference buffer %s not found!" % n)
            if r.rule != "BufferExact":
                fa, fe = self.by_name[r.actual].format, self.by_name[r.expected].format
                if fa not in FLOAT_FORMATS + ("Depth32",) or fe not in FLOAT_FORMATS + ("Depth32",):
                    raise PipelineError("BufferFloat only accepts Float buffers")
                if fa != fe:
                    raise PipelineError("Buffers must have the same type")
        disp = None
        dp = doc.get("DispatchParameters") or {}
        if "DispatchGroupCount" in dp:
            disp = dp["DispatchGroupCount"]
        elif self.shaders and "DispatchSize" in self.shaders[0]:  # pre-2026-05 format
            disp = self.shaders[0]["DispatchSize"]
        self.dispatch = [int(x) for x in disp] if disp else [1, 1, 1]
        self.entry = self.shaders[0].get("Entry", "main") if self.shaders else "main"
        self.stage = self.shaders[0].get("Stage", "") if self.shaders else ""


# --------------------------------------------------------------------------
# Results checking: a port of offload-test-suite lib/Support/Check.cpp

def _f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def _f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _half_to_float(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def _is_denorm32(bits):
    return (bits & 0x7F800000) == 0 and (bits & 0x7FFFFF) != 0


def _is_denorm64(bits):
    return (bits >> 52) & 0x7FF == 0 and (bits & ((1 << 52) - 1)) != 0


def _cmp_float(a_bits, r_bits, rule, ulpt, eps, dm, zt, width):
    """compareFloat{ULP,Epsilon} / compareDouble{ULP,Epsilon}."""
    import numpy as np
    if width == 32:
        fs, fr = np.float32(_f32(a_bits)), np.float32(_f32(r_bits))
        isden, signbit, nbits = _is_denorm32, 31, 32
    else:
        fs, fr = np.float64(_f64(a_bits)), np.float64(_f64(r_bits))
        isden, signbit, nbits = _is_denorm64, 63, 64
    if fs == fr:
        return True
    if math.isnan(fs) or math.isnan(fr):
        return math.isnan(fs) and math.isnan(fr)
    if dm == "Any" and isden(r_bits) and fs == 0 and (a_bits >> signbit) == (r_bits >> signbit):
        return True
    if rule == "BufferFloatEpsilon":
        if width == 32:
            return bool(np.abs(np.float32(fs - fr)) < np.float32(eps))
        return bool(abs(fs - fr) < eps)
    if zt > 0:
        z = np.float32(zt) if width == 32 else zt
        if abs(fs) <= z or abs(fr) <= z:
            return bool(abs(fs - fr) <= z)
    d = (a_bits - r_bits) & ((1 << nbits) - 1)
    if d >= 1 << (nbits - 1):
        d -= 1 << nbits
    return abs(d) <= ulpt


def _cmp_half(a, r, rule, ulpt, eps, zt):
    if (a & 0x7FFF) == 0 and (r & 0x7FFF) == 0:
        return True
    if a == r:
        return True
    isnan = lambda h: (h & 0x7C00) == 0x7C00 and (h & 0x3FF) != 0  # noqa: E731
    if isnan(a) or isnan(r):
        return isnan(a) and isnan(r)
    import numpy as np
    fa, fr = np.float32(_half_to_float(a)), np.float32(_half_to_float(r))
    if rule == "BufferFloatEpsilon":
        return bool(np.abs(np.float32(fa - fr)) < np.float32(eps))
    if zt > 0 and (abs(fa) <= np.float32(zt) or abs(fr) <= np.float32(zt)):
        return bool(abs(fa - fr) <= np.float32(zt))
    order = lambda h: (~h & 0xFFFF) if h & 0x8000 else (h | 0x8000)  # noqa: E731
    return abs(order(a) - order(r)) <= ulpt


def check_result(res, pipe, max_report=8):
    """-> (ok, [mismatch strings])."""
    A, E = pipe.by_name[res.actual], pipe.by_name[res.expected]
    if A.array_size != E.array_size or A.size != E.size:
        return False, ["size mismatch: %s is %d x %d bytes, %s is %d x %d bytes" % (
            A.name, A.array_size, A.size, E.name, E.array_size, E.size)]
    bad = []
    for ai, (ad, ed) in enumerate(zip(A.data, E.data)):
        if res.rule == "BufferExact":
            if bytes(ad) != bytes(ed):
                fmt = E.format if E.format == A.format else "Hex8"
                av, ev = unpack_values(bytes(ad), fmt), unpack_values(bytes(ed), fmt)
                for i, (x, y) in enumerate(zip(av, ev)):
                    if x != y:
                        bad.append("[%d]%s: expected=%s actual=%s" % (ai, i, fmt_scalar(y, fmt), fmt_scalar(x, fmt)))
                if not bad:
                    bad.append("bytes differ")
            continue
        fmt = A.format
        av, ev = unpack_values(bytes(ad), fmt), unpack_values(bytes(ed), fmt)
        for i, (x, y) in enumerate(zip(av, ev)):
            if fmt == "Float16":
                ok = _cmp_half(x, y, res.rule, res.ulpt, res.epsilon, res.zero_tol)
            else:
                ok = _cmp_float(x, y, res.rule, res.ulpt, res.epsilon, res.denorm, res.zero_tol,
                                64 if fmt == "Float64" else 32)
            if not ok:
                bad.append("[%d]%d: expected=%s actual=%s" % (ai, i, fmt_scalar(y, fmt), fmt_scalar(x, fmt)))
    if len(bad) > max_report:
        bad = bad[:max_report] + ["... %d mismatches in all" % len(bad)]
    return not bad, bad


# --------------------------------------------------------------------------
# offloader-style YAML output (llvm::yaml::Output formatting, Buffers exact)

def _g(x):
    if math.isnan(x):
        return "-nan" if math.copysign(1, x) < 0 else "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return "%g" % x


def fmt_scalar(v, fmt):
    if fmt.startswith("Hex") or fmt == "Float16":
        return "0x%X" % v
    if fmt in ("Float32", "Depth32"):
        return _g(_f32(v))
    if fmt == "Float64":
        return _g(_f64(v))
    return str(v)


class _YOut:
    """Just enough of llvm::yaml::Output: padded keys, flow sequences wrapped at col 70."""

    def __init__(self):
        self.out, self.col = [], 0

    def w(self, s):
        self.out.append(s)
        self.col = len(s) - s.rfind("\n") - 1 if "\n" in s else self.col + len(s)

    def key(self, indent, k, first_in_seq=False):
        self.w("\n" + " " * (indent - 2) + "- " if first_in_seq else "\n" + " " * indent)
        self.w(k + ":")
        self.w(" " * (16 - len(k)) if len(k) < 16 else " ")

    def flow(self, items):
        start = self.col
        self.w("[ ")
        for i, it in enumerate(items):
            if i:
                self.w(", ")
            if self.col > 70:
                self.w("\n" + " " * start)
                self.col = start
                self.w("  ")
            self.w(it)
        self.w(" ]")


def pipeline_yaml_out(pipe):
    y = _YOut()
    y.w("---")
    y.w("\nShaders:")
    for s in pipe.shaders:
        y.key(4, "Stage", True)
        y.w(s.get("Stage", ""))
        y.key(4, "Entry")
        y.w(s.get("Entry", ""))
    y.w("\nBuffers:")
    for b in pipe.buffers:
        y.key(4, "Name", True)
        y.w(b.name)
        y.key(4, "Format")
        y.w(b.format)
        if b.channels != 1:
            y.key(4, "Channels")
            y.w(str(b.channels))
        if b.stride:
            y.key(4, "Stride")
            y.w(str(b.stride))
        if b.array_size != 1:
            y.key(4, "ArraySize")
            y.w(str(b.array_size))
        if b.counters:
            if b.array_size == 1:
                y.key(4, "Counter")
                y.w(str(b.counters[0]))
            else:
                y.key(4, "Counters")
                y.flow([str(c) for c in b.counters])
        vals = [[fmt_scalar(v, b.format) for v in unpack_values(bytes(d), b.format)] for d in b.data]
        if b.array_size == 1:
            y.key(4, "Data")
            y.flow(vals[0])
        else:
            y.w("\n    Data:")
            for v in vals:
                y.w("\n      - ")
                y.flow(v)
        y.w("\n    OutputProps:")
        op = b.output_props or {}
        for k in ("Height", "Width", "Depth"):
            y.key(6, k)
            y.w(str(op.get(k, 0)))
    if pipe.results:
        y.w("\nResults:")
        for r in pipe.results:
            y.key(4, "Result", True)
            y.w(r.name)
            y.key(4, "Rule")
            y.w(r.rule)
            y.key(4, "Actual")
            y.w(r.actual)
            y.key(4, "Expected")
            y.w(r.expected)
    y.w("\nDescriptorSets:")
    for s in pipe.sets:
        y.w("\n  - Resources:")
        for r in s:
            y.key(8, "Name", True)
            y.w(r.name)
            y.key(8, "Kind")
            y.w(r.kind)
            if r.dx:
                y.w("\n        DirectXBinding:")
                y.key(10, "Register")
                y.w(str(r.dx[0]))
                y.key(10, "Space")
                y.w(str(r.dx[1]))
            if r.vk is not None:
                y.w("\n        VulkanBinding:")
                y.key(10, "Binding")
                y.w(str(r.vk))
    y.w("\n...\n")
    return "".join(y.out)


# --------------------------------------------------------------------------
# test model + eligibility

TEXTURE_KINDS = {"Texture2D", "RWTexture2D", "Sampler", "SampledTexture2D"}
SRC_TEXTURE = re.compile(r"\b(RW)?Texture(1D|2D|3D|Cube)(Array|MS|MSArray)?\b|\bSampler(Comparison)?State\b|\bFeedbackTexture")
SRC_RAY = re.compile(r"\bRayQuery\b|\bRaytracingAccelerationStructure\b|\bTraceRay\b")
SRC_64 = re.compile(r"\b(double[1-4]?(x[1-4])?|u?int64_t[1-4]?|uint64_t[1-4]?|float64_t[1-4]?)\b")
SRC_16 = re.compile(r"\b(float16_t[1-4]?|u?int16_t[1-4]?|half[1-4]?(x[1-4])?)\b")


def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


class TestCase:
    """One .test file: its parts, RUN pairs, directives."""

    def __init__(self, path, root):
        self.path = path
        self.rel = os.path.relpath(path, root)
        self.dir = os.path.dirname(self.rel) or "."
        with open(path, encoding="utf-8", errors="replace") as f:
            self.text = f.read()
        self.parts = split_file(self.text)
        self.requires = directive_lines(self.text, "REQUIRES")
        self.unsupported = directive_lines(self.text, "UNSUPPORTED")
        self.xfail = directive_lines(self.text, "XFAIL")
        self.runs = run_lines(self.text)
        self.compiles, self.offloads, self.others = parse_runs(self.runs)
        self.cases = []  # (offload, compile, yaml_name, src_name)
        for o in self.offloads:
            if o["neg"] or not o["yaml"]:
                continue
            objs = [self.compiles.get(x) for x in o["objs"]]
            self.cases.append((o, objs))

    def pipeline(self, case):
        return Pipeline(self.parts.get(_tname(case[0]["yaml"]), ""))

    def skip_reasons(self, feats):
        """Why this test is outside the compute-eligible set for a target
        with features `feats` (empty list = eligible)."""
        why = []
        if not self.offloads:
            return ["no %offloader run (" + (self.others[0].split()[0] if self.others else "no RUN") + ")"]
        if not self.cases:
            return ["negative test (expects the offloader to fail)"]
        profiles = [c["profile"] or "" for c in self.compiles.values()]
        if any(not p.startswith("cs_") for p in profiles):
            kinds = sorted(set(p.split("_")[0] for p in profiles if not p.startswith("cs_")))
            if "lib" in kinds:
                return ["ray tracing (lib_ target)"]
            if "ms" in kinds or "as" in kinds:
                return ["mesh/amplification stage"]
            return ["graphics stages (%s)" % ",".join(kinds)]
        if any(any(x is None for x in objs) for _, objs in self.cases):
            why.append("offloader input not produced by a RUN line")
        srcs = []
        for o, objs in self.cases:
            for c in objs:
                if c:
                    srcs.append(_strip_comments(self.parts.get(_tname(c["src"] or ""), "")))
        src = "\n".join(srcs)
        try:
            pipes = [self.pipeline(c) for c in self.cases]
        except PipelineError as e:
            return ["pipeline.yaml not readable: %s" % e]
        docs = [p.doc for p in pipes]
        kinds = {r.kind for p in pipes for r in p.resources}
        if any(p.stage != "Compute" or len(p.shaders) != 1 for p in pipes):
            why.append("not a single compute shader")
        if any("RuntimeSettings" in d for d in docs) or re.search(r"\[\s*RootSignature\s*\(", src) or \
                any("rootsig" in a.lower() for c in self.compiles.values() for a in c["args"]):
            why.append("root signature")
        if any("PushConstants" in d for d in docs) or "push_constant" in src:
            why.append("push constants")
        if any(any("SpecializationConstants" in s for s in (d.get("Shaders") or [])) for d in docs) or "constant_id" in src:
            why.append("specialization constants")
        if kinds & TEXTURE_KINDS or any("Samplers" in d for d in docs) or SRC_TEXTURE.search(src):
            why.append("textures/samplers")
        if "AccelerationStructure" in kinds or any("AccelerationStructures" in d for d in docs) or SRC_RAY.search(src):
            why.append("ray tracing")
        if any(r.heap_index is not None for p in pipes for r in p.resources) or "ResourceDescriptorHeap" in src:
            why.append("descriptor heap indexing")
        if any(r.extra for p in pipes for r in p.resources):
            why.append("reserved/tiled resources")
        if any(b.output_props for p in pipes for b in p.buffers):
            why.append("image output")
        need = set()
        for p in pipes:
            for b in p.buffers:
                if b.format in FORMAT_FEATURE:
                    need.add(FORMAT_FEATURE[b.format])
        m64 = SRC_64.findall(src)
        if m64:
            need.add("Double" if any(x[0].startswith(("double", "float64")) for x in m64) else "Int64")
        if any("-enable-16bit-types" in c["args"] for c in self.compiles.values()) and SRC_16.search(src):
            need.add("Half" if re.search(r"\b(half|float16_t)", src) else "Int16")
        elif re.search(r"\b(float16_t|u?int16_t)", src):
            need.add("Half" if "float16_t" in src else "Int16")
        miss = lit_requires_missing(self.requires, feats)
        if miss:
            why.append("REQUIRES: " + ", ".join(miss))
        implied = sorted(need - set(feats))
        if implied and not miss:
            why.append("needs " + ", ".join(implied) + " (implied by formats/types)")
        uns = lit_any_true(self.unsupported, feats)
        if uns:
            why.append("UNSUPPORTED: " + ", ".join(uns))
        return why

    def upstream_expectation(self, feats):
        """What upstream says for a configuration with `feats`: 'unsupported', 'xfail' or ''."""
        if lit_requires_missing(self.requires, feats):
            return "unsupported(requires)"
        if lit_any_true(self.unsupported, feats):
            return "unsupported"
        if lit_any_true(self.xfail, feats):
            return "xfail"
        return ""

    def check_prefixes(self, fc_args):
        pref = ["CHECK"]
        for i, a in enumerate(fc_args):
            if a.startswith("--check-prefix=") or a.startswith("-check-prefix="):
                pref = [a.split("=", 1)[1]]
            elif a in ("--check-prefix", "-check-prefix") and i + 1 < len(fc_args):
                pref = [fc_args[i + 1]]
            elif a.startswith("--check-prefixes="):
                pref = a.split("=", 1)[1].split(",")
        return pref


# --------------------------------------------------------------------------
# running

def find_filecheck():
    for n in ("FileCheck", "FileCheck-15", "FileCheck-16", "FileCheck-17", "FileCheck-18", "FileCheck-19"):
        p = shutil.which(n)
        if p:
            return p
    for p in ("/usr/lib/llvm-15/bin/FileCheck",):
        if os.path.exists(p):
            return p
    return None


def run_case(test, case, runner, tmp, timeout, filecheck):
    """-> dict(status='pass'|'fail'|'error', reason, rc, secs, stdout_tail, stderr_tail)."""
    o, objs = case
    comp = objs[0] if objs else None
    yaml_name = _tname(o["yaml"])
    src_name = _tname(comp["src"]) if comp and comp["src"] else ""
    try:
        pipe = test.pipeline(case)
        entry = (comp and comp["entry"]) or pipe.entry
    except PipelineError as e:
        return dict(status="error", reason="pipeline: %s" % e, rc=None)
    args = list(comp["args"]) if comp else []
    subst = {
        "pipeline": shlex.quote(os.path.join(tmp, yaml_name)),
        "source": shlex.quote(os.path.join(tmp, src_name)),
        "entry": shlex.quote(entry),
        "profile": shlex.quote((comp and comp["profile"]) or "cs_6_0"),
        "args": " ".join(shlex.quote(a) for a in args),
        "dir": shlex.quote(tmp),
        "test": shlex.quote(test.rel),
        "python": shlex.quote(sys.executable),
        "here": shlex.quote(HERE),
    }
    cmd = runner.format(**subst)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, shell=True, cwd=tmp, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return dict(status="error", reason="timeout (%ds)" % timeout, rc=None, secs=timeout)
    secs = round(time.time() - t0, 2)
    rec = dict(rc=p.returncode, secs=secs, stderr_tail=p.stderr[-1500:], cmd=cmd)
    if p.returncode == 1:
        rec.update(status="fail", reason="results mismatch")
        return rec
    if p.returncode == 77:
        rec.update(status="error", reason="runner: unsupported")
        return rec
    if p.returncode != 0:
        first = next((ln for ln in p.stderr.splitlines() if ln.strip()), "")
        rec.update(status="error", reason="runner exit %d: %s" % (p.returncode, first[:160]))
        return rec
    if o["filecheck"] is not None:
        if not filecheck:
            rec.update(status="error", reason="FileCheck not installed (apt-get install llvm-15-tools)")
            return rec
        fc_args = [a for a in o["filecheck"] if a != "%s"]
        check_path = test.path
        text_in = p.stdout + (p.stderr if o["stderr_to_stdout"] else "")
        q = subprocess.run([filecheck, check_path] + fc_args, input=text_in, capture_output=True, text=True)
        if q.returncode != 0:
            first = next((ln for ln in q.stderr.splitlines() if "error:" in ln), "")
            rec.update(status="fail", reason="FileCheck failed", filecheck_err=first[-300:])
            with open(os.path.join(tmp, "runner_stdout.txt"), "w") as f:
                f.write(text_in)
            return rec
    rec.update(status="pass", reason="")
    return rec


def run_test(test, runner, timeout, filecheck, keep):
    tmp = tempfile.mkdtemp(prefix="ots_")
    try:
        for name, content in test.parts.items():
            p = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(content)
        recs = [run_case(test, c, runner, tmp, timeout, filecheck) for c in test.cases]
    finally:
        if keep:
            dst = os.path.join(keep, test.rel.replace("/", "__"))
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(tmp, dst)
        shutil.rmtree(tmp, ignore_errors=True)
    order = {"error": 2, "fail": 1, "pass": 0}
    worst = max(recs, key=lambda r: order[r["status"]])
    return dict(worst, cases=len(recs), case_results=recs if len(recs) > 1 else None)


# --------------------------------------------------------------------------
# suite discovery

def suite_root(path):
    """A checkout (dir with test/), the test dir itself, or a bare git mirror."""
    if os.path.isdir(os.path.join(path, "test")):
        return os.path.join(path, "test"), None
    if os.path.exists(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects")):
        sha = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        cache = os.path.join(tempfile.gettempdir(), "offload-suite-" + sha[:12])
        if not os.path.isdir(os.path.join(cache, "test")):
            os.makedirs(cache, exist_ok=True)
            a = subprocess.Popen(["git", "-C", path, "archive", "HEAD", "test"], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", cache], stdin=a.stdout, check=True)
            a.wait()
        return os.path.join(cache, "test"), sha
    return path, None


def discover(root):
    out = []
    for dp, dn, fn in os.walk(root):
        dn[:] = sorted(d for d in dn if d != "Inputs")
        for f in sorted(fn):
            if f.endswith(".test") or f.endswith(".yaml"):
                p = os.path.join(dp, f)
                if f.endswith(".yaml"):
                    with open(p, errors="replace") as fh:
                        if "RUN:" not in fh.read():
                            continue
                out.append(p)
    return out


# --------------------------------------------------------------------------
# failure classification

def classify(rec):
    """A class for a non-passing result of `wavec run`, from its exit code and
    first diagnostic (curated notes, --notes, override it)."""
    err = (rec.get("stderr_tail") or "") + " " + (rec.get("reason") or "")
    if rec["status"] == "fail":
        if "FileCheck" in (rec.get("reason") or ""):
            return "wavec bug? FileCheck mismatch"
        return "wavec bug? wrong result"
    if "timeout" in err:
        return "timeout"
    if rec.get("rc") == 77 or "unsupported:" in err:
        return "unsupported: " + (re.search(r"unsupported: ([^\n(]*)", err) or re.search(r"(.{0,60})", err)).group(1).strip()
    m = re.search(r"error\[(E\d{4})\]: ([^\n]*)", err)
    if m:
        code, msg = m.group(1), m.group(2)
        if code.startswith("E03"):
            return "unsupported feature (%s): %s" % (code, msg[:80])
        if code.startswith("E04") and code != "E0403":
            return "wavec bug (internal error %s)" % code
        return "rejected (%s): %s" % (code, msg[:80])
    if rec.get("rc") == 3:
        return "runtime fault"
    if rec.get("rc") == 4:
        return "wavec bug (internal error)"
    return "error: " + (rec.get("reason") or "")[:80]


def load_notes(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


# --------------------------------------------------------------------------
# main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=DEFAULT_SUITE, help="offload-test-suite checkout, its test/ dir, or a bare git mirror")
    ap.add_argument("--tests", nargs="*", help=".test files or directories to run instead of the suite")
    ap.add_argument("--runner", help="command template (see the runner contract above)")
    ap.add_argument("--features", default="", help="extra target features, comma-separated (Half,Int16,Int64,Double,...)")
    ap.add_argument("--wave-size", default="", help="the runner's wave size(s) -> WaveSize_<n> features")
    ap.add_argument("--notes", default=None, help="JSON {test: {class, note}} classifying known failures")
    ap.add_argument("--filter", default=None, help="regex on the test's relative path")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json", default=None, help="write the JSON report here")
    ap.add_argument("--keep", default=None, help="copy each test's temp dir here")
    ap.add_argument("--list", action="store_true", help="only show eligibility")
    ap.add_argument("--show", default="fail,error", help="which statuses to list individually (pass,fail,error,skipped)")
    a = ap.parse_args(argv)

    runner = a.runner
    wave = a.wave_size
    notes = load_notes(a.notes)
    if not a.tests and not a.suite:
        ap.error("give the suite (--suite PATH, or $OFFLOAD_SUITE_GIT) or --tests")
    feats = set(SM_FEATURES) | {f.strip() for f in a.features.split(",") if f.strip()}
    feats |= {"WaveSize_%s" % w.strip() for w in wave.split(",") if w.strip()}
    if a.tests:
        paths, root, sha = [], None, None
        for t in a.tests:
            if os.path.isdir(t):
                paths += discover(t)
                root = root or t
            else:
                paths.append(t)
                root = root or os.path.dirname(t)
        root = os.path.abspath(root or ".")
        paths = [os.path.abspath(p) for p in paths]
        suite_desc = "tests: %s" % ", ".join(a.tests)
    else:
        root, sha = suite_root(a.suite)
        paths = discover(root)
        suite_desc = "suite: %s%s" % (a.suite, " @ %s" % sha if sha else "")
    tests = []
    for p in paths:
        t = TestCase(p, root)
        if a.filter and not re.search(a.filter, t.rel):
            continue
        tests.append(t)

    rows = []
    eligible = []
    for t in tests:
        why = t.skip_reasons(feats)
        if why:
            rows.append(dict(test=t.rel, dir=t.dir, status="skipped", reason="; ".join(why)))
        else:
            eligible.append(t)
    filecheck = find_filecheck()
    print("# %s; %d tests, %d compute-eligible for features %s" % (
        suite_desc, len(tests), len(eligible), ",".join(sorted(feats - SM_FEATURES)) or "(none)"), flush=True)
    if a.list or not runner:
        for t in eligible:
            rows.append(dict(test=t.rel, dir=t.dir, status="eligible", reason=""))
    else:
        print("# runner: %s" % runner, flush=True)
        done = [0]

        def one(t):
            rec = run_test(t, runner, a.timeout, filecheck, a.keep)
            rec.update(test=t.rel, dir=t.dir)
            if t.xfail:
                rec["upstream_xfail"] = "; ".join(t.xfail)
            if rec["status"] != "pass":
                rec["class"] = notes.get(t.rel, {}).get("class") or classify(rec)
                if t.rel in notes:
                    rec["note"] = notes[t.rel].get("note", "")
            done[0] += 1
            if done[0] % 50 == 0:
                print("#   %d/%d" % (done[0], len(eligible)), file=sys.stderr, flush=True)
            return rec
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            rows += list(ex.map(one, eligible))

    # ---- report
    by_dir = collections.OrderedDict()
    for r in sorted(rows, key=lambda r: r["dir"]):
        by_dir.setdefault(r["dir"], collections.Counter())[r["status"]] += 1
    cols = ["pass", "fail", "error", "skipped"] if not (a.list or not runner) else ["eligible", "skipped"]
    print("\n| directory | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    tot = collections.Counter()
    for d, c in by_dir.items():
        tot.update(c)
        print("| %s | %s |" % (d, " | ".join(str(c[k]) for k in cols)))
    print("| **total** | %s |" % " | ".join("**%d**" % tot[k] for k in cols))
    skip_reasons = collections.Counter()
    for r in rows:
        if r["status"] == "skipped":
            for x in r["reason"].split("; "):
                skip_reasons[x] += 1
    print("\nskip reasons (a test can have several):")
    for k, v in skip_reasons.most_common():
        print("  %4d  %s" % (v, k))
    show = set(a.show.split(","))
    listed = [r for r in rows if r["status"] in show]
    if listed:
        print("\n| test | status | class / reason |")
        print("|---|---|---|")
        for r in sorted(listed, key=lambda r: r["test"]):
            why = r.get("class") or ""
            if r.get("reason") and r.get("reason") not in why:
                why = (why + ": " if why else "") + r["reason"]
            print("| %s | %s | %s |" % (r["test"], r["status"], why.replace("|", "\\|")))
    if runner and not a.list:
        classes = collections.Counter(r.get("class") for r in rows if r["status"] in ("fail", "error"))
        if any(classes):
            print("\nfailure classes:")
            for k, v in classes.most_common():
                print("  %4d  %s" % (v, k))
    if a.json:
        rep = dict(suite=suite_desc, runner=runner, wave_size=wave,
                   features=sorted(feats), filecheck=filecheck, totals=dict(tot),
                   by_dir={d: dict(c) for d, c in by_dir.items()}, tests=sorted(rows, key=lambda r: r["test"]))
        with open(a.json, "w") as f:
            json.dump(rep, f, indent=1)
        print("\nreport: %s" % a.json)
    print("\n%d passed, %d failed" % (tot["pass"], tot["fail"] + tot["error"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
