"""double (issue 8, item 3: the 64-bit float variants of the HLSL library): arithmetic with
WAVE's f64 instructions, compares, min/max, conversions, literals, layouts and wave
operations. The model is Python's float (IEEE binary64, one rounding per operation); fma is
computed exactly with fractions and rounded once; conversions to integers truncate and
saturate (NaN gives 0), the documented choice for values HLSL leaves undefined."""
import math
import struct
from fractions import Fraction

from lib import T, SB, RWSB, BAB, RWBAB, CB, f32, f16, i32, f16_bits, words, waves_of, Rng

TESTS = []
M64 = (1 << 64) - 1


def test(fn):
    TESTS.append(fn)
    return fn


def both_widths(fn):
    """A wave test written for 32-lane waves (NAME) and 64-lane waves (NAME_w64, --target gcn)."""
    TESTS.append(lambda: fn(32))
    TESTS.append(lambda: fn(64))
    TESTS[-2].__name__ = fn.__name__
    TESTS[-1].__name__ = fn.__name__ + '_w64'
    return fn


def bits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def from_bits(b):
    return struct.unpack('<d', struct.pack('<Q', b & M64))[0]


def fma(a, b, c):
    """a * b + c rounded once."""
    if not all(math.isfinite(v) for v in (a, b, c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # An exact zero: -0 only when both the product and c are -0 (round to nearest).
        p_neg = (math.copysign(1, a) * math.copysign(1, b)) < 0
        return -0.0 if (a * b == 0 and p_neg and math.copysign(1, c) < 0) else 0.0
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def dmin(a, b):
    """min ignoring a NaN operand; of equal values, the first."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return b if b < a else a


def dmax(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return b if b > a else a


def to_int(x, lo, hi):
    """Truncated toward zero, saturated to [lo, hi]; NaN gives 0."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    return max(lo, min(hi, int(x)))


def sign(x):
    return (x > 0) - (x < 0)


def sat(x):
    return x if 0 < x < 1 else (1.0 if x >= 1 else 0.0)


VALUES = [0.0, -0.0, 1.0, -1.5, 0.1, 1e300, -1e-310, math.inf, -math.inf, math.nan, 3.0, 2.0 ** 53 + 2,
          123456789.123, -2.0 ** 63, 2.0 ** 64, 1e10, -2.5e-3, 7.0 / 3.0, -4096.75, 2.0 ** 31 - 0.5]


@test
def double_ops():
    hlsl = r'''
// double: + - * / with WAVE's f64 instructions (one rounding each), fma and mad (fused),
// negation, abs, min/max (a NaN operand is ignored), clamp, saturate, rcp, compares (NaN
// unordered, -0 == 0), sign, conversions to and from integers (truncating, saturating, NaN
// to 0) and float (nearest even), literals (0.1 keeps its double value; `l` is double).
StructuredBuffer<double> A : register(t0);
StructuredBuffer<double> B : register(t1);
StructuredBuffer<int64_t> L : register(t2);
StructuredBuffer<int> I : register(t3);
RWStructuredBuffer<double> OutD : register(u0);
RWStructuredBuffer<int> OutC : register(u1);
RWStructuredBuffer<int64_t> OutL : register(u2);
RWStructuredBuffer<float> OutF : register(u3);

[numthreads(20, 1, 1)]
void main(uint i : SV_GroupIndex) {
  double a = A[i];
  double b = B[i];
  uint o = i * 16;
  OutD[o + 0] = a + b;
  OutD[o + 1] = a - b;
  OutD[o + 2] = a * b;
  OutD[o + 3] = a / b;
  OutD[o + 4] = fma(a, b, 0.25);
  OutD[o + 5] = mad(a, 3.0, b);
  OutD[o + 6] = -a;
  OutD[o + 7] = abs(b);
  OutD[o + 8] = min(a, b);
  OutD[o + 9] = max(a, b);
  OutD[o + 10] = clamp(a, -2.0, 1e10);
  OutD[o + 11] = saturate(b);
  OutD[o + 12] = rcp(a);
  OutD[o + 13] = a * 0.1 + 1e300l;
  OutD[o + 14] = (double)I[i] + (double)L[i] + (double)(uint)I[i];
  OutD[o + 15] = (double)(float)a + 0.1 * 3;
  uint c = i * 12;
  OutC[c + 0] = (a < b) + 2 * (a <= b) + 4 * (a > b) + 8 * (a >= b) + 16 * (a == b) + 32 * (a != b);
  OutC[c + 1] = (int)a;
  OutC[c + 2] = (int)(uint)b;
  OutC[c + 3] = sign(a) + 4 * sign(b);
  OutC[c + 4] = (bool)a + 2 * !b + 4 * any(double2(a, 0)) + 8 * all(double2(a, b));
  uint lo, hi;
  asuint(a, lo, hi);
  OutC[c + 5] = lo;
  OutC[c + 6] = hi;
  OutC[c + 7] = (a < 1.0 ? 1 : 0) + 2 * (select(b > a, a, b) == min(a, b));
  OutC[c + 8] = (int)(a * 1000.0);
  OutC[c + 9] = (int)asdouble(lo, hi ^ 0x80000000u) == -(int)a;
  OutC[c + 10] = a == asdouble(lo, hi);
  OutC[c + 11] = (int)((double)I[i] / 7.0 * 1e6);
  OutL[i * 2 + 0] = (int64_t)a;
  OutL[i * 2 + 1] = (int64_t)(uint64_t)b;
  OutF[i * 2 + 0] = (float)a;
  OutF[i * 2 + 1] = (float)(a * b);
}
'''
    n = len(VALUES)
    A = VALUES
    B = [VALUES[(k * 7 + 3) % n] for k in range(n)]
    L = [0, 1, -1, (1 << 53) + 1, -(1 << 62) - 12345, (1 << 63) - 1, -(1 << 63), 9007199254740993,
         5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    I = [0, 1, -1, 2147483647, -2147483648, 65537, -65537, 1 << 24 | 1, 7, -7,
         100, 200, 300, 400, 500, 600, 700, 800, 900, -1000]
    od, oc, ol, of = [], [], [], []
    for k in range(n):
        a, b = A[k], B[k]
        ia = I[k]
        ua = ia & 0xFFFFFFFF
        od += [a + b, a - b, a * b, ddiv(a, b), fma(a, b, 0.25), fma(a, 3.0, b), -a, abs(b), dmin(a, b), dmax(a, b),
               dmin(dmax(a, -2.0), 1e10), sat(b), ddiv(1.0, a),
               a * 0.1 + 1e300,
               (float(ia) + float(L[k])) + float(ua),
               float(f32(a)) + 0.1 * 3]
        cmp = (a < b) + 2 * (a <= b) + 4 * (a > b) + 8 * (a >= b) + 16 * (a == b) + 32 * (a != b)
        lo, hi = bits(a) & 0xFFFFFFFF, bits(a) >> 32
        oc += [cmp, to_int(a, -2 ** 31, 2 ** 31 - 1), i32(to_int(b, 0, 2 ** 32 - 1)), sign(a) + 4 * sign(b),
               int(a != 0) + 2 * int(b == 0) + 4 * int(a != 0) + 8 * int(a != 0 and b != 0),
               i32(lo), i32(hi),
               int(a < 1.0) + 2 * int((a if b > a else b) == dmin(a, b)),
               to_int(a * 1000.0, -2 ** 31, 2 ** 31 - 1),
               int(to_int(-a, -2 ** 31, 2 ** 31 - 1) == i32(-to_int(a, -2 ** 31, 2 ** 31 - 1))),
               int(a == a), to_int(float(ia) / 7.0 * 1e6, -2 ** 31, 2 ** 31 - 1)]
        ol += [to_int(a, -2 ** 63, 2 ** 63 - 1), i64(to_int(b, 0, 2 ** 64 - 1))]
        of += [f32(a), f32(a * b)]
    t = T('double_ops', '''double arithmetic, fma/mad, abs, min/max, clamp, saturate, rcp, compares, sign, any/all,
asuint/asdouble, select, and conversions to and from int, uint, int64_t and float, over zeros of
both signs, subnormals, infinities, NaN, 2^53+2, -2^63 and 2^64; literals keep their double value.''', hlsl)
    t.buf('A', 'Float64', A, SB, 0)
    t.buf('B', 'Float64', B, SB, 1)
    t.buf('L', 'Int64', L, SB, 2)
    t.buf('I', 'Int32', I, SB, 3)
    t.out('OutD', 'Float64', od, RWSB, 0, ulp=0)
    t.out('OutC', 'Int32', oc, RWSB, 1)
    t.out('OutL', 'Int64', ol, RWSB, 2)
    t.out('OutF', 'Float32', of, RWSB, 3, ulp=0)
    t.write()


def i64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def ddiv(a, b):
    """IEEE division (Python raises on division by zero)."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1, b)
    return a / b


@test
def double_memory():
    hlsl = r'''
// doubles in memory: 8-byte aligned struct members of structured buffers, byte-address
// Load<double2>/Store<double>, cbuffer members (a double3 cannot fit in the rest of a 16-byte
// row: it starts the next one and spans two), groupshared arrays, local arrays indexed per lane.
cbuffer C : register(b0) {
  double k;
  double2 p;
  double3 q;
  float tail;
};
struct S { float f; double d; double2 v; };
StructuredBuffer<S> In : register(t0);
ByteAddressBuffer Raw : register(t1);
RWStructuredBuffer<double> Out : register(u0);
RWByteAddressBuffer RawOut : register(u1);
groupshared double Shared[4];

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  S s = In[i];
  Shared[i] = s.d * 2.0;
  GroupMemoryBarrierWithGroupSync();
  double2 r = Raw.Load<double2>(16 * i);
  double loc[4] = { k, p.x, p.y, q.z };
  uint o = i * 6;
  Out[o + 0] = Shared[(i + 1) % 4] + s.v.x;
  Out[o + 1] = s.v.y - k + s.f;
  Out[o + 2] = r.x * r.y;
  Out[o + 3] = loc[i];
  Out[o + 4] = q.x + q.y + tail;
  Out[o + 5] = dot(q, double3(1.0, 2.0, (double)i));
  RawOut.Store<double>(8 * i, s.d + 1.0);
}
'''
    cb = bytearray([0xA5]) * 64
    K, P, Q, TAIL = 0.1, [-7.25, 1e-300], [3.5, 1.0 / 3.0, -2.0 ** 60], f32(0.3)
    struct.pack_into('<d', cb, 0, K)
    struct.pack_into('<dd', cb, 16, *P)
    struct.pack_into('<ddd', cb, 32, *Q)
    struct.pack_into('<f', cb, 56, TAIL)
    r = Rng(6464)
    rnd = lambda: (r.next() % 2000001 - 1000000) / 1024.0  # noqa: E731
    F = [f32(rnd()) for _ in range(4)]
    D = [rnd() / 3.0 for _ in range(4)]
    V = [[rnd() * 1e10, rnd() / 7.0] for _ in range(4)]
    RAW = [rnd() / 9.0 for _ in range(8)]
    ins = b''.join(struct.pack('<f4xddd', F[i], D[i], V[i][0], V[i][1]) for i in range(4))
    loc = [K, P[0], P[1], Q[2]]
    out, raw_out = [], []
    for i in range(4):
        out += [D[(i + 1) % 4] * 2.0 + V[i][0], V[i][1] - K + F[i], RAW[2 * i] * RAW[2 * i + 1], loc[i],
                Q[0] + Q[1] + TAIL, (Q[0] * 1.0 + Q[1] * 2.0) + Q[2] * float(i)]
        raw_out.append(D[i] + 1.0)
    t = T('double_memory', '''doubles in structured buffers (8-byte aligned struct members), byte-address buffers,
cbuffers (DXC's rows: a double3 spans two), groupshared memory and local arrays.''', hlsl)
    t.buf('C', 'Hex32', words(bytes(cb)), CB, 0)
    t.buf('In', 'Hex32', words(ins), SB, 0, Stride=32)
    t.buf('Raw', 'Float64', RAW, BAB, 1)
    t.out('Out', 'Float64', out, RWSB, 0)
    t.out('RawOut', 'Float64', raw_out, RWBAB, 1)
    t.write()


def round_half_once(x):
    """Bits of the half nearest to x (Python packs a double into a half with one rounding)."""
    return f16_bits(x)


@test
def double_conv16():
    hlsl = r'''
// doubles meet 16-bit types (-enable-16bit-types): to half rounds once to nearest even (not
// through float: 1 + 2^-11 + 2^-40 is just above a tie of halves, which float would round to
// the tie itself), from half is exact, int16_t and uint16_t convert through 32 bits.
StructuredBuffer<double> A : register(t0);
StructuredBuffer<half> H : register(t1);
StructuredBuffer<int16_t> S : register(t2);
RWStructuredBuffer<uint16_t> Out16 : register(u0);
RWStructuredBuffer<double> OutD : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  double a = A[i];
  Out16[i * 3 + 0] = asuint16((half)a);
  Out16[i * 3 + 1] = (uint16_t)(int16_t)a;
  Out16[i * 3 + 2] = asuint16((half)(-a));
  OutD[i * 2 + 0] = (double)H[i] * 3.0;
  OutD[i * 2 + 1] = (double)S[i] + (double)(uint16_t)S[i];
}
'''
    A = [1.0 + 2 ** -11 + 2 ** -40, 1.0 + 2 ** -11, 2049.0 + 2 ** -30, 65519.99, 65520.0, 5.960464477539063e-08 * 0.5000001,
         -300.75, 1e-9]
    H = [f16(x) for x in [2.5, -3.75, 1000.5, -0.25, 65504.0, -2050.0, 6.1e-5, 0.0]]
    S = [0, 1, -1, 32767, -32768, 1234, -4321, 77]
    o16, od = [], []
    for i in range(8):
        a = A[i]
        o16 += [round_half_once(a), to_int(a, -2 ** 31, 2 ** 31 - 1) & 0xFFFF, round_half_once(-a)]
        od += [H[i] * 3.0, float(S[i]) + float(S[i] & 0xFFFF)]
    t = T('double_conv16', '''doubles converted to and from half (rounded once; overflow gives infinity), int16_t and
uint16_t.''', hlsl, run='-enable-16bit-types -T cs_6_2')
    t.buf('A', 'Float64', A, SB, 0)
    t.buf('H', 'Float16', H, SB, 1)
    t.buf('S', 'Int16', S, SB, 2)
    t.out('Out16', 'UInt16', o16, RWSB, 0)
    t.out('OutD', 'Float64', od, RWSB, 1)
    t.write()


@test
def double_matrices():
    hlsl = r'''
// double vectors and matrices: mul (sums of products in index order, each rounded), dot,
// transpose, element-wise operators, asuint and asdouble of vectors and matrices, and sign.
StructuredBuffer<double4> In : register(t0);
RWStructuredBuffer<double4> Out : register(u0);
RWStructuredBuffer<uint4> Words : register(u1);
RWStructuredBuffer<int4> Signs : register(u2);

[numthreads(1, 1, 1)]
void main() {
  double2x3 m = double2x3(In[0].xyz, In[1].xyz);
  double3x2 t = transpose(m);
  double3 v = In[2].xyz;
  double2 mv = mul(m, v);
  double2x2 mm = mul(m, t);
  Out[0] = double4(mv, mm[0]);
  Out[1] = double4(mm[1], dot(In[0], In[1]), t[2][1]);
  Out[2] = In[0] * In[1] - In[2] / 4.0;
  uint2x2 lo, hi;
  asuint(mm, lo, hi);
  Words[0] = uint4(lo[0], lo[1]);
  Words[1] = uint4(hi[0], hi[1]);
  uint4 l4, h4;
  asuint(In[2], l4, h4);
  Out[3] = asdouble(l4, h4) + asdouble(uint4(0, 0, 0, 0), uint4(0x3ff00000u, 0x40000000u, 0xbff00000u, 0));
  Signs[0] = sign(In[2]);
  Signs[1] = sign(double4(-0.0, 0.0, -1e-310, 1e-310));
}
'''
    IN = [[1.5, -2.25, 0.1, 7.0], [3.0, 1.0 / 3.0, -4.5, 2.0 ** -20], [0.3, -8.0, 1e100, -0.0]]
    m = [IN[0][:3], IN[1][:3]]
    v = IN[2][:3]

    def dot(x, y):
        acc = None
        for a, b in zip(x, y):
            acc = a * b if acc is None else acc + a * b
        return acc

    tt = [[m[r][c] for r in range(2)] for c in range(3)]
    mv = [dot(m[r], v) for r in range(2)]
    mm = [[dot(m[r], [tt[k][c] for k in range(3)]) for c in range(2)] for r in range(2)]
    out = [mv + mm[0], mm[1] + [dot(IN[0], IN[1]), tt[2][1]],
           [IN[0][k] * IN[1][k] - IN[2][k] / 4.0 for k in range(4)],
           [IN[2][k] + [1.0, 2.0, -1.0, 0.0][k] for k in range(4)]]
    flat = [x for r in mm for x in r]
    words_lo = [bits(x) & 0xFFFFFFFF for x in flat]
    words_hi = [bits(x) >> 32 for x in flat]
    signs = [[sign(x) for x in IN[2]], [0, 0, -1, 1]]
    t = T('double_matrices', '''double2x3 * double3, double2x3 * double3x2, dot of double4, transpose, element-wise
double4 arithmetic, asuint of a double2x2 and a double4, asdouble of uint4s, sign of doubles
(subnormals keep their sign, zeros give 0).''', hlsl)
    t.buf('In', 'Float64', [x for r in IN for x in r], SB, 0, Stride=32)
    t.out('Out', 'Float64', [x for r in out for x in r], RWSB, 0, Stride=32)
    t.out('Words', 'UInt32', words_lo + words_hi, RWSB, 1, Stride=16)
    t.out('Signs', 'Int32', [x for r in signs for x in r], RWSB, 2, Stride=16)
    t.write()


@both_widths
def wave_double(W):
    hlsl = r'''
// Wave operations on doubles, over all lanes and over a divergent third of them: sums and
// products fold the active lanes in lane order (each step rounded), prefix sums and products
// (exclusive), min and max, reads of the first lane, of lane 5 and across quads, and AllEqual.
StructuredBuffer<double> In : register(t0);
RWStructuredBuffer<double> Out : register(u0);

[numthreads(48, 1, 1)]
void main(uint i : SV_GroupIndex) {
  double x = In[i];
  uint o = i * 12;
  Out[o + 0] = WaveActiveSum(x);
  Out[o + 1] = WaveActiveProduct(x);
  Out[o + 2] = WaveActiveMin(x);
  Out[o + 3] = WaveActiveMax(x);
  Out[o + 4] = WavePrefixSum(x);
  Out[o + 5] = WavePrefixProduct(x);
  Out[o + 6] = WaveReadLaneFirst(x);
  Out[o + 7] = WaveReadLaneAt(x, 5);
  Out[o + 8] = QuadReadAcrossX(x) + QuadReadAcrossY(x) * 3.0 + QuadReadAcrossDiagonal(x) * 7.0;
  Out[o + 9] = WaveActiveAllEqual(x) + 2 * WaveActiveAllEqual(1.5 * 2.0);
  Out[o + 10] = 0;
  Out[o + 11] = 0;
  if (i % 3 == 1) {
    Out[o + 10] = WaveActiveSum(x);
    Out[o + 11] = WavePrefixProduct(x);
  }
}
'''
    r = Rng(6400 + W)
    X = [(1.0 + ((r.next() % 20001) - 10000) / 65536.0) * (1.0 if r.next() % 2 else -1.0) / 3.0 * 3.0 for _ in range(48)]
    out = [0.0] * (48 * 12)
    for wave in waves_of(48, W):
        xs = [X[g] for g in wave]

        def fold(vals, start, f):
            acc = start
            seq = []
            for v in vals:
                seq.append(acc)
                acc = f(acc, v)
            return acc, seq

        tot, pre = fold(xs, 0.0, lambda a, b: a + b)
        prod, ppre = fold(xs, 1.0, lambda a, b: a * b)
        div = [g for g in wave if g % 3 == 1]
        dsum, _ = fold([X[d] for d in div], 0.0, lambda a, b: a + b)
        _, dpp = fold([X[d] for d in div], 1.0, lambda a, b: a * b)
        for k, g in enumerate(wave):
            o = g * 12
            quad = wave[(k & ~3):(k & ~3) + 4]
            kq = k & 3
            qx = lambda j: X[quad[j]]  # noqa: E731
            out[o + 0] = tot
            out[o + 1] = prod
            out[o + 2] = min(xs)
            out[o + 3] = max(xs)
            out[o + 4] = pre[k]
            out[o + 5] = ppre[k]
            out[o + 6] = xs[0]
            out[o + 7] = xs[5]
            out[o + 8] = (qx(kq ^ 1) + qx(kq ^ 2) * 3.0) + qx(kq ^ 3) * 7.0
            out[o + 9] = float(len(set(xs)) == 1) + 2.0
            if g % 3 == 1:
                out[o + 10] = dsum
                out[o + 11] = dpp[div.index(g)]
    name = 'wave_double' if W == 32 else 'wave_double_w64'
    notes = ['Expectations for waves of 32 lanes (the generic target); wave_double_w64.test has them for 64.'] if W == 32 else \
        ['Expectations for waves of 64 lanes (W = 64), on the gcn target:', 'wavec: --target gcn']
    t = T(name, '''Wave operations on doubles (uniform and divergent): sums and products in lane order.''', hlsl, notes=notes)
    t.buf('In', 'Float64', X, SB, 0)
    t.out('Out', 'Float64', out, RWSB, 0)
    t.write()


@test
def double_literals_202x():
    hlsl = r'''
// HLSL 202x's conforming literals (-HV 202x): an unsuffixed float literal is a float, so a
// double gets the float's value; `l` makes a double literal. (Before 202x, a literal is a
// 64-bit `literal float` and a double gets its whole value: double_ops tests that.)
RWStructuredBuffer<double> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
  double a = 0.1;
  Out[0] = a;
  Out[1] = double2(5.57, 0.5).x;
  Out[2] = 0.1l;
  Out[3] = a * 3;
  Out[4] = 111.111l - 111.111;
}
'''
    a = float(f32(0.1))
    out = [a, float(f32(5.57)), 0.1, a * 3, 111.111 - float(f32(111.111))]
    t = T('double_literals_202x', '''-HV 202x: unsuffixed float literals are floats (a double gets the float's value), `l`
literals are doubles.''', hlsl, run='-HV 202x -T cs_6_5')
    t.out('Out', 'Float64', out, RWSB, 0)
    t.write()


@test
def double_robust_access():
    hlsl = r'''
// --robust-access with 64-bit elements: an out-of-bounds load gives 0 (a byte-address
// Load<double> that straddles the end too, whole), an out-of-bounds store is dropped.
StructuredBuffer<double> A : register(t0);
ByteAddressBuffer Raw : register(t1);
RWStructuredBuffer<int64_t> Out : register(u0);
RWStructuredBuffer<double> OutD : register(u1);

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Out[i + 2] = (int64_t)A[i * 3] + 1;
  OutD[i] = A[i + 2] * 2.0 + Raw.Load<double>(4 * i + 4);
}
'''
    A = [1.5, 2.5, -3.5, 4.5]
    RAW = [0.25, 8.0]  # 16 bytes: Load<double> at 4, 8, 12, 16 (only 8 is inside)
    raw_bytes = struct.pack('<dd', *RAW)

    def raw_at(off):
        return struct.unpack('<d', raw_bytes[off:off + 8])[0] if off + 8 <= len(raw_bytes) else 0.0

    out = [7, 7, int(A[0]) + 1, int(A[3]) + 1]
    outd = [(A[i + 2] if i + 2 < 4 else 0.0) * 2.0 + raw_at(4 * i + 4) for i in range(4)]
    t = T('double_robust_access', '''--robust-access with 64-bit elements: out-of-bounds loads give 0 (also a Load<double> that
straddles the end), out-of-bounds stores are dropped.''', hlsl, groups=[1], run='-T cs_6_0 --robust-access')
    t.buf('A', 'Float64', A, SB, 0)
    t.buf('Raw', 'Float64', RAW, BAB, 1)
    t.out('Out', 'Int64', out, RWSB, 0, init=[7, 7, 7, 7])
    t.out('OutD', 'Float64', outd, RWSB, 1)
    t.write()
