"""Shared helpers of the tests/lang and examples generators.

- `T`: one pipeline test (HLSL, buffers, bindings, expected buffers) written with
  common.write_pipeline_test.
- cbuffer and structured-buffer layout: `cb_pack` lays out a cbuffer the way DXC's legacy
  constant-buffer layout does, `sb_pack` a structured-buffer element (D3D tight packing).
- wave helpers: lanes of a workgroup, wave by wave.
- f32 vector and matrix arithmetic with f32 rounding after every operation.

Facts the layout code relies on, and where they come from:
- cbuffer ("Packing rules for constant variables", Microsoft HLSL docs; and the same rules in
  clang's clang/lib/CodeGen/HLSLBufferLayoutBuilder.cpp, written to match DXC): data is packed
  into 16-byte rows; a scalar or vector goes at the next offset aligned to its component size
  unless it would cross a row boundary, then it starts the next row; arrays and structs always
  start a new row; every array element but the last occupies whole rows (stride = size rounded
  up to 16) and the last is not padded, so what follows may pack behind it; a struct's size is
  the end of its last member (not rounded up), so a following scalar may pack into its last row.
- cbuffer matrices (same docs, "Matrix ordering"): column_major is the default; a column_major
  RxC matrix is C vectors (one row each) of R components: vector c holds column c; row_major
  is R vectors of C components. Matrices of several vectors start a new row (one of a single
  vector packs like a vector). Size = (vectors-1)*16 + comps*4. (DXC: CGHLSLMS.cpp,
  AlignBaseOffset and ConstructStructAnnotation: a struct's cbuffer size is the end of its last
  field, unrounded.)
- structured buffers (D3D12: structured buffers are tightly packed, 4-byte aligned for 32-bit
  types, no 16-byte rows): a float3 member is 12 bytes; matrices keep their orientation
  (column_major by default: the element holds column 0, then column 1, ...).
"""
import math
from fractions import Fraction
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'corpus', 'gen'))
from common import (f32, i32, u32, idiv, imod, ftoi, f32_bits, f32_from_bits, f16, f16_bits,  # noqa: E402,F401
                    f16_from_bits, i16, u16, threads, write_pipeline_test)

LANG = os.path.join(ROOT, 'tests', 'lang')
EXAMPLES = os.path.join(ROOT, 'examples')

SB, RWSB = 'StructuredBuffer', 'RWStructuredBuffer'
BAB, RWBAB = 'ByteAddressBuffer', 'RWByteAddressBuffer'
CB = 'ConstantBuffer'
TB, RWTB = 'Buffer', 'RWBuffer'

WRITTEN = []


class T:
    """One test. Buffers are laid out in device memory in the order they are added (expected
    buffers are host-only), so the buffer added last is the one an unguarded access runs off."""

    def __init__(self, name, desc, hlsl, groups=(1, 1, 1), entry='main', run=None, sections=(),
                 source_bytes=None, out_dir=None, generator='tests/lang/gen/gen_lang.py', notes=(),
                 source_name='source.hlsl'):
        self.name, self.desc, self.hlsl = name, desc, hlsl
        self.groups = list(groups) + [1] * (3 - len(groups))
        self.entry, self.run, self.sections = entry, run, sections
        self.source_bytes = source_bytes
        self.out_dir = out_dir or LANG
        self.generator = generator
        self.notes = notes
        self.source_name = source_name
        self.bufs, self.res, self.results, self.expected = [], [], [], []

    def bind(self, name, kind, reg, space=0, **keys):
        """Binds buffer `name` at `reg`; keys add descriptor keys (HasCounter=True)."""
        self.res.append((name, kind, reg, space, keys))

    def buf(self, name, fmt, values, kind=None, reg=0, space=0, **keys):
        """An input buffer (bound when kind is given)."""
        self.bufs.append((name, fmt, values, keys))
        if kind:
            self.bind(name, kind, reg, space)
        return self

    def out(self, name, fmt, expected, kind=RWSB, reg=0, space=0, init=None, fill=None,
            ulp=None, eps=None, **keys):
        """An output buffer checked against `expected`; it starts as `init` (a list), or filled
        with `fill` (None: zeros), with the size of `expected`."""
        width = {'Hex8': 1, 'Int16': 2, 'UInt16': 2, 'Float16': 2, 'Hex16': 2,
                 'Int64': 8, 'UInt64': 8, 'Float64': 8, 'Hex64': 8}.get(fmt, 4)
        # A resource array (ArraySize N): `expected` holds N lists, a fill is per buffer.
        size = (len(expected[0]) if keys.get('ArraySize', 1) > 1 else len(expected)) * width
        if init is not None:
            assert len(init) == len(expected), (name, len(init), len(expected))
            self.bufs.append((name, fmt, init, keys))
        else:
            self.bufs.append((name, fmt, ('fill', size, fill), keys))
        if kind:
            self.bind(name, kind, reg, space)
        self.expected.append(('Expected' + name, fmt, expected, keys))
        if ulp is not None:
            self.results.append((name, 'BufferFloatULP', name, 'Expected' + name, {'ULPT': ulp}))
        elif eps is not None:
            self.results.append((name, 'BufferFloatEpsilon', name, 'Expected' + name, {'Epsilon': eps}))
        else:
            self.results.append((name, 'BufferExact', name, 'Expected' + name, {}))
        return self

    def write(self):
        bufs = [(n, f, v, k) for n, f, v, k in self.bufs + self.expected]
        path = os.path.join(self.out_dir, self.name + '.test')
        write_pipeline_test(path, self.desc, self.hlsl, self.groups, bufs, self.res, self.results,
                            entry=self.entry, run=self.run, sections=self.sections,
                            generator=self.generator, source_bytes=self.source_bytes,
                            preamble_extra=['# ' + n for n in self.notes], source_name=self.source_name)
        WRITTEN.append(path)
        return path


# ---------------------------------------------------------------------------
# Layout: types are tuples.
#   ('float',) ('int',) ('uint',) ('bool',)                      32-bit scalars
#   ('half',) ('int16',) ('uint16',)                              16-bit scalars (-enable-16bit-types)
#   ('vec', base, n)       ('mat', base, rows, cols, 'col'|'row')
#   ('arr', elem, n)       ('struct', [(name, type), ...])
# Values: scalars are numbers, vectors lists, matrices lists of rows (m[r][c]), arrays lists,
# structs dicts.

def scalar(b):
    return (b,)


def vec(b, n):
    return ('vec', b, n)


def mat(b, r, c, major='col'):
    return ('mat', b, r, c, major)


def arr(t, n):
    return ('arr', t, n)


def struct(*fields):
    return ('struct', list(fields))


SCALAR_SIZE = {'float': 4, 'int': 4, 'uint': 4, 'bool': 4, 'half': 2, 'int16': 2, 'uint16': 2}


def scalar_bytes(base, v):
    if base == 'float':
        return f32_bits(v).to_bytes(4, 'little')
    if base in ('int', 'uint'):
        return u32(v).to_bytes(4, 'little')
    if base == 'bool':
        return (1 if v else 0).to_bytes(4, 'little')
    if base == 'half':
        return f16_bits(v).to_bytes(2, 'little')
    if base in ('int16', 'uint16'):
        return u16(v).to_bytes(2, 'little')
    raise ValueError(base)


def _align(x, a):
    return (x + a - 1) // a * a


def cb_size(t):
    k = t[0]
    if k in SCALAR_SIZE:
        return SCALAR_SIZE[k]
    if k == 'vec':
        return SCALAR_SIZE[t[1]] * t[2]
    if k == 'mat':
        _, b, r, c, major = t
        vecs, comps = (c, r) if major == 'col' else (r, c)
        return (vecs - 1) * 16 + comps * SCALAR_SIZE[b]
    if k == 'arr':
        return (t[2] - 1) * _align(cb_size(t[1]), 16) + cb_size(t[1])
    if k == 'struct':
        return cb_struct_layout(t[1])[1]
    raise ValueError(t)


def cb_struct_layout(fields):
    """[(name, offset, type)], size: DXC legacy cbuffer layout of a cbuffer or struct body."""
    end, out = 0, []
    for name, t in fields:
        next_row = _align(end, 16)
        one_vector_matrix = t[0] == 'mat' and (t[3] if t[4] == 'col' else t[2]) == 1
        if t[0] in SCALAR_SIZE or t[0] == 'vec' or one_vector_matrix:
            # (DXC's AlignBaseOffset: a matrix needs a new row only if it spans several vectors)
            comp = SCALAR_SIZE[t[0] if t[0] in SCALAR_SIZE else t[1]]
            size = cb_size(t)
            off = _align(end, comp)
            if off + size > next_row:
                off = next_row
        else:  # arrays, structs and matrices start a new row
            off = next_row
            size = cb_size(t)
        out.append((name, off, t))
        end = max(end, off + size)
    return out, end


def cb_write(t, v, mem, off):
    k = t[0]
    if k in SCALAR_SIZE:
        b = scalar_bytes(k, v)
        mem[off:off + len(b)] = b
    elif k == 'vec':
        s = SCALAR_SIZE[t[1]]
        assert len(v) == t[2]
        for i, x in enumerate(v):
            cb_write((t[1],), x, mem, off + i * s)
    elif k == 'mat':
        _, b, r, c, major = t
        s = SCALAR_SIZE[b]
        for i in range(r):
            for j in range(c):
                vi, ci = (j, i) if major == 'col' else (i, j)
                cb_write((b,), v[i][j], mem, off + vi * 16 + ci * s)
    elif k == 'arr':
        stride = _align(cb_size(t[1]), 16)
        assert len(v) == t[2]
        for i, x in enumerate(v):
            cb_write(t[1], x, mem, off + i * stride)
    elif k == 'struct':
        lay, _ = cb_struct_layout(t[1])
        for name, o, ft in lay:
            cb_write(ft, v[name], mem, off + o)
    else:
        raise ValueError(t)


PAD = 0xA5  # padding bytes: a compiler reading padding reads 0xa5a5a5a5


def cb_pack(fields, values, pad=PAD):
    """Bytes of a cbuffer with `fields` [(name, type)] holding `values` {name: value}; the size
    is rounded up to 16 and padding holds `pad`."""
    lay, size = cb_struct_layout(fields)
    mem = bytearray([pad]) * _align(size, 16)
    for name, off, t in lay:
        cb_write(t, values[name], mem, off)
    return bytes(mem)


def cb_offsets(fields):
    return {name: off for name, off, _ in cb_struct_layout(fields)[0]}


def words(b):
    """Little-endian 32-bit words of bytes (for Hex32 data)."""
    assert len(b) % 4 == 0
    return [int.from_bytes(b[i:i + 4], 'little') for i in range(0, len(b), 4)]


def halves(b):
    assert len(b) % 2 == 0
    return [int.from_bytes(b[i:i + 2], 'little') for i in range(0, len(b), 2)]


def sb_size(t):
    k = t[0]
    if k in SCALAR_SIZE:
        return SCALAR_SIZE[k]
    if k == 'vec':
        return SCALAR_SIZE[t[1]] * t[2]
    if k == 'mat':
        return SCALAR_SIZE[t[1]] * t[2] * t[3]
    if k == 'arr':
        return sb_size(t[1]) * t[2]
    if k == 'struct':
        return sum(sb_size(ft) for _, ft in t[1])  # 32-bit members only: no alignment padding
    raise ValueError(t)


def sb_write(t, v, mem, off):
    k = t[0]
    if k in SCALAR_SIZE:
        b = scalar_bytes(k, v)
        mem[off:off + len(b)] = b
        return off + len(b)
    if k == 'vec':
        for x in v:
            off = sb_write((t[1],), x, mem, off)
        return off
    if k == 'mat':
        _, b, r, c, major = t
        order = [(i, j) for j in range(c) for i in range(r)] if major == 'col' else \
                [(i, j) for i in range(r) for j in range(c)]
        for i, j in order:
            off = sb_write((b,), v[i][j], mem, off)
        return off
    if k == 'arr':
        for x in v:
            off = sb_write(t[1], x, mem, off)
        return off
    if k == 'struct':
        for name, ft in t[1]:
            off = sb_write(ft, v[name], mem, off)
        return off
    raise ValueError(t)


def sb_pack(t, values):
    """Bytes of a structured buffer of elements of type t."""
    mem = bytearray(sb_size(t) * len(values))
    off = 0
    for v in values:
        off = sb_write(t, v, mem, off)
    return bytes(mem)


# ---------------------------------------------------------------------------
# Waves. Lanes of a wave are consecutive SV_GroupIndex values: wave w of a group holds group
# indices [w*W, (w+1)*W) (what every D3D12 driver does for 1D groups, and what wavesim does;
# D3D does not promise it, so tests that depend on it say so).

def waves_of(group_size, W):
    return [list(range(s, min(s + W, group_size))) for s in range(0, group_size, W)]


def ballot(mask_lanes, W=32):
    """uint4 of WaveActiveBallot for the lanes (indices within the wave) whose predicate holds."""
    bits = 0
    for l in mask_lanes:
        bits |= 1 << l
    return [(bits >> (32 * i)) & 0xFFFFFFFF for i in range(4)]


# ---------------------------------------------------------------------------
# f32 arithmetic

def fadd(a, b):
    return f32(a + b)


def fsub(a, b):
    return f32(a - b)


def fmul(a, b):
    return f32(a * b)


def ffma(a, b, c):
    """fma(a, b, c): the exact a * b + c rounded once to f32 (nearest, ties to even); the
    multiply-adds that contraction makes of `a * b + c` (docs/language.md)."""
    if any(math.isnan(x) or math.isinf(x) for x in (a, b, c)):
        return f32(a * b + c)
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        # An exact zero is +0 unless both terms are -0 (IEEE 754's sign of an exact sum).
        return -0.0 if math.copysign(1, a * b) < 0 and math.copysign(1, c) < 0 else 0.0
    e = math.floor(math.log2(abs(q)))
    while Fraction(2) ** e > abs(q):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(q):
        e += 1
    quantum = Fraction(2) ** max(e - 23, -149)
    m = q / quantum
    n = math.floor(m)
    rest = m - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = n * quantum
    if abs(r) >= Fraction(2) ** 128:
        return math.copysign(math.inf, q)
    return float(r)


def fdiv(a, b):
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1, b)
    return f32(a / b)


def vadd(a, b):
    return [fadd(x, y) for x, y in zip(a, b)]


def vsub(a, b):
    return [fsub(x, y) for x, y in zip(a, b)]


def vmul(a, b):
    return [fmul(x, y) for x, y in zip(a, b)]


def vscale(a, s):
    return [fmul(x, s) for x in a]


def fdot(a, b):
    """dot as DXC expands it: a0*b0, then + a_i*b_i in order (callers pick exact inputs where
    fusing or reordering cannot matter)."""
    acc = fmul(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        acc = fadd(acc, fmul(x, y))
    return acc


def mat_mul(A, B, exact=True):
    """A (RxK) times B (KxC), each sum in order k = 0..K-1 with f32 rounding; with exact=True
    asserts the result is exact (so any summation order or fusing gives the same bits)."""
    R, K, C = len(A), len(B), len(B[0])
    out = []
    for r in range(R):
        row = []
        for c in range(C):
            acc = fmul(A[r][0], B[0][c])
            for k in range(1, K):
                acc = fadd(acc, fmul(A[r][k], B[k][c]))
            if exact:
                from fractions import Fraction
                ex = sum(Fraction(A[r][k]) * Fraction(B[k][c]) for k in range(K))
                assert Fraction(acc) == ex, (A, B, r, c)
            row.append(acc)
        out.append(row)
    return out


def matmul_exact(A, B):
    return mat_mul(A, B, exact=True)


def transpose(M):
    return [list(r) for r in zip(*M)]


def is_exact_f32_sum(values):
    from fractions import Fraction
    acc = 0.0
    for v in values:
        acc = fadd(acc, v)
    return Fraction(acc) == sum(Fraction(v) for v in values)


class Rng:
    """A small deterministic generator (xorshift32), independent of Python's random module."""

    def __init__(self, seed):
        self.s = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def int(self, lo, hi):
        """Uniform-ish in [lo, hi]."""
        return lo + self.next() % (hi - lo + 1)

    def pick(self, seq):
        return seq[self.next() % len(seq)]
