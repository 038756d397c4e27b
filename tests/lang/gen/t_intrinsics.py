"""Item 10 of the language issue: intrinsics (the wave intrinsics are in t_wave.py).

Exact intrinsics are checked bit for bit with inputs for which every implementation order gives
the same bits (dyadic values, exact quotients). Transcendentals are checked against the
correctly rounded f32 of the exact value, with BufferFloatULP tolerances (see TOLERANCES) and
inputs away from ill-conditioned points (no results near zero, no arguments near poles)."""
import math
from fractions import Fraction

from lib import T, SB, RWSB, f32, i32, u32, f32_bits, f32_from_bits, f16, f16_bits, f16_from_bits, fadd, fsub, \
    fmul, fdiv, Rng

TESTS = []

# ULP tolerances of the transcendental tests (wavec documents its precision; these are the
# bounds the tests hold it to).
TOLERANCES = {
    'sqrt_rsqrt_rcp': 2,   # sqrt, rsqrt, rcp: within 2 ULP of the correctly rounded result
    'exp_log': 4,          # exp, exp2, log, log2 (exp via exp2(x * log2(e)) costs ~2 ULP for |x| <= 4)
    'log2_near_one': 2,    # log2 everywhere, 1 included (wave-0.1.2 computes it in software: 1.4 ULP)
    'pow': 16,             # pow(x, y) = exp2(y * log2(x)) with |y * log2(x)| <= 8
    'trig': 16,            # sin, cos, tan on [-3, 3], |result| >= 0.1
    'inverse_trig': 64,    # asin, acos, atan, atan2 (usually polynomials)
}


def test(fn):
    TESTS.append(fn)
    return fn


def rne(x):
    """round(): to nearest, ties to even (DXIL Round_ne); keeps the sign of zero."""
    f = math.floor(x)
    d = x - f
    r = f + 1 if d > 0.5 or (d == 0.5 and f % 2 == 1) else f
    return math.copysign(float(r), x) if r == 0 else float(r)


def ffloor(x):
    r = float(math.floor(x))
    return math.copysign(r, x) if r == 0 else r


def fceil(x):
    r = float(math.ceil(x))
    return math.copysign(r, x) if r == 0 else r


def ftrunc(x):
    r = float(math.trunc(x))
    return math.copysign(r, x) if r == 0 else r


def exact(v, ref):
    assert Fraction(v) == ref, (v, ref)
    return v


@test
def intr_float_basic():
    hlsl = r'''
// Exact float intrinsics: abs, min, max, clamp, saturate, lerp, mad, floor, ceil, round
// (to nearest even), trunc, frac, fmod, sign (an int), step, smoothstep.
StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 v = In[i];
  float x = v.x, y = v.y, s = v.z;
  uint o = i * 16;
  Out[o + 0] = abs(x);
  Out[o + 1] = min(x, y);
  Out[o + 2] = max(x, y);
  Out[o + 3] = clamp(x, -1.5, 2.25);
  Out[o + 4] = saturate(x);
  Out[o + 5] = lerp(x, y, s);
  Out[o + 6] = mad(x, s, y);
  Out[o + 7] = floor(x);
  Out[o + 8] = ceil(x);
  Out[o + 9] = round(x);
  Out[o + 10] = trunc(x);
  Out[o + 11] = frac(x);
  Out[o + 12] = fmod(x, y);
  Out[o + 13] = (float)sign(x);
  Out[o + 14] = step(y, x);
  Out[o + 15] = smoothstep(-2, 2, x);
}
'''
    xs = [2.5, -2.5, 3.5, -0.75, 0.5, 1.25, -1.5, 7.5, -7.5, 0.125, 100.25, -3.0, 1.75, -0.5, 2.0, -6.0]
    ys = [2, 2, -2, 0.5, 4, -1, 0.25, 2, 2, 1, 8, 3, -0.5, 1, 4, 3]
    ss = [0, 0.25, 0.5, 0.75, 1, 0.25, 0.5, 0.75, 0.125, 0.5, 0.25, 1, 0.75, 0.5, 0.25, 0.5]
    ins, out = [], []
    for x, y, s in zip(xs, ys, ss):
        x, y, s = float(x), float(y), float(s)
        ins += [x, y, s, 0.0]
        q = Fraction(x) / Fraction(y)
        assert f32(float(q)) == float(q) and Fraction(float(q)) == q   # x / y exact: fmod has one answer
        t = min(max(fdiv(fadd(x, 2.0), 4.0), 0.0), 1.0)
        ss_ = fmul(fmul(t, t), fsub(3.0, fmul(2.0, t)))
        tt = Fraction(t)
        exact(ss_, tt * tt * (3 - 2 * tt))
        out += [abs(x), min(x, y), max(x, y), min(max(x, -1.5), 2.25), min(max(x, 0.0), 1.0),
                exact(fadd(x, fmul(s, fsub(y, x))), Fraction(x) + Fraction(s) * (Fraction(y) - Fraction(x))),
                exact(fadd(fmul(x, s), y), Fraction(x) * Fraction(s) + Fraction(y)),
                ffloor(x), fceil(x), rne(x), ftrunc(x), fsub(x, ffloor(x)), math.fmod(x, y),
                float((x > 0) - (x < 0)), 1.0 if x >= y else 0.0, ss_]
    t = T('intr_float_basic', '''Intrinsics, exact: abs, min, max, clamp, saturate, lerp, mad, floor, ceil, round (halves to even:
2.5 -> 2, -0.5 -> -0), trunc, frac (of negatives), fmod (sign of x; x / y exact), sign (int),
step, smoothstep(-2, 2, x). Dyadic inputs, so fusing or reordering cannot change any bit.''', hlsl)
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def intr_minmax_special():
    hlsl = r'''
// min and max with NaN return the other operand (IEEE 754-2008 minNum / maxNum, as DXIL's FMin
// and FMax define), and order infinities.
StructuredBuffer<float2> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float2 v = In[i];
  Out[i * 2] = min(v.x, v.y);
  Out[i * 2 + 1] = max(v.x, v.y);
}
'''
    nan, inf = math.nan, math.inf
    pairs = [(nan, 1.0), (1.0, nan), (nan, -inf), (inf, nan), (-inf, 5.0), (inf, -3.0), (-2.0, -inf), (7.0, inf)]
    out = []
    for a, b in pairs:
        if math.isnan(a):
            out += [b, b]
        elif math.isnan(b):
            out += [a, a]
        else:
            out += [min(a, b), max(a, b)]
    t = T('intr_minmax_special', '''Intrinsics: min and max with one NaN operand return the other operand (DXIL FMin/FMax), and
with infinities.''', hlsl)
    t.buf('In', 'Float32', [x for p in pairs for x in p], SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def intr_int():
    hlsl = r'''
// Integer intrinsics: abs (abs(INT_MIN) wraps to INT_MIN), min / max / clamp signed on int and
// unsigned on uint, sign of int, integer mad.
StructuredBuffer<int2> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int2 v = In[i];
  uint2 u = (uint2)v;
  uint o = i * 9;
  Out[o + 0] = abs(v.x);
  Out[o + 1] = min(v.x, v.y);
  Out[o + 2] = max(v.x, v.y);
  Out[o + 3] = (int)min(u.x, u.y);
  Out[o + 4] = (int)max(u.x, u.y);
  Out[o + 5] = clamp(v.x, -100, 100);
  Out[o + 6] = sign(v.y);
  Out[o + 7] = mad(v.x, 3, v.y);
  Out[o + 8] = (int)clamp(u.x, 10u, 0x80000000u);
}
'''
    IMIN, IMAX = -0x80000000, 0x7FFFFFFF
    pairs = [(IMIN, 5), (-5, 3), (7, -7), (0, 0), (IMAX, IMIN), (-1, 1), (150, -150), (-99, 12345)]
    out = []
    for a, b in pairs:
        ua, ub = u32(a), u32(b)
        out += [i32(abs(a)), min(a, b), max(a, b), i32(min(ua, ub)), i32(max(ua, ub)), min(max(a, -100), 100),
                (b > 0) - (b < 0), i32(a * 3 + b), i32(min(max(ua, 10), 0x80000000))]
    t = T('intr_int', '''Intrinsics on integers: abs (abs(-2147483648) is -2147483648), min/max/clamp signed for int and
unsigned for uint (-1 is the largest uint), sign(int), mad(int, int, int) wrapping.''', hlsl)
    t.buf('In', 'Int32', [x for p in pairs for x in p], SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


def trans_test(name, desc, body, fns, inputs, tol, run=None):
    """One transcendental test: Out[i * k + j] = fns[j](In[i])."""
    hlsl = r'''
// %s
StructuredBuffer<float2> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float x = In[i].x;
  float y = In[i].y;
  uint o = i * %d;
%s
}
''' % (desc.splitlines()[0], len(fns), body)
    ins, out = [], []
    for x, y in inputs:
        x, y = f32(x), f32(y)
        ins += [x, y]
        for fn in fns:
            out.append(f32(fn(x, y)))
    t = T(name, desc + '\nTolerance: %d ULP of the correctly rounded result (TOLERANCES in t_intrinsics.py).' % tol,
          hlsl, groups=[len(inputs) // 8], run=run)
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0, ulp=tol)
    t.write()


@test
def intr_sqrt_rsqrt_rcp():
    inputs = [(2, 0), (10, 0), (0.5, 0), (1e-3, 0), (12345.678, 0), (4, 0), (9, 0), (1e10, 0),
              (3, 0), (7.25, 0), (0.1, 0), (1e-5, 0), (65536, 0), (123.456, 0), (0.7, 0), (2.5e6, 0)]
    trans_test('intr_sqrt_rsqrt_rcp', 'Intrinsics: sqrt, rsqrt, rcp, and division.',
               '  Out[o + 0] = sqrt(x);\n  Out[o + 1] = rsqrt(x);\n  Out[o + 2] = rcp(x);\n  Out[o + 3] = 1.0f / (x + 1.0f);',
               [lambda x, y: math.sqrt(x), lambda x, y: 1 / math.sqrt(x), lambda x, y: 1 / x,
                lambda x, y: 1 / f32(x + 1)],
               inputs, TOLERANCES['sqrt_rsqrt_rcp'])


@test
def intr_exp_log():
    inputs = [(0.5, 0), (-1.25, 0), (3.0, 0), (-3.9, 0), (2.0, 0), (1.75, 0), (-0.3, 0), (3.99, 0),
              (0.01, 0), (0.25, 0), (10.0, 0), (0.1, 0), (7.0, 0), (123.4, 0), (0.6, 0), (1000.0, 0)]
    trans_test('intr_exp_log', 'Intrinsics: exp, exp2 (exact at integers), log, log2 (arguments away from 1).',
               '  Out[o + 0] = exp(x < 5.0f ? x : 1.0f / x);\n  Out[o + 1] = exp2(x < 5.0f ? x : 3.0f);\n'
               '  Out[o + 2] = log(x > 0.0f ? x + 2.0f : 0.25f);\n  Out[o + 3] = log2(abs(x) + 3.0f);',
               [lambda x, y: math.exp(x if x < 5 else f32(1 / x)), lambda x, y: 2 ** (x if x < 5 else 3.0),
                lambda x, y: math.log(f32(x + 2) if x > 0 else 0.25), lambda x, y: math.log2(f32(abs(x) + 3))],
               inputs, TOLERANCES['exp_log'])


@test
def intr_pow():
    inputs = [(2, 3), (2, 0.5), (10, 2.25), (0.5, 3), (3.7, -1.5), (100, 0.25), (1.5, 6), (0.2, -2),
              (7, 1.0 / 3), (0.9, 20), (5, -0.75), (16, 1.25), (2.5, 2.5), (0.3, 0.7), (40, -1.1), (1.1, 30)]
    for x, y in inputs:
        assert abs(y * math.log2(x)) <= 8
    trans_test('intr_pow', 'Intrinsics: pow(x, y) for x > 0 with |y * log2(x)| <= 8.',
               '  Out[o + 0] = pow(x, y);', [lambda x, y: x ** y], inputs, TOLERANCES['pow'])


@test
def intr_log2_accuracy():
    # Near 1 (where an approximate log2's absolute error is a large relative
    # one), the edges of the reduction to [sqrt(1/2), sqrt(2)), the worst points
    # of wave-0.1.2's software log2, powers of two, denormals and the extremes.
    xs = [1.0, 1.0000001, 0.99999994, 1.0001, 0.9999, 1.1, 0.9, 1.01,
          0.70710677, 0.7071068, 1.4142135, 1.4142137, 1.3999306, 0.71366101, 1.25, 0.8,
          2.0, 0.5, 1024.0, 2.0 ** -126, 3.0, 10.0, 0.3, 7.5,
          1e-40, 1.4e-45, 3e38, 3.4028235e38, 1.17549435e-38, 123456.79, 1e-20, 6.0e-3]
    # IEEE denormals (D3D's flush would make them zeros: intr_log2_special).
    trans_test('intr_log2_accuracy', 'Intrinsics: log2 near 1, at the edges of its range reduction, on denormals and extremes.',
               '  Out[o + 0] = log2(x);', [lambda x, y: math.log2(x)], [(x, 0) for x in xs], TOLERANCES['log2_near_one'],
               run='-T cs_6_0 -denorm preserve')


@test
def intr_log2_special():
    # (Denormals: intr_log2_accuracy, with IEEE denormals on its RUN line.)
    xs = [0.0, -0.0, -1.0, float('inf'), float('nan'), -float('inf'), -1e-30, 1.0]
    def log2(x, y):
        if math.isnan(x) or x < 0:
            return math.nan
        if x == 0:
            return -math.inf
        return math.log2(x)
    trans_test('intr_log2_special', 'Intrinsics: log2 of zeros, negatives, infinities and NaN.',
               '  Out[o + 0] = log2(x);', [log2], [(x, 0) for x in xs], 0)


@test
def intr_trig():
    inputs = [(0.5, 1.0), (-1.0, -2.0), (2.0, 0.5), (-2.5, 3.0), (1.2, -1.0), (-0.3, -0.4), (2.9, 0.01), (-2.9, -5.0)]
    for x, y in inputs:
        for v in (math.sin(x), math.cos(x), math.tan(x)):
            assert abs(v) >= 0.1, (x, v)
    trans_test('intr_trig', 'Intrinsics: sin, cos, tan on [-3, 3] (results of magnitude 0.1 or more), and sincos.',
               '  Out[o + 0] = sin(x);\n  Out[o + 1] = cos(x);\n  Out[o + 2] = tan(x);\n'
               '  float s, c;\n  sincos(x, s, c);\n  Out[o + 3] = s;\n  Out[o + 4] = c;',
               [lambda x, y: math.sin(x), lambda x, y: math.cos(x), lambda x, y: math.tan(x),
                lambda x, y: math.sin(x), lambda x, y: math.cos(x)],
               inputs, TOLERANCES['trig'])


@test
def intr_inverse_trig():
    inputs = [(0.5, 1.0), (-0.9, -2.0), (0.2, 0.5), (-0.4, 3.0), (0.95, -1.0), (-0.6, -0.4), (0.75, 0.01),
              (-0.25, -5.0)]
    trans_test('intr_inverse_trig', 'Intrinsics: asin, acos on [-0.95, 0.95], atan, atan2 in all four quadrants.',
               '  Out[o + 0] = asin(x);\n  Out[o + 1] = acos(x);\n  Out[o + 2] = atan(x * 40.0f);\n'
               '  Out[o + 3] = atan2(y, x);\n  Out[o + 4] = atan2(x, y);',
               [lambda x, y: math.asin(x), lambda x, y: math.acos(x), lambda x, y: math.atan(f32(x * 40)),
                lambda x, y: math.atan2(y, x), lambda x, y: math.atan2(x, y)],
               inputs, TOLERANCES['inverse_trig'])


@test
def intr_geometry():
    hlsl = r'''
// Geometric intrinsics: dot (float and int vectors), cross, reflect are exact on integer
// inputs; length, distance, normalize go through a square root (ULP tolerance).
StructuredBuffer<float4> A : register(t0);
StructuredBuffer<float4> B : register(t1);
RWStructuredBuffer<float> Exact : register(u0);
RWStructuredBuffer<float> Approx : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 a = A[i];
  float4 b = B[i];
  uint o = i * 9;
  Exact[o + 0] = dot(a, b);
  Exact[o + 1] = dot(a.xyz, b.xyz);
  Exact[o + 2] = dot(a.xy, b.zw);
  Exact[o + 3] = (float)dot((int3)a.xyz, int3(1, -2, 3));
  float3 c = cross(a.xyz, b.xyz);
  Exact[o + 4] = c.x;
  Exact[o + 5] = c.y;
  Exact[o + 6] = c.z;
  float3 r = reflect(a.xyz, float3(0, 1, 0));
  float3 r2 = reflect(a.xyz, b.xyz);         // reflect does not normalize: i - 2 * dot(i, n) * n
  Exact[o + 7] = r.x + r.y * 10;
  Exact[o + 8] = r2.y;
  float3 n = normalize(b.xyz);
  uint p = i * 7;
  Approx[p + 0] = length(a);
  Approx[p + 1] = distance(a.xyz, b.xyz);
  Approx[p + 2] = n.x;
  Approx[p + 3] = n.y;
  Approx[p + 4] = n.z;
  Approx[p + 5] = length(a.xy);
  Approx[p + 6] = length(float3(3, 4, 12) * a.w);   // 13 * |a.w|
}
'''
    r = Rng(61)
    A = [[float(r.int(-9, 9)) for _ in range(3)] + [float(r.pick([1, -2, 3, 0.5]))] for _ in range(8)]
    B = [[float(r.pick([-5, -3, -1, 1, 2, 4, 6])) for _ in range(3)] + [float(r.int(-9, 9))] for _ in range(8)]
    ex, ap = [], []
    for a, b in zip(A, B):
        d4 = sum(x * y for x, y in zip(a, b))
        d3 = sum(x * y for x, y in zip(a[:3], b[:3]))
        d2 = a[0] * b[2] + a[1] * b[3]
        di = int(a[0]) - 2 * int(a[1]) + 3 * int(a[2])
        c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
        rr = [a[0], -a[1], a[2]]
        d = d3
        r2y = a[1] - 2 * d * b[1]
        ex += [d4, d3, d2, float(di)] + c + [rr[0] + rr[1] * 10, r2y]
        ln = math.sqrt(sum(x * x for x in a))
        dist = math.sqrt(sum((x - y) ** 2 for x, y in zip(a[:3], b[:3])))
        nb = math.sqrt(sum(x * x for x in b[:3]))
        ap += [ln, dist] + [x / nb for x in b[:3]] + [math.sqrt(a[0] ** 2 + a[1] ** 2), 13 * abs(a[3])]
    ex = [f32(x) for x in ex]
    for v in ex:
        assert abs(v) < 2 ** 24 and v == int(v) or v * 2 == int(v * 2)
    ap = [f32(x) for x in ap]
    t = T('intr_geometry', '''Intrinsics: dot of float4/float3/float2 and of int3, cross, reflect (with a unit and a non-unit
normal): exact (integer inputs). length (also of a Pythagorean 3-4-12 vector), distance and
normalize: within 4 ULP of the correctly rounded result (a square root and a division).''', hlsl)
    t.buf('A', 'Float32', [x for a in A for x in a], SB, 0)
    t.buf('B', 'Float32', [x for b in B for x in b], SB, 1)
    t.out('Exact', 'Float32', ex, RWSB, 0)
    t.out('Approx', 'Float32', ap, RWSB, 1, ulp=4)
    t.write()


@test
def intr_predicates():
    hlsl = r'''
// any, all on scalars and vectors of float, int and bool; isnan, isinf, isfinite (also on
// vectors) with NaN, infinities, zero, denormals and the largest float.
StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 v = In[i];
  int3 n = int3(v.xyz);
  bool2 b = bool2(v.x > 0, v.w > 0);
  uint r = 0;
  r |= any(v) ? 1u : 0u;
  r |= all(v) ? 2u : 0u;
  r |= any(n) ? 4u : 0u;
  r |= all(n) ? 8u : 0u;
  r |= any(b) ? 16u : 0u;
  r |= all(b) ? 32u : 0u;
  r |= any(v.x) ? 64u : 0u;
  bool4 bn = isnan(v);
  bool4 bi = isinf(v);
  bool4 bf = isfinite(v);
  [unroll]
  for (uint k = 0; k < 4; ++k)
    r |= (bn[k] ? 1u : 0u) << (8 + k) | (bi[k] ? 1u : 0u) << (12 + k) | (bf[k] ? 1u : 0u) << (16 + k);
  r |= isnan(v.x * 0) ? (1u << 20) : 0u;
  Out[i] = r;
}
'''
    nan, inf = math.nan, math.inf
    den = f32_from_bits(1)
    # Denormals sit where flushing them to zero would not change any answer (D3D lets arithmetic
    # flush float32 denormals): next to a 0 in the same row for all(), never in x for any(v.x).
    rows = [[1, 2, 3, 4], [0, 0, 0, 0], [0, -0.0, 0.5, 0], [nan, 1, -inf, inf], [-1.5, 0, 2.5, -0.0],
            [-1, den, -den, 0], [inf, nan, 0, -2], [5, -6, 7, 3.4028234663852886e38]]
    rows = [[f32(x) for x in r_] for r_ in rows]
    out = []
    for v in rows:
        n = [int(x) if math.isfinite(x) else None for x in v[:3]]
        r = 0
        r |= int(any(x != 0 for x in v))
        r |= int(all(x != 0 for x in v)) << 1
        if None not in n:
            r |= int(any(n)) << 2
            r |= int(all(n)) << 3
        b = [v[0] > 0, v[3] > 0]
        r |= int(any(b)) << 4
        r |= int(all(b)) << 5
        r |= int(v[0] != 0) << 6
        for k in range(4):
            r |= int(math.isnan(v[k])) << (8 + k)
            r |= int(math.isinf(v[k])) << (12 + k)
            r |= int(math.isfinite(v[k])) << (16 + k)
        r |= int(math.isnan(v[0] * 0)) << 20
        out.append(r)
    # int3(v.xyz) of NaN or infinity is undefined: rows 3 and 6 must not depend on bits 2 and 3.
    t = T('intr_predicates', '''Intrinsics: any/all on float4 (NaN and -0: NaN counts as true, -0 as false), int3, bool2 and a
scalar; isnan/isinf/isfinite on float4 with NaN, +-inf, denormals, FLT_MAX; isnan(inf * 0).
(Rows with NaN or infinity in x..z leave the int3 bits 2 and 3 out: converting them is undefined.)''',
          hlsl)
    hl = hlsl.replace("  r |= any(n) ? 4u : 0u;\n  r |= all(n) ? 8u : 0u;\n",
                      "  if (all(isfinite(v.xyz))) {\n    r |= any(n) ? 4u : 0u;\n    r |= all(n) ? 8u : 0u;\n  }\n")
    t.hlsl = hl
    t.buf('In', 'Float32', [x for r_ in rows for x in r_], SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def intr_bits():
    hlsl = r'''
// Bit intrinsics: countbits, firstbitlow, firstbithigh (uint: highest set bit; int: for a
// negative value the highest clear bit; -1 / 0xffffffff when there is none), reversebits, on
// scalars and on a uint2.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint u = In[i];
  int s = (int)u;
  uint o = i * 7;
  Out[o + 0] = countbits(u);
  Out[o + 1] = firstbitlow(u);
  Out[o + 2] = firstbithigh(u);
  Out[o + 3] = (uint)firstbithigh(s);
  Out[o + 4] = reversebits(u);
  uint2 c = countbits(uint2(u, ~u)) + firstbitlow(uint2(u >> 1, 0x80));
  Out[o + 5] = c.x * 1000 + c.y;
  Out[o + 6] = reversebits(reversebits(u) ^ 1u);
}
'''
    vals = [0, 1, 2, 3, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF, 0x00F0F000, 0x12345678, 0xFFFFFFF8,
            0x80000001, 0x10000, 0xDEADBEEF, 5, 0xC0000000]

    def low(u):
        return (u & -u).bit_length() - 1 if u else 0xFFFFFFFF

    def high(u):
        return u.bit_length() - 1 if u else 0xFFFFFFFF

    def shigh(u):
        return high(u ^ 0xFFFFFFFF) if u & 0x80000000 else high(u)

    def rev(u):
        return int('{:032b}'.format(u)[::-1], 2)
    out = []
    for u in vals:
        cx = bin(u).count('1') + low(u >> 1)
        cy = bin(u ^ 0xFFFFFFFF).count('1') + 7
        out += [bin(u).count('1'), low(u), high(u), shigh(u), rev(u), u32(cx * 1000 + cy), u ^ 0x80000000]
    t = T('intr_bits', '''Intrinsics: countbits, firstbitlow, firstbithigh on uint and on int (negative: highest 0 bit;
0 and -1: 0xffffffff), reversebits, and the uint2 forms.''', hlsl)
    t.buf('In', 'Hex32', vals, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def intr_bitcast_f16():
    hlsl = r'''
// Bit casts: asuint, asint, asfloat of scalars and vectors; f32tof16 (the half's bits in the low
// 16 bits of a uint) and f16tof32 (also of half denormals, infinities and -0).
StructuredBuffer<float> F : register(t0);
StructuredBuffer<uint> H : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float f = F[i];
  uint h = H[i];
  uint o = i * 7;
  Out[o + 0] = asuint(f);
  Out[o + 1] = (uint)asint(-f);
  Out[o + 2] = asuint(asfloat(asuint(f) ^ 0x80000000) * 2);
  uint2 v = asuint(float2(f, 1.0f));
  Out[o + 3] = v.x ^ v.y;
  Out[o + 4] = f32tof16(f);
  Out[o + 5] = asuint(f16tof32(h));
  Out[o + 6] = asuint(asfloat((int)0x3F800000 + (int)i));
}
'''
    # f32tof16 inputs: exactly representable in half, or closer to the half below than above
    # (round to nearest and round toward zero agree, whichever the hardware uses).
    fs = [1.0, -2.5, f16(1 / 3), 65504.0, 6.103515625e-05, 2.0 ** -24, 3 * 2.0 ** -24, -0.0,
          1.0 + 2.0 ** -12, 1000.1, -7.0002, 0.099975586, 2.0 ** -20, 100.0, -65000.0, 0.5]
    fs = [f32(x) for x in fs]
    hs = [0x3C00, 0xC100, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x8000, 0x3555, 0x8001, 0x2E66,
          0x5640, 0xBBFF, 0x0000, 0x4248]
    out = []
    for i, (f, h) in enumerate(zip(fs, hs)):
        rne = f16_bits(f)
        rtz = f16_bits(abs(f))
        if f16_from_bits(rtz) > abs(f):
            rtz -= 1
        assert rne & 0x7FFF == rtz, (f, hex(rne), hex(rtz))   # both rounding modes agree
        out += [f32_bits(f), u32(f32_bits(-f)), f32_bits(fmul(-f, 2)), f32_bits(f) ^ 0x3F800000, rne,
                f32_bits(f16_from_bits(h)), 0x3F800000 + i]
    t = T('intr_bitcast_f16', '''Intrinsics: asuint, asint, asfloat (scalar and float2), sign flip through bits, f32tof16 of values
a half holds exactly or that lie less than half an ULP above one (so round-to-nearest and
round-toward-zero agree), f16tof32 of normals, denormals, +-inf, -0 and the largest half.''', hlsl)
    t.buf('F', 'Float32', fs, SB, 0)
    t.buf('H', 'Hex32', hs, SB, 1)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def intr_matrix_forms():
    hlsl = r'''
// Element-wise intrinsics apply to matrices too (HLSL): lerp, step, pow, atan2, sign, degrees
// on float2x2 / float2x3, and sign of unsigned values (0 or 1).
StructuredBuffer<float4> A : register(t0);
StructuredBuffer<uint4> U : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<int4> OutI : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 a = A[i];
  float2x2 m = float2x2(a);
  float2x2 n = float2x2(a.wzyx);
  uint o = i * 6;
  float2x2 l = lerp(m, n, float2x2(0, 0.25, 0.5, 1));
  Out[o + 0] = float4(l[0], l[1]);
  float2x2 s = step(n, m);
  Out[o + 1] = float4(s[0], s[1]);
  float2x2 p = pow(abs(m) + 1, float2x2(2, 1, 0.5, 3));
  Out[o + 2] = float4(p[0], p[1]);
  float2x2 t = atan2(m, n);
  Out[o + 3] = float4(t[0], t[1]);
  float2x3 d = degrees(float2x3(a.xyz, a.wzy));
  Out[o + 4] = float4(d[0], d[1].x);
  Out[o + 5] = float4(d[1].yz, 0, 0);
  int2x2 g = sign(m);
  OutI[i * 2] = int4(g[0], g[1]);
  OutI[i * 2 + 1] = sign(U[i]);
}
'''
    r = Rng(64)
    A = [[f32(r.pick([-1, 1]) * r.int(1, 24) / 8) for _ in range(4)] for _ in range(8)]
    A[2][1] = 0.0
    U = [[r.pick([0, 1, 7, 0x80000000, 0xFFFFFFFF]) for _ in range(4)] for _ in range(8)]
    out, outi, tols = [], [], []
    for a, u in zip(A, U):
        m, n = a, a[::-1]
        w = [0, 0.25, 0.5, 1]
        o = []
        o += [exact(fadd(x, fmul(t, fsub(y, x))), Fraction(x) + Fraction(t) * (Fraction(y) - Fraction(x)))
              for x, y, t in zip(m, n, w)]
        o += [1.0 if x >= y else 0.0 for x, y in zip(m, n)]
        o += [f32((abs(x) + 1) ** e) for x, e in zip(m, [2, 1, 0.5, 3])]
        o += [f32(math.atan2(x, y)) for x, y in zip(m, n)]
        dd = a[:3] + [a[3], a[2], a[1]]
        o += [f32(x * 180 / math.pi) for x in dd[:4]] + [f32(x * 180 / math.pi) for x in dd[4:]] + [0.0, 0.0]
        out += o
        outi += [(x > 0) - (x < 0) for x in m] + [1 if x else 0 for x in u]
    t = T('intr_matrix_forms', '''Intrinsics on matrices (element-wise: lerp, step, pow, atan2, degrees, sign) and sign of
uint4 (0 or 1). Tolerance: 64 ULP (atan2 and pow are the loosest, see TOLERANCES).''', hlsl)
    t.buf('A', 'Float32', [x for v in A for x in v], SB, 0)
    t.buf('U', 'UInt32', [x for v in U for x in v], SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0, ulp=TOLERANCES['inverse_trig'])
    t.out('OutI', 'Int32', outi, RWSB, 1)
    t.write()


@test
def intr_packed_sm64():
    hlsl = r'''
// Shader-model 6.4+ helpers: dot4add_i8packed / dot4add_u8packed (byte dot products into a
// 32-bit accumulator), dot2add (float2 dot product plus a float), D3DCOLORtoUBYTE4 (BGRA bytes),
// AddUint64 on (low, high) pairs, including the carry.
StructuredBuffer<uint4> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint4 v = In[i];
  uint o = i * 12;
  Out[o + 0] = (uint)dot4add_i8packed(v.x, v.y, (int)v.z);
  Out[o + 1] = dot4add_u8packed(v.x, v.y, v.z);
  Out[o + 2] = asuint(dot2add(float2(v.x & 0xFF, (int)(v.y & 0xFF) - 128) * 0.5f, float2(3, -0.25), 1.5f));
  int4 c = D3DCOLORtoUBYTE4(float4(v.xyz & 0xFF, 255) / 255.0f);
  Out[o + 3] = (uint)c.x;
  Out[o + 4] = (uint)c.y;
  Out[o + 5] = (uint)c.z;
  Out[o + 6] = (uint)c.w;
  uint2 s = AddUint64(v.xy, v.zw);
  Out[o + 7] = s.x;
  Out[o + 8] = s.y;
  uint4 t = AddUint64(v, v.wzyx);
  Out[o + 9] = t.y;
  Out[o + 10] = t.w;
  Out[o + 11] = t.x ^ t.z;
}
'''
    r = Rng(66)
    ins = []
    for k in range(8):
        ins += [r.int(0, 0xFFFFFFFF) for _ in range(4)]
    ins[0:4] = [0xFFFFFFFF, 0x00000001, 0xFFFFFFFF, 0x7FFFFFFF]   # carries out of the low words
    out = []

    def sbytes(x):
        return [((x >> (8 * k)) & 0xFF) - (256 if (x >> (8 * k)) & 0x80 else 0) for k in range(4)]

    def ubytes(x):
        return [(x >> (8 * k)) & 0xFF for k in range(4)]

    def add64(a, b):
        s = (a[0] | a[1] << 32) + (b[0] | b[1] << 32)
        return [s & 0xFFFFFFFF, (s >> 32) & 0xFFFFFFFF]

    for k in range(8):
        x, y, z, w = ins[4 * k:4 * k + 4]
        o = [u32(i32(z) + sum(a * b for a, b in zip(sbytes(x), sbytes(y)))),
             u32(z + sum(a * b for a, b in zip(ubytes(x), ubytes(y))))]
        a0, a1 = f32((x & 0xFF) * 0.5), f32(((y & 0xFF) - 128) * 0.5)
        o.append(f32_bits(fadd(fadd(1.5, fmul(a0, 3.0)), fmul(a1, -0.25))))
        col = [f32(f32(c) / f32(255.0)) for c in (x & 0xFF, y & 0xFF, z & 0xFF, 255)]
        bgra = [col[2], col[1], col[0], col[3]]
        o += [int(fmul(c, f32(255.001953))) for c in bgra]
        o += add64([x, y], [z, w])
        hi = add64([x, y], [w, z])
        lo = add64([z, w], [y, x])
        o += [hi[1], lo[1], hi[0] ^ lo[0]]
        out += o
    t = T('intr_packed_sm64', '''Intrinsics of shader model 6.4+: dot4add_i8packed and dot4add_u8packed (wrapping 32-bit sums),
dot2add, D3DCOLORtoUBYTE4 (x.zyxw * 255.001953, truncated), AddUint64 on uint2 and uint4 with
carries out of the low word.''', hlsl)
    t.buf('In', 'Hex32', ins, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def intr_vector_forms():
    hlsl = r'''
// Intrinsics applied to vectors work component by component: abs, min, max, clamp with
// vector bounds, saturate, lerp with a vector weight, mad, floor, frac, round, sign (an int3),
// step, smoothstep, sqrt, any/all of comparisons, and integer abs / min / max / clamp.
StructuredBuffer<float4> A : register(t0);
StructuredBuffer<float4> B : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<int4> OutI : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 a = A[i];
  float4 b = B[i];
  uint o = i * 9;
  Out[o + 0] = abs(a);
  Out[o + 1] = min(a, b) + max(a, b) * 2;
  Out[o + 2] = clamp(a, float4(-1, -2, -3, -4), float4(1, 2, 3, 4));
  Out[o + 3] = saturate(a) + lerp(a, b, float4(0, 0.25, 0.5, 1));
  Out[o + 4] = mad(a, b, 1.5f);
  Out[o + 5] = floor(a) * 10 + frac(a);
  Out[o + 6] = round(a) + step(b, a) * 100;
  Out[o + 7] = smoothstep(float4(-2, -2, -2, -2), float4(2, 2, 2, 2), a) + float4(sqrt(abs(b.xyz) * 4), 0);
  Out[o + 8] = float4((float3)sign(a.xyz), any(a > b) ? (all(a > -100) ? 3 : 2) : 1);
  int4 n = (int4)(a * 4);
  int4 m = (int4)(b * 4);
  OutI[i * 2] = abs(n) + min(n, m) * 100;
  OutI[i * 2 + 1] = max(n, m) + clamp(n, int4(-3, -3, -3, -3), m) * 1000;
}
'''
    r = Rng(62)
    A = [[f32(r.int(-64, 64) / 8) for _ in range(4)] for _ in range(8)]
    B = [[f32(r.pick([-1, 1]) * r.pick([1, 4, 9, 16, 25, 0.25, 2.25, 6.25]) / 4) for _ in range(4)] for _ in range(8)]
    A[3] = list(B[3])     # equal components: step() gives 1, a > b is false
    out, outi = [], []
    for a, b in zip(A, B):
        t4 = [0, 0.25, 0.5, 1]
        o = []
        o += [abs(x) for x in a]
        o += [fadd(min(x, y), fmul(max(x, y), 2)) for x, y in zip(a, b)]
        o += [min(max(x, lo), hi) for x, lo, hi in zip(a, [-1, -2, -3, -4], [1, 2, 3, 4])]
        o += [fadd(min(max(x, 0.0), 1.0), exact(fadd(x, fmul(t, fsub(y, x))),
                                                Fraction(x) + Fraction(t) * (Fraction(y) - Fraction(x))))
              for x, y, t in zip(a, b, t4)]
        o += [exact(fadd(fmul(x, y), 1.5), Fraction(x) * Fraction(y) + Fraction(3, 2)) for x, y in zip(a, b)]
        o += [fadd(fmul(ffloor(x), 10), fsub(x, ffloor(x))) for x in a]
        o += [fadd(rne(x), 100.0 if x >= y else 0.0) for x, y in zip(a, b)]
        sm = []
        for x in a:
            t = min(max(fdiv(fadd(x, 2.0), 4.0), 0.0), 1.0)
            v = fmul(fmul(t, t), fsub(3.0, fmul(2.0, t)))
            exact(v, Fraction(t) * Fraction(t) * (3 - 2 * Fraction(t)))
            sm.append(v)
        sq = [math.sqrt(abs(y) * 4) for y in b[:3]]
        assert all(s == int(s) or s * 2 == int(s * 2) for s in sq)     # exact square roots
        o += [fadd(s, q) for s, q in zip(sm, sq + [0.0])]
        sg = [float((x > 0) - (x < 0)) for x in a[:3]]
        anyv = any(x > y for x, y in zip(a, b))
        allv = all(x > -100 for x in a)
        o += sg + [3.0 if anyv and allv else 2.0 if anyv else 1.0]
        out += o
        n = [int(x * 4) for x in a]
        m = [int(y * 4) for y in b]
        outi += [abs(x) + min(x, y) * 100 for x, y in zip(n, m)]
        outi += [max(x, y) + min(max(x, -3), y) * 1000 for x, y in zip(n, m)]
    t = T('intr_vector_forms', '''Intrinsics on vectors (component by component): abs, min, max, clamp with vector bounds, saturate,
lerp with a float4 weight, mad with a scalar, floor, frac, round, step, smoothstep, sqrt of a
float3, sign of a float3 (int3), any/all of vector comparisons; integer abs/min/max/clamp on int4.
Dyadic inputs and exact square roots: exact results.''', hlsl)
    t.buf('A', 'Float32', [x for a in A for x in a], SB, 0)
    t.buf('B', 'Float32', [x for b in B for x in b], SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.out('OutI', 'Int32', outi, RWSB, 1)
    t.write()
