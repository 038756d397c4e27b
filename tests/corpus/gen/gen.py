#!/usr/bin/env python3
"""Writes tests/corpus/*.test: each test's HLSL, its inputs, and expected buffers computed
here by a Python model of the kernel with HLSL's 32-bit semantics (see common.py).

Run from anywhere: python3 tests/corpus/gen/gen.py
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import f32, i32, u32, idiv, imod, ftoi, ulps, threads, write_test  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
SB, RW, CB = 'StructuredBuffer', 'RWStructuredBuffer', 'ConstantBuffer'
EXACT = lambda actual, expected: (actual, 'BufferExact', actual, expected, {})  # noqa: E731


def emit(name, *args, **kw):
    write_test(os.path.join(OUT, name + '.test'), *args, **kw)
    print('wrote', name + '.test')


def hexf(x):
    return __import__('struct').unpack('<I', __import__('struct').pack('<f', x))[0]


# ---------------------------------------------------------------------------
def vector_add():
    hlsl = '''
StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Out[i] = A[i] + B[i];
}
'''
    n = 64
    a = [f32(i * 0.5) for i in range(n)]
    b = [f32(100 - i * 1.25) for i in range(n)]
    out = [f32(x + y) for x, y in zip(a, b)]
    emit('vector_add', 'Vector add over two workgroups of 32; scalar SV_DispatchThreadID.', hlsl, [2, 1, 1],
         [('A', 'Float32', a), ('B', 'Float32', b), ('Out', 'Float32', ('fill', 4 * n, None)),
          ('ExpectedOut', 'Float32', out)],
         [('A', SB, 0, 0), ('B', SB, 1, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def saxpy():
    hlsl = '''
cbuffer Params : register(b0) {
  float a;
  uint n;
}
StructuredBuffer<float> X : register(t0);
RWStructuredBuffer<float> Y : register(u0);

[numthreads(16, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
  uint i = tid.x;
  if (i < n)
    Y[i] = a * X[i] + Y[i];
}
'''
    n, a = 40, 2.5
    x = [f32(i * 0.5 - 7) for i in range(n)]
    y = [f32(3 - i * 0.25) for i in range(n)]
    out = [f32(f32(a * xi) + yi) for xi, yi in zip(x, y)]
    assert all(f32(a * xi + yi) == o for xi, yi, o in zip(x, y, out))  # exact: fma or not
    emit('saxpy', '''Y = a*X + Y with the scalar a and the bound n from a cbuffer (Hex32: a = 2.5, n = 40).
48 threads for 40 elements: Y is the last buffer in memory, so an unguarded store faults.''',
         hlsl, [3, 1, 1],
         [('Params', 'Hex32', [hexf(a), n]), ('X', 'Float32', x), ('Y', 'Float32', y),
          ('ExpectedY', 'Float32', out)],
         [('Params', CB, 0, 0), ('X', SB, 0, 0), ('Y', RW, 0, 0)],
         [EXACT('Y', 'ExpectedY')], style='old')


def clamp_if_else():
    hlsl = '''
cbuffer Bounds : register(b0) {
  float lo;
  float hi;
}
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);
RWStructuredBuffer<int> Side : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float x = In[i];
  int side;
  if (x < lo) {
    x = lo;
    side = -1;
  } else if (x > hi) {
    x = hi;
    side = 1;
  } else {
    side = 0;
  }
  Out[i] = x;
  Side[i] = side;
}
'''
    lo, hi = -1.5, 2.25
    vals = [-3, -1.5, -1.25, -0.0, 0.0, 2.25, 2.5, 100, math.inf, -math.inf, math.nan, 1e-30,
            -1e30, 1.0, -1.0, 2.0]
    vals += [f32(i * 0.375 - 3) for i in range(16)]
    vals = [f32(v) for v in vals]
    out, side = [], []
    for x in vals:
        if x < lo:
            out.append(lo); side.append(-1)
        elif x > hi:
            out.append(hi); side.append(1)
        else:
            out.append(x); side.append(0)
    emit('clamp_if_else', '''Clamp with if / else if / else against cbuffer floats; -0, NaN and infinities pass
through the comparisons as IEEE says (NaN and -0 stay as they are).''', hlsl, [4, 1, 1],
         [('Bounds', 'Float32', [lo, hi]), ('In', 'Float32', vals), ('Out', 'Float32', ('fill', 128, 7.0)),
          ('Side', 'Int32', ('fill', 128, 9)), ('ExpectedOut', 'Float32', out), ('ExpectedSide', 'Int32', side)],
         [('Bounds', CB, 0, 0), ('In', SB, 0, 0), ('Out', RW, 0, 0), ('Side', RW, 1, 0)],
         [EXACT('Out', 'ExpectedOut'), EXACT('Side', 'ExpectedSide')])


def loop_sum_for():
    hlsl = '''
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Prefix : register(u0);
RWStructuredBuffer<int> Window : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int sum = 0;
  for (uint j = 0; j <= i; j++) {
    sum += In[j];
  }
  Prefix[i] = sum;
  int w = 0;
  for (int k = (int)i - 2; k <= (int)i + 2; ++k) {
    if (k >= 0 && k < 32)
      w += In[k];
  }
  Window[i] = w;
}
'''
    vals = [((i * 37) % 23) - 11 for i in range(32)]
    prefix = [sum(vals[:i + 1]) for i in range(32)]
    window = [sum(vals[k] for k in range(i - 2, i + 3) if 0 <= k < 32) for i in range(32)]
    emit('loop_sum_for', '''Per-thread prefix sums with a for loop whose trip count differs per lane, and a sliding
window loop with a guarded (short-circuit) index.''', hlsl, [2, 1, 1],
         [('In', 'Int32', vals), ('Prefix', 'Int32', ('fill', 128, None)), ('Window', 'Int32', ('fill', 128, None)),
          ('ExpectedPrefix', 'Int32', prefix), ('ExpectedWindow', 'Int32', window)],
         [('In', SB, 0, 0), ('Prefix', RW, 0, 0), ('Window', RW, 1, 0)],
         [EXACT('Prefix', 'ExpectedPrefix'), EXACT('Window', 'ExpectedWindow')])


def while_break():
    hlsl = '''
StructuredBuffer<uint> Start : register(t0);
RWStructuredBuffer<uint> Steps : register(u0);
RWStructuredBuffer<uint> Peak : register(u1);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint x = Start[i];
  uint steps = 0;
  uint peak = x;
  while (true) {
    if (x <= 1)
      break;
    if ((x & 1) == 0)
      x = x >> 1;
    else
      x = 3 * x + 1;
    steps++;
    if (x > peak)
      peak = x;
    if (steps >= 100)
      break;
  }
  Steps[i] = steps;
  Peak[i] = peak;
}
'''
    start = list(range(0, 24)) + [27, 97, 871, 703, 1000000, 4294967295, 65536, 31]
    steps_l, peak_l = [], []
    for x in start:
        steps, peak = 0, x
        while True:
            if x <= 1:
                break
            x = x >> 1 if x & 1 == 0 else u32(3 * x + 1)
            steps += 1
            peak = max(peak, x)
            if steps >= 100:
                break
        steps_l.append(steps)
        peak_l.append(peak)
    emit('while_break', '''Collatz steps with while (true) and two breaks (one capping at 100 steps); uint
arithmetic wraps (4294967295 * 3 + 1).''', hlsl, [1, 1, 1],
         [('Start', 'UInt32', start), ('Steps', 'UInt32', ('fill', 128, None)), ('Peak', 'UInt32', ('fill', 128, None)),
          ('ExpectedSteps', 'UInt32', steps_l), ('ExpectedPeak', 'UInt32', peak_l)],
         [('Start', SB, 0, 0), ('Steps', RW, 0, 0), ('Peak', RW, 1, 0)],
         [EXACT('Steps', 'ExpectedSteps'), EXACT('Peak', 'ExpectedPeak')])


def int_math():
    hlsl = '''
StructuredBuffer<int> A : register(t0);
StructuredBuffer<int> B : register(t1);
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<uint> UOut : register(u1);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int a = A[i];
  int b = B[i];
  uint ua = (uint)a;
  uint ub = (uint)b;
  uint o = i * 10;
  Out[o + 0] = a / b;
  Out[o + 1] = a % b;
  Out[o + 2] = a * b + 2147483647;
  Out[o + 3] = a >> 3;
  Out[o + 4] = (int)(ua >> 3);
  Out[o + 5] = a << (b & 31);
  Out[o + 6] = (a < b) ? 1 : 0;
  Out[o + 7] = (ua < ub) ? 1 : 0;
  Out[o + 8] = (a & b) | (a ^ ~b);
  Out[o + 9] = -a - b * 3;
  UOut[i * 3 + 0] = ua / ub;
  UOut[i * 3 + 1] = ua % ub;
  UOut[i * 3 + 2] = ua * 3 + 7 - ub;
}
'''
    A = [-7, 7, -7, 7, 2147483647, -2147483648, 100, -1]
    B = [2, -2, -2, 2, 3, 7, -3, 5]
    out, uout = [], []
    for a, b in zip(A, B):
        ua, ub = u32(a), u32(b)
        out += [idiv(a, b), imod(a, b), i32(a * b + 2147483647), a >> 3, i32(ua >> 3), i32(a << (b & 31)),
                int(a < b), int(ua < ub), i32((a & b) | (a ^ ~b)), i32(-a - b * 3)]
        uout += [ua // ub, ua % ub, u32(ua * 3 + 7 - ub)]
    emit('int_math', '''Integer semantics: signed / and % truncate toward zero, wrapping overflow, arithmetic vs
logical right shift, masked left shift, signed vs unsigned comparison and division, bitwise ops.''',
         hlsl, [2, 1, 1],
         [('A', 'Int32', A), ('B', 'Int32', B), ('Out', 'Int32', ('fill', 320, None)),
          ('UOut', 'UInt32', ('fill', 96, None)), ('ExpectedOut', 'Int32', out), ('ExpectedUOut', 'UInt32', uout)],
         [('A', SB, 0, 0), ('B', SB, 1, 0), ('Out', RW, 0, 0), ('UOut', RW, 1, 0)],
         [EXACT('Out', 'ExpectedOut'), EXACT('UOut', 'ExpectedUOut')])


def float_math():
    hlsl = '''
StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float a = A[i];
  float b = B[i];
  uint o = i * 6;
  Out[o + 0] = a + b;
  Out[o + 1] = a - b;
  Out[o + 2] = a * b;
  Out[o + 3] = a / b;
  Out[o + 4] = -a * 0.1f + b;
  float t = a;
  t *= 1.5f;
  t -= b;
  t /= 4.0f;
  Out[o + 5] = t;
}
'''
    A = [f32(v) for v in [1.1, -2.7, 3.14159, 1e10, -0.001, 123.456, 7.0, -1e-3]]
    B = [f32(v) for v in [0.3, 0.7, -2.0, 3.3e-5, 10.5, -0.125, 3.0, 250.0]]
    tenth = f32(0.1)
    out = []
    for a, b in zip(A, B):
        m = f32(-a * tenth)
        fused, unfused = f32(-a * tenth + b), f32(m + b)
        assert ulps(fused, unfused) <= 1, (a, b)
        t1 = f32(a * 1.5)
        t2f, t2 = f32(a * 1.5 - b), f32(t1 - b)
        assert ulps(f32(t2f / 4), f32(t2 / 4)) <= 1
        out += [f32(a + b), f32(a - b), f32(a * b), f32(a / b), unfused, f32(t2 / 4)]
    emit('float_math', '''f32 arithmetic, compound assignment on floats and f-suffixed literals; checked to 1 ulp
(a compiler may contract a*b+c into fma) and, as a second result, to an absolute epsilon.''',
         hlsl, [1, 1, 1],
         [('A', 'Float32', A), ('B', 'Float32', B), ('Out', 'Float32', ('fill', 192, None)),
          ('ExpectedOut', 'Float32', out)],
         [('A', SB, 0, 0), ('B', SB, 1, 0), ('Out', RW, 0, 0)],
         [('Ulp', 'BufferFloatULP', 'Out', 'ExpectedOut', {'ULPT': 1}),
          ('Eps', 'BufferFloatEpsilon', 'Out', 'ExpectedOut', {'Epsilon': 0.002})])


def casts():
    hlsl = '''
StructuredBuffer<float> F : register(t0);
StructuredBuffer<int> I : register(t1);
RWStructuredBuffer<int> ToInt : register(u0);
RWStructuredBuffer<float> ToFloat : register(u1);
RWStructuredBuffer<uint> Bits : register(u2);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float f = F[i];
  int n = I[i];
  ToInt[i * 3 + 0] = (int)f;
  ToInt[i * 3 + 1] = (int)(f > 0.0f);
  ToInt[i * 3 + 2] = (int)((uint)n >> 1);
  ToFloat[i * 3 + 0] = (float)n;
  ToFloat[i * 3 + 1] = (float)(uint)n;
  ToFloat[i * 3 + 2] = (float)(int)f + 0.5f;
  bool odd = (n & 1) != 0;
  uint u = odd;
  Bits[i] = u + (uint)(f < 0.0f) * 2 + (f >= 0.0f ? (uint)f : 0u) * 4;
}
'''
    F = [f32(v) for v in [-2.5, 2.5, -0.5, 0.99, -7.99, 1000000.5, 0.0, -0.0]]
    I = [-1, 16777217, -16777217, 2147483647, -2147483648, 0, 5, -6]
    to_int, to_float = [], []
    for f, n in zip(F, I):
        to_int += [ftoi(f), int(f > 0), i32(u32(n) >> 1)]
        to_float += [f32(float(n)), f32(float(u32(n))), f32(f32(float(ftoi(f))) + 0.5)]
    # (uint)f of a negative float is undefined in HLSL: the source only uses it when f >= 0.
    bits = [u32(int(n & 1 != 0) + int(f < 0) * 2 + (int(f) if f >= 0 else 0) * 4) for f, n in zip(F, I)]
    emit('casts', '''Conversions: float->int truncates toward zero (also negatives), bool->int, int->uint
reinterprets, int->float and uint->float round to nearest even (16777217 -> 16777216,
4294967295 -> 4294967296), implicit bool->uint, float->uint for non-negative values.''',
         hlsl, [1, 1, 1],
         [('F', 'Float32', F), ('I', 'Int32', I), ('ToInt', 'Int32', ('fill', 96, None)),
          ('ToFloat', 'Float32', ('fill', 96, None)), ('Bits', 'UInt32', ('fill', 32, None)),
          ('ExpectedToInt', 'Int32', to_int), ('ExpectedToFloat', 'Float32', to_float),
          ('ExpectedBits', 'UInt32', bits)],
         [('F', SB, 0, 0), ('I', SB, 1, 0), ('ToInt', RW, 0, 0), ('ToFloat', RW, 1, 0), ('Bits', RW, 2, 0)],
         [EXACT('ToInt', 'ExpectedToInt'), EXACT('ToFloat', 'ExpectedToFloat'), EXACT('Bits', 'ExpectedBits')])


def bool_logic():
    hlsl = '''
StructuredBuffer<int> A : register(t0);
StructuredBuffer<float> X : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int a = A[i];
  float x = X[i];
  bool inRange = a >= -3 && a <= 3;
  bool outside = a < -10 || a > 10;
  bool between = !inRange && !outside;
  bool fpos = x > 0.0f;
  bool fsmall = x >= -1.0f && x < 1.0f;
  bool same = fpos == (a > 0);
  bool differ = fpos != fsmall;
  uint mask = 0;
  if (inRange) mask |= 1;
  if (outside) mask |= 2;
  if (between) mask |= 4;
  if (fpos || fsmall && !inRange) mask |= 8;
  if (same) mask |= 16;
  if (differ) mask |= 32;
  if (!(x == x)) mask |= 64;
  if (x != x || a == 0) mask |= 128;
  Out[i] = mask;
}
'''
    A = [(i * 7) % 31 - 15 for i in range(32)]
    X = [f32(v) for v in [0.5, -0.5, 1.0, -1.0, 0.0, -0.0, math.nan, 2.0, -3.0, math.inf, -math.inf, 0.999,
                          -1.001, 1e-40, -1e-40, 7.5] * 2]
    out = []
    for a, x in zip(A, X):
        in_range = -3 <= a <= 3
        outside = a < -10 or a > 10
        between = not in_range and not outside
        fpos = x > 0
        fsmall = -1 <= x < 1
        same = fpos == (a > 0)
        differ = fpos != fsmall
        m = 0
        m |= 1 if in_range else 0
        m |= 2 if outside else 0
        m |= 4 if between else 0
        m |= 8 if (fpos or (fsmall and not in_range)) else 0
        m |= 16 if same else 0
        m |= 32 if differ else 0
        m |= 64 if not (x == x) else 0
        m |= 128 if (x != x or a == 0) else 0
        out.append(m)
    emit('bool_logic', '''Chained comparisons and boolean logic: && || ! == != on bools, precedence of && over ||,
float comparisons with NaN, infinities, -0 and subnormals (IEEE: subnormals are not flushed, as the RUN line says).''', hlsl, [2, 1, 1],
         [('A', 'Int32', A), ('X', 'Float32', X), ('Out', 'UInt32', ('fill', 128, None)),
          ('ExpectedOut', 'UInt32', out)],
         [('A', SB, 0, 0), ('X', SB, 1, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')], run='-T cs_6_2 -denorm preserve')


def dispatch_2d():
    hlsl = '''
RWStructuredBuffer<uint> Ids : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID,
          uint3 gtid : SV_GroupThreadID, uint gi : SV_GroupIndex) {
  uint width = 16;
  uint idx = dtid.y * width + dtid.x;
  uint packed = (gid.y << 21) | (gid.x << 20) | (gi << 14);
  packed |= (gtid.y << 11) | (gtid.x << 8) | (dtid.y << 4) | dtid.x;
  Ids[idx] = packed + gtid.z;
}
'''
    ids = [None] * 256
    for (dx, dy, dz), (gx, gy, gz), (tx, ty, tz), gi in threads((8, 8, 1), (2, 2, 1)):
        ids[dy * 16 + dx] = ((gy << 21) | (gx << 20) | (gi << 14) | (ty << 11) | (tx << 8) | (dy << 4) | dx) + tz
    emit('dispatch_2d', '''2D dispatch: numthreads(8, 8, 1) over a 2x2 grid; every thread packs SV_GroupID,
SV_GroupIndex, SV_GroupThreadID and SV_DispatchThreadID (x, y) into one word at row-major
index dtid.y * 16 + dtid.x.''', hlsl, [2, 2, 1],
         [('Ids', 'Hex32', ('fill', 1024, 0xdeadbeef)), ('ExpectedIds', 'Hex32', ids)],
         [('Ids', RW, 0, 0)],
         [EXACT('Ids', 'ExpectedIds')])


def short_circuit():
    hlsl = '''
cbuffer Params : register(b0) {
  uint n;
}
RWStructuredBuffer<int> Flags : register(u0);
StructuredBuffer<float> In : register(t0);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int f = 0;
  if (i < n && In[i] > 0.0f)
    f = 1;
  if (i >= n || In[i] == 0.0f)
    f += 2;
  bool neg = false;
  if (!(i >= n) && !(In[i] >= 0.0f))
    neg = true;
  if (neg)
    f += 4;
  Flags[i] = f;
}
'''
    n = 20
    vals = [f32(v) for v in [1, -1, 0, -0.0, 2.5, -2.5, math.nan, 3, 0, -4, 5, 6, -7, 0, 8, -9, 10, 0.25, -0.25, 1e-3]]
    flags = []
    for i in range(32):
        f = 0
        if i < n and vals[i] > 0:
            f = 1
        if i >= n or vals[i] == 0:
            f += 2
        if not (i >= n) and not (vals[i] >= 0):
            f += 4
        flags.append(f)
    emit('short_circuit', '''Short-circuit && and || guarding an index: In has exactly n = 20 elements, 32 threads
run, and In is the last buffer in device memory, so evaluating In[i] for i >= n faults.''',
         hlsl, [1, 1, 1],
         [('Params', 'UInt32', [n]), ('Flags', 'Int32', ('fill', 128, -1)), ('In', 'Float32', vals),
          ('ExpectedFlags', 'Int32', flags)],
         [('Params', CB, 0, 0), ('Flags', RW, 0, 0), ('In', SB, 0, 0)],
         [EXACT('Flags', 'ExpectedFlags')])


def ternary():
    hlsl = '''
StructuredBuffer<int> A : register(t0);
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<float> FOut : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int a = A[i];
  int sign = a > 0 ? 1 : a < 0 ? -1 : 0;
  int absA = a < 0 ? -a : a;
  int big = (absA > 5) ? absA * 2 : absA + 100;
  Out[i * 3 + 0] = sign;
  Out[i * 3 + 1] = big;
  Out[i * 3 + 2] = (i & 1) == 0 ? a : -a;
  FOut[i] = sign >= 0 ? (float)a * 0.5f : (float)a;
}
'''
    A = [i * 3 - 20 if i % 4 else 0 for i in range(16)]
    out, fout = [], []
    for i, a in enumerate(A):
        sign = 1 if a > 0 else (-1 if a < 0 else 0)
        absa = -a if a < 0 else a
        big = absa * 2 if absa > 5 else absa + 100
        out += [sign, big, a if i & 1 == 0 else -a]
        fout.append(f32(a * 0.5) if sign >= 0 else f32(float(a)))
    emit('ternary', 'Nested and chained ?: on ints and floats, with conditions of several kinds.', hlsl, [1, 1, 1],
         [('A', 'Int32', A), ('Out', 'Int32', ('fill', 192, None)), ('FOut', 'Float32', ('fill', 64, None)),
          ('ExpectedOut', 'Int32', out), ('ExpectedFOut', 'Float32', fout)],
         [('A', SB, 0, 0), ('Out', RW, 0, 0), ('FOut', RW, 1, 0)],
         [EXACT('Out', 'ExpectedOut'), EXACT('FOut', 'ExpectedFOut')], style='old')


def nested_loops():
    hlsl = '''
StructuredBuffer<uint> Limit : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint limit = Limit[i];
  uint total = 0;
  uint iters = 0;
  for (uint r = 0; r < 6; r++) {
    if (r == i % 4)
      continue;
    for (uint c = 0; c < 8; c++) {
      iters++;
      if (c == r)
        continue;
      if (c * r > limit)
        break;
      total += c * 10 + r;
    }
    if (total > 400)
      break;
  }
  Out[i * 2] = total;
  Out[i * 2 + 1] = iters;
}
'''
    limits = [(i * 5) % 17 for i in range(16)]
    out = []
    for i, limit in enumerate(limits):
        total = iters = 0
        for r in range(6):
            if r == i % 4:
                continue
            for c in range(8):
                iters += 1
                if c == r:
                    continue
                if c * r > limit:
                    break
                total += c * 10 + r
            if total > 400:
                break
        out += [total, iters]
    emit('nested_loops', '''Nested for loops with continue and break at both levels, divergent per lane.''',
         hlsl, [1, 1, 1],
         [('Limit', 'UInt32', limits), ('Out', 'UInt32', ('fill', 128, None)), ('ExpectedOut', 'UInt32', out)],
         [('Limit', SB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def divergent_loop():
    hlsl = '''
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int acc = In[i];
  int odd = 0;
  for (int k = 0; k < 10; ++k) {
    if (((int)i + k) % 3 == 0) {
      acc = acc * 3 - k;
    } else if ((acc & 1) != 0) {
      acc = acc / 2 + 7;
      odd++;
    } else {
      acc -= (int)i;
      odd--;
    }
  }
  Out[i * 2] = acc;
  Out[i * 2 + 1] = odd;
}
'''
    vals = [(i * 13) % 29 - 14 for i in range(32)]
    out = []
    for i, acc in enumerate(vals):
        odd = 0
        for k in range(10):
            if imod(i + k, 3) == 0:
                acc = i32(acc * 3 - k)
            elif acc & 1:
                acc = i32(idiv(acc, 2) + 7)
                odd += 1
            else:
                acc = i32(acc - i)
                odd -= 1
        out += [acc, odd]
    emit('divergent_loop', '''Divergent if / else if / else inside a uniform loop; lanes take different arms each
iteration, with negative division.''', hlsl, [1, 1, 1],
         [('In', 'Int32', vals), ('Out', 'Int32', ('fill', 256, None)), ('ExpectedOut', 'Int32', out)],
         [('In', SB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def big_group():
    hlsl = '''
cbuffer Params : register(b0) {
  uint n;
  int scale;
}
RWStructuredBuffer<int> Out : register(u0);

[numthreads(128, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID,
          uint3 gid : SV_GroupID) {
  uint i = dtid.x;
  if (i < n) {
    int wave = (int)(gtid.x / 32);
    Out[i] = (int)i * scale + wave * 1000 + (int)gid.x * 100000;
  }
}
'''
    n, scale = 150, -3
    out = [i * scale + ((i % 128) // 32) * 1000 + (i // 128) * 100000 for i in range(n)]
    emit('big_group', '''A workgroup of 128 threads (four waves of 32 on generic) and a partial last group:
256 threads for n = 150 elements; Out is the last buffer, so a missing bounds check faults.''',
         hlsl, [2, 1, 1],
         [('Params', 'Int32', [n, scale]), ('Out', 'Int32', ('fill', 4 * n, None)), ('ExpectedOut', 'Int32', out)],
         [('Params', CB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def do_while():
    hlsl = '''
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Digits : register(u0);
RWStructuredBuffer<int> Misc : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint x = In[i];
  uint count = 0;
  uint rev = 0;
  do {
    rev = rev * 10 + x % 10;
    x /= 10;
    ++count;
  } while (x != 0);
  Digits[i * 2] = count;
  Digits[i * 2 + 1] = rev;
  int k = (int)i;
  int a = k;
  k++;
  ++k;
  int b = k;
  int c = k;
  k--;
  --k;
  int d = k;
  k <<= 2;
  k |= 1;
  k ^= 6;
  k >>= 1;
  k %= 7;
  k += a * b - c * d;
  k &= 0xff;
  k -= 3;
  Misc[i] = k;
}
'''
    ins = [0, 7, 10, 123, 4000, 98765, 1000000, 4294967295, 5, 50, 505, 12, 120, 1201, 99, 3]
    digits, misc = [], []
    for i, x in enumerate(ins):
        count = rev = 0
        while True:
            rev = u32(rev * 10 + x % 10)
            x //= 10
            count += 1
            if x == 0:
                break
        digits += [count, rev]
        k = i
        a = k; k += 1
        k += 1; b = k
        c = k; k -= 1
        k -= 1; d = k
        k = i32(k << 2); k |= 1; k ^= 6; k >>= 1; k = imod(k, 7); k = i32(k + a * b - c * d); k &= 0xff; k -= 3
        misc.append(k)
    emit('do_while', '''do-while (runs at least once, also for 0), uint / and %, pre/post ++ and -- as statements, and every
compound assignment operator.''', hlsl, [1, 1, 1],
         [('In', 'UInt32', ins), ('Digits', 'UInt32', ('fill', 128, None)), ('Misc', 'Int32', ('fill', 64, None)),
          ('ExpectedDigits', 'UInt32', digits), ('ExpectedMisc', 'Int32', misc)],
         [('In', SB, 0, 0), ('Digits', RW, 0, 0), ('Misc', RW, 1, 0)],
         [EXACT('Digits', 'ExpectedDigits'), EXACT('Misc', 'ExpectedMisc')])

def loop_top_block():
    hlsl = '''
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint x = In[i];
  uint acc = 0;
  for (uint k = 0; k < 8; k++) {
    {
      if ((x >> k) & 1)
        continue;
      acc += 10;
    }
    acc += 1;
    if (k == (x >> 8)) {
      { continue; }
      acc += 1000;
    }
    acc += 100;
  }
  Out[i] = acc;
}
'''
    ins = [u32(k * 37 + (k % 9 << 8)) for k in range(32)]
    out = []
    for x in ins:
        acc = 0
        for k in range(8):
            if (x >> k) & 1:
                continue
            acc += 10
            acc += 1
            if k == (x >> 8):
                continue
            acc += 100
        out.append(acc)
    emit('loop_top_block', '''A `{ ... }` block at a loop's top level holding `if (c) continue;`, and a bare `continue;` in a
block in an if: the statements after the block are skipped too.''', hlsl, [1, 1, 1],
         [('In', 'UInt32', ins), ('Out', 'UInt32', ('fill', 128, None)), ('ExpectedOut', 'UInt32', out)],
         [('In', SB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def ternary_vector_guard():
    hlsl = '''
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<float> In : register(t0);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float2 v = i < 16 ? float2(In[i], In[i] * 2) : float2(1, 2);
  Out[i] = v.x + v.y;
}
'''
    ins = [f32(k * 1.5 - 4) for k in range(16)]
    out = [f32(ins[k] + f32(ins[k] * 2)) if k < 16 else 3.0 for k in range(32)]
    emit('ternary_vector_guard', '''`?:` with a vector result whose chosen side guards a load: only that side runs for each lane.
In is the last buffer, so loading In[i] for i >= 16 would fault.''', hlsl, [1, 1, 1],
         [('Out', 'Float32', ('fill', 128, None)), ('ExpectedOut', 'Float32', out), ('In', 'Float32', ins)],
         [('In', SB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def udiv_edges():
    hlsl = '''
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> ByConst : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint n = In[2 * i];
  uint d = In[2 * i + 1];
  Out[2 * i] = n / d;
  Out[2 * i + 1] = n % d;
  uint o = 8 * i;
  ByConst[o] = n / 7;
  ByConst[o + 1] = n % 7;
  ByConst[o + 2] = n / 0x80000001;
  ByConst[o + 3] = n % 0x80000001;
  ByConst[o + 4] = n / 0xFFFFFFFF;
  ByConst[o + 5] = n % 0x80000000;
  ByConst[o + 6] = n / 1;
  ByConst[o + 7] = n % 1;
}
'''
    pairs = [(0, 1), (0xFFFFFFFF, 1), (0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFE, 0xFFFFFFFF), (0x80000000, 0x80000000),
             (0x7FFFFFFF, 0x80000000), (0xFFFFFFFF, 0x80000001), (3, 7), (0xFFFFFFFF, 2), (0xFFFFFFFF, 3),
             (0x80000000, 3), (0xFFFFFFFF, 0x7FFFFFFF), (0xFFFFFFFE, 0x7FFFFFFF), (0x80000001, 2),
             (0xDEADBEEF, 0x1234), (12345678, 1000)]
    ins, out, by_const = [], [], []
    for n, d in pairs:
        ins += [n, d]
        out += [n // d, n % d]
        by_const += [n // 7, n % 7, n // 0x80000001, n % 0x80000001, n // 0xFFFFFFFF, n % 0x80000000, n, 0]
    emit('udiv_edges', '''Unsigned / and % (signed idiv on the halved dividend plus a correction): dividends and divisors
at and above 2^31, divisor 1 and 0xFFFFFFFF, n < d; also constant divisors (powers of two become shifts and masks).''',
         hlsl, [1, 1, 1],
         [('In', 'UInt32', ins), ('Out', 'UInt32', ('fill', 128, None)), ('ByConst', 'UInt32', ('fill', 512, None)),
          ('ExpectedOut', 'UInt32', out), ('ExpectedByConst', 'UInt32', by_const)],
         [('In', SB, 0, 0), ('Out', RW, 0, 0), ('ByConst', RW, 1, 0)],
         [EXACT('Out', 'ExpectedOut'), EXACT('ByConst', 'ExpectedByConst')])


def early_exits():
    hlsl = '''
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint x = In[i];
  uint acc = 0;
  Out[i] = 7;
  for (uint a = 0; a < 4; a++) {
    uint k = 0;
    while (k < 12) {
      k++;
      if ((x >> (a + k)) & 1) {
        if ((x >> (a + k + 1)) & 1) {
          acc += 1000;
          break;
        }
        acc += 1;
        continue;
      }
      if (k == 9 && (x & 3) == 3) {
        Out[i] = acc;
        return;
      }
      acc += 10;
    }
    acc += k * 100000;
  }
  Out[i] = acc + 1;
}
'''
    ins = [u32(k * 2654435761) for k in range(32)]
    ins[1] = 0xFFFFFFFF
    out = []
    for x in ins:
        acc, ret = 0, None
        for a in range(4):
            k = 0
            while k < 12:
                k += 1
                if (x >> (a + k)) & 1:
                    if (x >> (a + k + 1)) & 1:
                        acc += 1000
                        break
                    acc += 1
                    continue
                if k == 9 and (x & 3) == 3:
                    ret = acc
                    break
                acc += 10
            if ret is not None:
                break
            acc += k * 100000
        out.append(u32(ret if ret is not None else acc + 1))
    emit('early_exits', '''break and continue nested two ifs deep, and return from a while inside a for: the flags that
keep wave-0.1.2's break at the loop's top level.''', hlsl, [1, 1, 1],
         [('In', 'UInt32', ins), ('Out', 'UInt32', ('fill', 128, None)), ('ExpectedOut', 'UInt32', out)],
         [('In', SB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def compound_buffer():
    hlsl = '''
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint v = In[i];
  uint b = 5 * i;
  Out[b] += v;
  Out[b + 1] /= 3;
  Out[b + 1] *= v | 1;
  Out[b + 2] >>= v & 31;
  Out[b + 3] %= v | 1;
  Out[b + 4]++;
  Out[b + 4] ^= v;
}
'''
    ins = [0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 100, 0x80000001, 0xFFFFFFF0, 17, 5, 12345678, 0xFFFF,
           0x10000, 9]
    init = [u32(k * 2654435761 + 3) for k in range(80)]
    out = list(init)
    for k, v in enumerate(ins):
        b = 5 * k
        out[b] = u32(out[b] + v)
        out[b + 1] = u32((out[b + 1] // 3) * (v | 1))
        out[b + 2] = out[b + 2] >> (v & 31)
        out[b + 3] = out[b + 3] % (v | 1)
        out[b + 4] = u32(out[b + 4] + 1) ^ v
    emit('compound_buffer', '''Compound assignment and ++ on buffer elements: each reads the element, computes with uint
semantics (unsigned / and %, logical >>) and writes it back.''', hlsl, [1, 1, 1],
         [('In', 'UInt32', ins), ('Out', 'UInt32', init), ('ExpectedOut', 'UInt32', out)],
         [('In', SB, 0, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def float_rem():
    hlsl = '''
StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float r = A[i] % B[i];
  Out[i * 2] = r;
  float s = A[i];
  s %= 2.0f;
  Out[i * 2 + 1] = s;
}
'''
    A = [f32(v) for v in [7.5, -7.5, -6.0, 6.0, 0.5, -0.0, 100.25, -3.0]]
    B = [f32(v) for v in [2.0, 2.0, 3.0, -4.0, 1.0, 1.0, 10.0, 1.5]]
    out = []
    for a, b in zip(A, B):
        out += [f32(math.fmod(a, b)), f32(math.fmod(a, 2.0))]
    emit('float_rem', '''float `%` and `%=` (fmod: truncating, the sign of the dividend, also for a zero result:
-6 % 3 is -0), compared bit for bit.''',
         hlsl, [1, 1, 1],
         [('A', 'Float32', A), ('B', 'Float32', B), ('Out', 'Float32', ('fill', 64, None)),
          ('ExpectedOut', 'Float32', out)],
         [('A', SB, 0, 0), ('B', SB, 1, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def carried_values():
    n = 40
    decl = '\n'.join('  uint a%d = In[i * %d + %d];' % (k, n, k) for k in range(n))
    body = '\n'.join('    a%d = a%d * 3u + a%d;' % (k, (k + 1) % n, k) for k in range(n))
    out = '\n'.join('  Out[i * %d + %d] = a%d;' % (n, k, k) for k in range(n))
    hlsl = '''
// Forty values carried around a loop: more than wave-0.1.2's 32 registers, so
// the loop keeps some of them in local memory from one iteration to the next.
StructuredBuffer<uint> In : register(t0);
StructuredBuffer<uint> Count : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
%s
  for (uint j = 0; j < Count[i]; j++) {
%s
  }
%s
}
''' % (decl, body, out)
    t = 16
    data = [u32(k * 2654435761 + 12345) for k in range(t * n)]
    count = [k % 5 for k in range(t)]
    expected = []
    for i in range(t):
        a = data[i * n:(i + 1) * n]
        for _ in range(count[i]):
            for k in range(n):
                a[k] = u32(a[(k + 1) % n] * 3 + a[k])
        expected += a
    emit('carried_values', '''Forty uint values carried around a loop (each updated from the next one, in order): on
wave-0.1.2 (32 registers) the loop must keep some in local memory between iterations.''',
         hlsl, [1, 1, 1],
         [('In', 'UInt32', data), ('Count', 'UInt32', count), ('Out', 'UInt32', ('fill', 4 * t * n, None)),
          ('ExpectedOut', 'UInt32', expected)],
         [('In', SB, 0, 0), ('Count', SB, 1, 0), ('Out', RW, 0, 0)],
         [EXACT('Out', 'ExpectedOut')])


def pressure_floats():
    hlsl = '''
// Eight values loaded before a loop and used in it and after it, with cbuffer
// values inside: at low register budgets some stay in memory around the loop.
cbuffer P : register(b0) { uint n; float scale; uint k0; uint k1; };
StructuredBuffer<float> A : register(t0);
RWStructuredBuffer<float> O : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint i = id.x;
  float v0 = A[i * 8 + 0];
  float v1 = A[i * 8 + 1];
  float v2 = A[i * 8 + 2];
  float v3 = A[i * 8 + 3];
  float v4 = A[i * 8 + 4];
  float v5 = A[i * 8 + 5];
  float v6 = A[i * 8 + 6];
  float v7 = A[i * 8 + 7];
  float acc = 0;
  for (uint j = 0; j < n; j++) {
    acc += v0 * v1 + v2 * scale;
    acc *= v3 + v4;
    acc -= v5 * v6 - v7 + (float)(k0 + k1 * j);
  }
  O[i] = acc + v0 + v7;
}
'''
    t = 64
    A = [f32(((k * 37) % 17 - 8) / 8.0) for k in range(t * 8)]
    n, scale, k0, k1 = 3, 0.5, 7, 2
    out = []
    for i in range(t):
        v = A[i * 8:i * 8 + 8]
        acc = 0.0
        for j in range(n):
            acc = f32(acc + f32(f32(v[0] * v[1]) + f32(v[2] * scale)))
            acc = f32(acc * f32(v[3] + v[4]))
            acc = f32(acc - f32(f32(f32(v[5] * v[6]) - v[7]) + f32(float(u32(k0 + k1 * j)))))
        out.append(f32(f32(acc + v[0]) + v[7]))
    emit('pressure_floats', '''Eight values loaded before a loop, used in it and after it, plus cbuffer values read
in the loop: the register pressure peaks inside the loop (spilling at low budgets).''',
         hlsl, [2, 1, 1],
         [('P', 'Hex32', [n, hexf(scale), k0, k1]), ('A', 'Float32', A), ('O', 'Float32', ('fill', 4 * t, None)),
          ('ExpectedO', 'Float32', out)],
         [('P', CB, 0, 0), ('A', SB, 0, 0), ('O', RW, 0, 0)],
         [EXACT('O', 'ExpectedO')])


def pressure_flags():
    hlsl = '''
// Eight flags (short-circuit merges of compares on loaded values) computed
// before a loop that carries eight values, and read only after it: at low
// register budgets the flags leave the registers first (bool-to-mask keeps
// them as wave masks in one lane bank register).
cbuffer P : register(b0) { uint n; int lo; int hi; uint salt; };
StructuredBuffer<int> A : register(t0);
RWStructuredBuffer<uint> O : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint i = id.x;
  int x = A[i * 4 + 0];
  int y = A[i * 4 + 1];
  int z = A[i * 4 + 2];
  int w = A[i * 4 + 3];
  bool f0 = x < lo || x > hi;
  bool f1 = y < lo || y > hi;
  bool f2 = z < lo && w > hi;
  bool f3 = x == y || z == w;
  bool f4 = (x & 1) != 0 && y > 0;
  bool f5 = (y & 2) != 0 || z < 0;
  bool f6 = x + y > z && w != 0;
  bool f7 = w < 0 || (i & 3u) == 0u;
  uint a0 = (uint)x, a1 = (uint)y, a2 = (uint)z, a3 = (uint)w;
  uint a4 = a0 ^ salt, a5 = a1 + salt, a6 = a2 * 3u, a7 = a3 | 5u;
  for (uint j = 0; j < n; j++) {
    a0 = a0 * 3u + a1;
    a1 = a1 ^ (a2 + j);
    a2 = a2 + a3 * 5u;
    a3 = a3 ^ (a4 >> 1);
    a4 = a4 + a5;
    a5 = a5 * 7u + a6;
    a6 = a6 ^ a7;
    a7 = a7 + a0;
  }
  uint bits = (f0 ? 1u : 0u) | (f1 ? 2u : 0u) | (f2 ? 4u : 0u) | (f3 ? 8u : 0u)
            | (f4 ? 16u : 0u) | (f5 ? 32u : 0u) | (f6 ? 64u : 0u) | (f7 ? 128u : 0u);
  uint s = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  O[i * 2] = bits;
  O[i * 2 + 1] = (f0 ? s : ~s) + (f3 ? a1 : a2) + (f6 ? 1u : 0u);
}
'''
    t = 64
    A = [((k * 7919 + 13) % 401) - 200 for k in range(t * 4)]
    for k in range(0, t * 4, 9):
        A[k] = A[k + 1] if k + 1 < t * 4 else A[k]
    n, lo, hi, salt = 5, -120, 150, 0x9e3779b9
    out = []
    for i in range(t):
        x, y, z, w = A[i * 4:i * 4 + 4]
        f = [x < lo or x > hi, y < lo or y > hi, z < lo and w > hi, x == y or z == w,
             (x & 1) != 0 and y > 0, (y & 2) != 0 or z < 0, x + y > z and w != 0, w < 0 or (i & 3) == 0]
        a = [u32(x), u32(y), u32(z), u32(w)]
        a += [u32(a[0] ^ salt), u32(a[1] + salt), u32(a[2] * 3), u32(a[3] | 5)]
        for j in range(n):
            a[0] = u32(a[0] * 3 + a[1])
            a[1] = u32(a[1] ^ u32(a[2] + j))
            a[2] = u32(a[2] + u32(a[3] * 5))
            a[3] = u32(a[3] ^ (a[4] >> 1))
            a[4] = u32(a[4] + a[5])
            a[5] = u32(a[5] * 7 + a[6])
            a[6] = u32(a[6] ^ a[7])
            a[7] = u32(a[7] + a[0])
        bits = sum(1 << k for k in range(8) if f[k])
        s_ = 0
        for v in a:
            s_ ^= v
        out.append(bits)
        out.append(u32((s_ if f[0] else u32(~s_)) + (a[1] if f[3] else a[2]) + (1 if f[6] else 0)))
    emit('pressure_flags', '''Eight boolean flags (short-circuit merges) computed before a loop that carries eight values
and read only after it: at low register budgets the flags are spilled first (as wave masks in a
lane bank, or in local memory with `--disable bool-masks`); every budget gives the same buffers.''',
         hlsl, [2, 1, 1],
         [('P', 'Hex32', [n, u32(lo), u32(hi), salt]), ('A', 'Int32', A), ('O', 'UInt32', ('fill', 4 * 2 * t, None)),
          ('ExpectedO', 'UInt32', out)],
         [('P', CB, 0, 0), ('A', SB, 0, 0), ('O', RW, 0, 0)],
         [EXACT('O', 'ExpectedO')])


def scratch_spill():
    nv, t, tile = 36, 32, 4064
    loads = '\n'.join('  float v%d = A[base + %d];' % (k, k) for k in range(nv))
    fwd = '\n'.join('  s = s * 0.5 + v%d;' % k for k in range(nv))
    bwd = '\n'.join('  r = r * 0.5 + v%d * v%d;' % (k, nv - 1 - k) for k in reversed(range(nv)))
    hlsl = '''
// %(nv)d values live at once (used by a forward chain, a loop and a backward
// chain) next to a groupshared array that leaves room for one spill slot:
// on --isa wave-0.1.2 (32 registers) most slots go to the scratch buffer in
// device memory, one block per workgroup of the 2x2 dispatch.
StructuredBuffer<float> A : register(t0);
RWStructuredBuffer<float> O : register(u0);
groupshared float tile[%(tile)d];

[numthreads(%(t)d, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) {
  uint g = gid.x + 2 * gid.y;
  for (uint k = gi; k < %(tile)d; k += %(t)d)
    tile[k] = (float)(k %% 13);
  GroupMemoryBarrierWithGroupSync();
  uint base = (g * %(t)d + gi) * %(nv)d;
%(loads)s
  float s = 0;
%(fwd)s
  float acc = s;
  [loop]
  for (uint j = 0; j < 4; j++)
    acc = acc * 0.5 + tile[(gi * 7 + j * 31) %% %(tile)d] * v3;
  float r = acc;
%(bwd)s
  O[g * %(t)d + gi] = r;
}
''' % dict(nv=nv, t=t, tile=tile, loads=loads, fwd=fwd, bwd=bwd)
    groups = 4
    A = [f32(((k * 37) % 17 - 8) / 8.0) for k in range(groups * t * nv)]
    tiles = [f32(float(k % 13)) for k in range(tile)]
    out = []
    for g in range(groups):
        for gi in range(t):
            v = A[(g * t + gi) * nv:(g * t + gi + 1) * nv]
            s = 0.0
            for x in v:
                s = f32(f32(s * 0.5) + x)
            acc = s
            for j in range(4):
                acc = f32(f32(acc * 0.5) + f32(tiles[(gi * 7 + j * 31) % tile] * v[3]))
            r = acc
            for k in reversed(range(nv)):
                r = f32(f32(r * 0.5) + f32(v[k] * v[nv - 1 - k]))
            out.append(r)
    emit('scratch_spill', '''%d values live at once next to a groupshared array that leaves room for one spill
slot per thread: on --isa wave-0.1.2 the other spill slots go to the scratch buffer in device
memory (one block per workgroup; the dispatch is 2x2 groups). Products of multiples of 1/8 are
exact, so a fused multiply-add rounds the same as separate operations.''' % nv,
         hlsl, [2, 2, 1],
         [('A', 'Float32', A), ('O', 'Float32', ('fill', 4 * groups * t, None)), ('ExpectedO', 'Float32', out)],
         [('A', SB, 0, 0), ('O', RW, 0, 0)],
         [EXACT('O', 'ExpectedO')])


if __name__ == '__main__':
    for fn in [vector_add, saxpy, clamp_if_else, loop_sum_for, while_break, int_math, float_math, casts,
               bool_logic, dispatch_2d, short_circuit, ternary, nested_loops, divergent_loop, big_group, do_while,
               loop_top_block, ternary_vector_guard, udiv_edges, early_exits, compound_buffer, float_rem,
               carried_values, pressure_floats, pressure_flags, scratch_spill]:
        fn()
