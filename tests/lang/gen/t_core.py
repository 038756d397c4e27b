"""Items 1-4 of the language issue: functions, vectors and matrices, structs, arrays."""
from lib import (T, SB, RWSB, CB, f32, i32, u32, idiv, imod, ftoi, f32_bits, fadd, fsub, fmul, fdiv,
                 mat_mul as matmul, transpose, cb_pack, words, mat, vec, scalar, Rng)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# ---------------------------------------------------------------------------
# 1. Functions

@test
def fn_params():
    hlsl = r'''
// in / out / inout parameters: copy-in, copy-out, and an in parameter the callee modifies.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Acc : register(u0);
RWStructuredBuffer<int> Out : register(u1);

void split(int x, out int hi, out int lo) {
  hi = x >> 4;
  lo = x & 15;
}

void accumulate(inout int acc, int v) {
  acc = acc * 3 + v;
}

int consume(in int x) {
  x *= 2;           // changes the callee's copy only
  return x + 1;
}

void swap2(inout float2 a, inout float2 b) {
  float2 t = a;
  a = b;
  b = t;
}

void twice(out int r, int v) {
  r = v;            // an out parameter written, read back and written again
  r = r * r - v;
}

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int x = In[i];
  int hi, lo;
  split(x, hi, lo);
  int acc = 1;
  accumulate(acc, hi);
  accumulate(acc, lo);
  int c = consume(x);
  float2 a = float2(x, hi);
  float2 b = float2(lo, c);
  swap2(a, b);
  int t;
  twice(t, lo - 3);
  accumulate(Acc[i], x);          // a buffer element as an inout argument
  int3 w = int3(1, 2, 3);
  accumulate(w.y, x);             // a vector component as an inout argument
  split(x + 1000, w.z, w.x);      // components as out arguments
  uint o = i * 13;
  Out[o + 0] = hi;
  Out[o + 1] = lo;
  Out[o + 2] = acc;
  Out[o + 3] = c;
  Out[o + 4] = x;
  Out[o + 5] = (int)a.x;
  Out[o + 6] = (int)a.y;
  Out[o + 7] = (int)b.x;
  Out[o + 8] = (int)b.y;
  Out[o + 9] = t;
  Out[o + 10] = w.x;
  Out[o + 11] = w.y;
  Out[o + 12] = w.z;
}
'''
    xs = [-37, 0, 5, 255, 1000, -1, 17, 64, -256, 99, 7, 31, 12345, -9999, 2, 3]
    acc0 = [k * 7 - 20 for k in range(16)]
    acc_out, out = [], []
    for i, x in enumerate(xs):
        hi, lo = x >> 4, x & 15
        acc = (1 * 3 + hi) * 3 + lo
        c = x * 2 + 1
        a, b = (lo, c), (x, hi)
        t = (lo - 3) * (lo - 3) - (lo - 3)
        acc_out.append(acc0[i] * 3 + x)
        w = [1, 2 * 3 + x, 3]
        w[2], w[0] = (x + 1000) >> 4, (x + 1000) & 15
        out += [hi, lo, acc, c, x, a[0], a[1], b[0], b[1], t, w[0], w[1], w[2]]
    t = T('fn_params', '''Functions: out and inout parameters (scalars, float2, a buffer element, vector components),
an in parameter modified by the callee (the caller's value is unchanged), an out parameter read
back after being written.''', hlsl, groups=[2])
    t.buf('In', 'Int32', xs, SB, 0)
    t.out('Acc', 'Int32', acc_out, RWSB, 0, init=acc0)
    t.out('Out', 'Int32', out, RWSB, 1)
    t.write()


@test
def fn_overloads():
    hlsl = r'''
// HLSL overload resolution: exact matches by scalar kind, vector size and arity; suffixed
// literals; the result type of mixed expressions. (An unsuffixed literal such as kind(7) would be
// ambiguous in DXC between the int and uint overloads, so there is none.)
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int kind(int x)         { return 1000 + x; }
int kind(uint x)        { return 2000 + (int)x; }
int kind(float x)       { return 3000 + (int)(x * 2.0f); }
int kind(float2 v)      { return 4000 + (int)(v.x * 10.0f + v.y); }
int kind(float3 v)      { return 5000 + (int)(v.x + v.y + v.z); }
int kind(int2 v)        { return 6000 + v.x - v.y; }
int kind(bool b)        { return b ? 7001 : 7000; }
int kind(int a, int b)  { return 8000 + a * b; }

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int iv = In[i];
  uint uv = i + 3;
  float fv = (float)iv * 0.5f;
  float3 f3 = float3(iv, 1, 2);
  int2 i2 = int2(iv, 4);
  uint o = i * 16;
  Out[o + 0] = kind(iv);
  Out[o + 1] = kind(uv);
  Out[o + 2] = kind(fv);
  Out[o + 3] = kind(float2(fv, 3));
  Out[o + 4] = kind(f3);
  Out[o + 5] = kind(i2);
  Out[o + 6] = kind(iv > 3);
  Out[o + 7] = kind(2, iv);
  Out[o + 8] = kind(iv.xx);       // a swizzle of a scalar int is an int2
  Out[o + 9] = kind(7u);          // uint literal
  Out[o + 10] = kind(2.5f);       // float literal
  Out[o + 11] = kind(f3.x);       // a component of a float3 is a float
  Out[o + 12] = kind(iv + uv);    // int + uint is uint
  Out[o + 13] = kind(iv * 1.5f);  // int * float is float
  Out[o + 14] = kind(f3.zy);      // a swizzle of a float3 is a float2
  Out[o + 15] = kind(i2.yx);      // and of an int2 an int2
}
'''
    xs = [0, 1, 2, 3, 4, 5, -6, 10]
    out = []
    for i, iv in enumerate(xs):
        uv = i + 3
        fv = f32(iv * 0.5)
        f3 = [float(iv), 1.0, 2.0]
        out += [1000 + iv, 2000 + uv, 3000 + ftoi(fv * 2), 4000 + ftoi(f32(fv * 10) + 3), 5000 + ftoi(f3[0] + 3),
                6000 + iv - 4, 7001 if iv > 3 else 7000, 8000 + 2 * iv, 6000, 2007, 3005, 3000 + 2 * iv,
                2000 + i32(u32(iv + uv)), 3000 + ftoi(f32(iv * 1.5) * 2), 4000 + ftoi(2.0 * 10 + 1),
                6000 + 4 - iv]
    t = T('fn_overloads', '''Functions: overload resolution by scalar type (int, uint, float, bool), vector size,
scalar vs vector (iv.xx is an int2), arity, suffixed literals (7u, 2.5f) and the type of mixed
expressions (int + uint is uint, int * float is float, swizzles).''', hlsl)
    t.buf('In', 'Int32', xs, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def fn_early_return():
    hlsl = r'''
// Early returns at depth (inside nested loops and ifs), in void functions, and in value
// functions with several return statements.
StructuredBuffer<int> Data : register(t0);
RWStructuredBuffer<int> Out : register(u0);

// Index of the first of Data[start .. start+len) greater than limit, or -1.
int findFirst(uint start, uint len, int limit) {
  for (uint k = 0; k < len; ++k) {
    if (Data[start + k] > limit)
      return (int)k;
  }
  return -1;
}

// Returns from three loops deep, with a different value on each arm.
int searchGrid(int target, int n) {
  for (int r = 0; r < n; r++) {
    for (int c = 0; c < n; c++) {
      for (int z = 0; z < 2; z++) {
        if (r * n * 2 + c * 2 + z == target) {
          if (c % 2 == 0)
            return r * 100 + c * 10 + z;
          else
            return -(r * 100 + c * 10 + z);
        }
      }
    }
  }
  return 9999;
}

void clampAdd(inout int v, int d, int hi) {
  v += d;
  if (v <= hi)
    return;
  v = hi;
}

int classify(int x) {
  if (x < 0)
    return -1;
  else if (x == 0)
    return 0;
  if (x > 100) {
    return 2;
  }
  return 1;
}

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int v = Data[i];
  int r0 = findFirst(i, 6, 40);
  int r1 = searchGrid(v & 63, 5);
  int r2 = v;
  clampAdd(r2, 25, 60);
  int r3 = classify(v - 50);
  Out[i * 4 + 0] = r0;
  Out[i * 4 + 1] = r1;
  Out[i * 4 + 2] = r2;
  Out[i * 4 + 3] = r3;
}
'''
    data = [3, 45, 12, 7, 99, 0, 41, 40, 38, 150, 2, 5, 60, 61, 50, 1, 9, 8, 7, 6, 5, 4]
    out = []

    def search(target, n):
        for r in range(n):
            for c in range(n):
                for z in range(2):
                    if r * n * 2 + c * 2 + z == target:
                        v = r * 100 + c * 10 + z
                        return v if c % 2 == 0 else -v
        return 9999

    for i in range(16):
        v = data[i]
        r0 = next((k for k in range(6) if data[i + k] > 40), -1)
        r1 = search(v & 63, 5)
        r2 = min(v + 25, 60)
        w = v - 50
        r3 = -1 if w < 0 else 0 if w == 0 else 2 if w > 100 else 1
        out += [r0, r1, r2, r3]
    t = T('fn_early_return', '''Functions: return from inside loops nested three deep, from a loop over a buffer, from a void
function with an inout parameter, and value functions with several returns.''', hlsl)
    t.buf('Data', 'Int32', data, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def fn_call_chain():
    hlsl = r'''
// Functions calling functions (four levels), helpers called from loops and from several
// places with different arguments, and a function used in a loop condition.
StructuredBuffer<uint2> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

uint gcd(uint a, uint b) {
  while (b != 0) {
    uint t = a % b;
    a = b;
    b = t;
  }
  return a;
}

uint lcm(uint a, uint b) { return a / gcd(a, b) * b; }

uint lcmUpTo(uint n) {
  uint l = 1;
  for (uint k = 2; k <= n; ++k)
    l = lcm(l, k);
  return l;
}

uint digitSum(uint x) {
  uint s = 0;
  for (; x != 0; x /= 10)
    s += x % 10;
  return s;
}

bool notDone(uint x, uint steps) { return x != 1 && steps < 50; }

uint collatz(uint x) {
  uint steps = 0;
  while (notDone(x, steps)) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

uint mix(uint a, uint b) { return digitSum(lcmUpTo(a % 12 + 1)) * 1000 + collatz(gcd(a, b) + b % 7 + 1); }

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint2 p = In[i];
  Out[i * 4 + 0] = gcd(p.x, p.y);
  Out[i * 4 + 1] = lcm(p.x % 100 + 1, p.y % 50 + 1);
  Out[i * 4 + 2] = mix(p.x, p.y);
  Out[i * 4 + 3] = mix(p.y, p.x) + collatz(p.x % 30 + 1);
}
'''
    import math as m
    pairs = [(12, 18), (35, 49), (17, 5), (1000, 250), (81, 27), (64, 48), (97, 89), (360, 84),
             (7, 7), (1, 1), (144, 60), (121, 11), (625, 125), (99, 33), (1024, 768), (300, 45)]

    def lcm(a, b):
        return u32(a // m.gcd(a, b) * b)

    def lcm_up(n):
        l = 1
        for k in range(2, n + 1):
            l = lcm(l, k)
        return l

    def digsum(x):
        return sum(int(c) for c in str(x))

    def collatz(x):
        s = 0
        while x != 1 and s < 50:
            x = 3 * x + 1 if x & 1 else x // 2
            s += 1
        return s

    def mix(a, b):
        return digsum(lcm_up(a % 12 + 1)) * 1000 + collatz(m.gcd(a, b) + b % 7 + 1)

    out = []
    for a, b in pairs:
        out += [m.gcd(a, b), lcm(a % 100 + 1, b % 50 + 1), mix(a, b), mix(b, a) + collatz(a % 30 + 1)]
    flat = [v for p in pairs for v in p]
    t = T('fn_call_chain', '''Functions calling functions four levels deep (mix -> lcmUpTo -> lcm -> gcd), helpers with
loops called from loops, and a function call as a loop condition.''', hlsl, groups=[2])
    t.buf('In', 'UInt32', flat, SB, 0)
    t.out('Out', 'UInt32', out, RWSB, 0)
    t.write()


# ---------------------------------------------------------------------------
# 2. Vectors

@test
def vec_construct_swizzle():
    hlsl = r'''
// Vector constructors from mixed pieces, splats, swizzles with repeats and on scalars,
// write masks including a permuting one, swizzles of constructors.
StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 a = In[i];
  float2 b = a.zw;
  float s = a.x;
  float4 c = float4(a.xy, b.y, 1);
  float4 d = float4(b, b);
  float3 e = s;                     // scalar to vector: a splat
  float4 f = (float4)2.5;
  float4 g = a.wzyx;
  float4 h = a.xxyy + a.rrgg * 2;   // repeats; xyzw and rgba name the same components
  float3 k = s.xxx;                 // a swizzle of a scalar
  float4 m = 0;
  m.xz = b;
  m.yw = a.yx * 2;
  m.w += 10;
  float4 n = a;
  n.zyx = n.xyz;                    // the right side is read before any component is written
  float2 p = float4(1, 2, 3, 4).yw;
  vector<float, 3> q = vector<float, 3>(p, a.w);
  uint o = i * 9;
  Out[o + 0] = c;
  Out[o + 1] = d;
  Out[o + 2] = float4(e, f.x);
  Out[o + 3] = g;
  Out[o + 4] = h;
  Out[o + 5] = float4(k, -1);
  Out[o + 6] = m;
  Out[o + 7] = n + float4(p, 0, 0);
  Out[o + 8] = float4(q.zyx, q.x + q.y);
}
'''
    r = Rng(21)
    ins = [[f32(r.int(-64, 64) / 8) for _ in range(4)] for _ in range(8)]
    out = []
    for a in ins:
        b = a[2:4]
        s = a[0]
        c = [a[0], a[1], b[1], 1.0]
        d = b + b
        e = [s] * 3
        g = a[::-1]
        h = [fadd(a[0], fmul(a[0], 2)), fadd(a[0], fmul(a[0], 2)), fadd(a[1], fmul(a[1], 2)), fadd(a[1], fmul(a[1], 2))]
        k = [s] * 3
        m = [b[0], fmul(a[1], 2), b[1], fadd(fmul(a[0], 2), 10)]
        n = [a[2], a[1], a[0], a[3]]
        p = [2.0, 4.0]
        q = [2.0, 4.0, a[3]]
        out += c + d + e + [2.5] + g + h + k + [-1.0] + m + [fadd(n[0], p[0]), fadd(n[1], p[1]), n[2], n[3]] + \
            [q[2], q[1], q[0], 6.0]
    t = T('vec_construct_swizzle', '''Vectors: constructors float4(a.xy, b.y, 1) and float4(b, b), splats (float3 e = s and a cast),
swizzles with repeats (.xxyy, .rrgg), of a scalar (s.xxx) and of a constructor, write masks
(.xz, .yw, a permuting .zyx = .xyz), vector<float, 3>.''', hlsl)
    t.buf('In', 'Float32', [v for a in ins for v in a], SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def vec_int_ops():
    hlsl = r'''
// int / uint / bool vectors: element-wise arithmetic (signed / and % truncate), shifts,
// bitwise operators, comparisons giving bool vectors, any / all, casts of bool vectors.
StructuredBuffer<int4> A : register(t0);
StructuredBuffer<int4> B : register(t1);
RWStructuredBuffer<int4> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int4 a = A[i];
  int4 b = B[i];
  vector<int, 4> sum = a + b;
  int4 q = a / b;
  int4 r = a % b;
  uint4 ua = (uint4)a;
  uint4 ushr = ua >> uint4(1, 2, 3, 31);
  int4 sshr = a >> 2;
  int4 shl = a << int4(0, 1, 4, 30);
  bool4 lt = a < b;
  bool4 eq = a == b;
  bool4 nlt = !lt;
  int4 lti = (int4)lt;
  uint o = i * 10;
  Out[o + 0] = sum;
  Out[o + 1] = q;
  Out[o + 2] = r;
  Out[o + 3] = (int4)ushr;
  Out[o + 4] = sshr;
  Out[o + 5] = shl;
  Out[o + 6] = lti + (int4)nlt * 10 + (int4)eq * 100;
  Out[o + 7] = int4(any(lt), all(lt), any(eq), all(a != b));
  Out[o + 8] = (a & b) ^ ~(a | 0x0F0F);
  Out[o + 9] = -a * int4(b.ww, 3, -3) - 1;
}
'''
    r = Rng(5)
    A, B = [], []
    for i in range(8):
        a = [r.int(-3000, 3000) for _ in range(4)]
        b = [r.pick([-7, -3, -2, 2, 3, 5, 9, 100]) for _ in range(4)]
        if i == 2:
            b[1] = a[1]
        if i == 5:
            b = list(a)
        if i == 6:
            a = [-100, -200, -300, -400]
            b = [1, 2, 3, 4]
        assert 0 not in b
        A.append(a)
        B.append(b)
    out = []
    for a, b in zip(A, B):
        s = [i32(x + y) for x, y in zip(a, b)]
        q = [idiv(x, y) for x, y in zip(a, b)]
        rm = [imod(x, y) for x, y in zip(a, b)]
        ushr = [i32(u32(x) >> k) for x, k in zip(a, [1, 2, 3, 31])]
        sshr = [x >> 2 for x in a]
        shl = [i32(x << k) for x, k in zip(a, [0, 1, 4, 30])]
        lt = [x < y for x, y in zip(a, b)]
        eq = [x == y for x, y in zip(a, b)]
        flags = [int(l) + int(not l) * 10 + int(e) * 100 for l, e in zip(lt, eq)]
        aa = [int(any(lt)), int(all(lt)), int(any(eq)), int(all(x != y for x, y in zip(a, b)))]
        bits = [i32((x & y) ^ ~(x | 0x0F0F)) for x, y in zip(a, b)]
        mul = [i32(-x * m - 1) for x, m in zip(a, [b[3], b[3], 3, -3])]
        out += s + q + rm + ushr + sshr + shl + flags + aa + bits + mul
    t = T('vec_int_ops', '''Vectors: int4 / uint4 / bool4 element-wise + / % with negative operands, logical and
arithmetic shifts, & | ^ ~, comparisons to bool4, !, any, all, (int4) of a bool4.''', hlsl)
    t.buf('A', 'Int32', [v for a in A for v in a], SB, 0)
    t.buf('B', 'Int32', [v for b in B for v in b], SB, 1)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def vec_float_ops():
    hlsl = r'''
// float vectors: element-wise arithmetic with scalars on either side, comparisons (NaN is
// unordered), any / all on float vectors (non-zero is true), compound assignment, unary minus.
StructuredBuffer<float4> A : register(t0);
StructuredBuffer<float4> B : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<uint> Flags : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 a = A[i];
  float4 b = B[i];
  float4 r0 = a * b + 1;
  float4 r1 = 2 * a - b / 4;
  float4 r2 = -a;
  r2 *= b;
  r2 += 0.5f;
  float3 r3 = a.xyz / b.zyx;
  bool4 le = a <= b;
  bool4 ne = a != b;
  uint o = i * 4;
  Out[o + 0] = r0;
  Out[o + 1] = r1;
  Out[o + 2] = r2;
  Out[o + 3] = float4(r3, dot(a, 1));
  uint f = 0;
  for (uint k = 0; k < 4; ++k)
    f |= (le[k] ? 1u : 0u) << k | (ne[k] ? 1u : 0u) << (k + 4);
  f |= (any(a) ? 1u : 0u) << 8;
  f |= (all(a) ? 1u : 0u) << 9;
  f |= (any(a * 0) ? 1u : 0u) << 10;
  Flags[i] = f;
}
'''
    nan = float('nan')
    A = [[1, -2, 3.5, 0.25], [0, 0, 0, 0], [nan, 1, 2, 3], [-0.0, 4, -4, 8], [10, 20, 30, 40],
         [0.5, 0.5, 0.5, 0.5], [-8, 16, -32, 1], [3, 0, 3, 0]]
    B = [[2, -2, 1, 4], [1, 2, 4, 8], [1, nan, 2, 4], [0.0, 4, 4, -8], [-1, 0.5, 8, 2],
         [0.5, 0.25, 1, 2], [2, 2, 2, 2], [3, 1, -1, 8]]
    A = [[f32(x) for x in a] for a in A]
    B = [[f32(x) for x in b] for b in B]
    out, flags = [], []
    for a, b in zip(A, B):
        r0 = [fadd(fmul(x, y), 1) for x, y in zip(a, b)]
        r1 = [fsub(fmul(2, x), fdiv(y, 4)) for x, y in zip(a, b)]
        r2 = [fadd(fmul(-x, y), 0.5) for x, y in zip(a, b)]
        r3 = [fdiv(a[0], b[2]), fdiv(a[1], b[1]), fdiv(a[2], b[0])]
        d = fadd(fadd(fadd(a[0], a[1]), a[2]), a[3])
        out += r0 + r1 + r2 + r3 + [d]
        f = 0
        for k in range(4):
            f |= int(a[k] <= b[k]) << k
            f |= int(not (a[k] == b[k])) << (k + 4)
        f |= int(any(x != 0 for x in a)) << 8
        f |= int(all(x != 0 for x in a)) << 9
        f |= int(any(fmul(x, 0) != 0 for x in a)) << 10  # NaN * 0 is NaN, and NaN != 0
        flags.append(f)
    t = T('vec_float_ops', '''Vectors: float4 arithmetic mixed with scalars (2 * a, b / 4, a * b + 1), unary minus and
compound *= +=, float3 division by a swizzle, <= and != on float4 with NaN and -0, any / all
on float vectors (NaN counts as true), dot with a splat. Dyadic inputs: every result is exact
(Out is compared with ULPT 0 so that a NaN of any payload matches).''', hlsl)
    t.buf('A', 'Float32', [v for a in A for v in a], SB, 0)
    t.buf('B', 'Float32', [v for b in B for v in b], SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0, ulp=0)   # NaN results: any NaN bits match
    t.out('Flags', 'Hex32', flags, RWSB, 1)
    t.write()


@test
def vec_dynamic_index():
    hlsl = r'''
// v[i] with an index known only at run time: reads, writes, compound writes, in loops.
StructuredBuffer<float4> In : register(t0);
StructuredBuffer<uint> Idx : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<int3> OutI : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 v = In[i];
  uint k = Idx[i];
  float x = v[k];
  v[k] = -x;
  v[(k + 1) & 3] += 100;
  float acc = 0;
  for (int c = 0; c < 4; c++)
    acc += v[c] * (c + 1);
  int3 w = int3(1, 2, 3);
  for (uint j = 0; j < 3; ++j)
    w[j] *= (int)(j + k);
  w[k % 3] = w[(k + 2) % 3] - 7;
  Out[i * 2] = v;
  Out[i * 2 + 1] = float4(x, acc, v[3 - k], 0);
  OutI[i] = w;
}
'''
    r = Rng(8)
    ins = [[f32(r.int(-40, 40) / 4) for _ in range(4)] for _ in range(16)]
    idx = [i % 4 if i < 8 else r.int(0, 3) for i in range(16)]
    out, outi = [], []
    for v, k in zip(ins, idx):
        v = list(v)
        x = v[k]
        v[k] = -x
        v[(k + 1) & 3] = fadd(v[(k + 1) & 3], 100)
        acc = 0.0
        for c in range(4):
            acc = fadd(acc, fmul(v[c], c + 1))
        w = [1, 2, 3]
        for j in range(3):
            w[j] *= j + k
        w[k % 3] = w[(k + 2) % 3] - 7
        out += v + [x, acc, v[3 - k], 0.0]
        outi += w
    t = T('vec_dynamic_index', '''Vectors: dynamic component index v[k] for reads, writes and compound writes, v[c] in a loop,
int3 components by a loop counter and by k % 3.''', hlsl)
    t.buf('In', 'Float32', [x for v in ins for x in v], SB, 0)
    t.buf('Idx', 'UInt32', idx, SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.out('OutI', 'Int32', outi, RWSB, 1)
    t.write()


# ---------------------------------------------------------------------------
# 2. Matrices

@test
def mat_access():
    hlsl = r'''
// Matrix element access: _m00 (zero-based), _11 (one-based), m[r][c], m[r] (a row),
// multi-element swizzles (_m01_m10), constructors from rows and from scalars, writes to
// elements, rows and swizzles, dynamic [r][c], matrix<T, R, C>, element-wise operators.
StructuredBuffer<float4> In : register(t0);
StructuredBuffer<uint2> Pick : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float3x4 m = float3x4(In[i * 3], In[i * 3 + 1], In[i * 3 + 2]);   // rows
  matrix<float, 2, 2> s = matrix<float, 2, 2>(1, 2, 3, 4);          // row by row
  uint2 rc = Pick[i];
  uint o = i * 32;
  Out[o + 0] = m._m00;
  Out[o + 1] = m._m12;
  Out[o + 2] = m._m23;
  Out[o + 3] = m._11;          // row 0, column 0
  Out[o + 4] = m._34;          // row 2, column 3
  Out[o + 5] = m[1][2];
  float4 row2 = m[2];
  Out[o + 6] = row2.y;
  Out[o + 7] = m[rc.x][rc.y];
  float2 sw = m._m01_m10;
  Out[o + 8] = sw.x - sw.y;
  float3 diag = m._11_22_33;
  Out[o + 9] = diag.x + diag.y * 10 + diag.z * 100;
  Out[o + 10] = s._m10 + s[0][1] * 10;
  m._m01 = 7;
  m[2] = float4(-1, -2, -3, -4);
  m[1][3] = 50;
  m[rc.x][rc.y] += 1000;
  m._m10_m20 = float2(0.5, 0.25);
  float3x4 e = m * 2 + m;      // element-wise
  float3x4 h = m * e;          // element-wise product, not mul()
  [unroll]
  for (uint r = 0; r < 3; ++r) {
    [unroll]
    for (uint c = 0; c < 4; ++c) {
      Out[o + 11 + r * 4 + c] = m[r][c];
    }
  }
  Out[o + 23] = e._m23;
  Out[o + 24] = h._m01;
  Out[o + 25] = h._m13;
  float2x2 z = (float2x2)5;    // a scalar splat
  z._m11 = -z._m00;
  Out[o + 26] = z[0][0] + z[0][1] + z[1][0] * 2 + z[1][1] * 3;
  Out[o + 27] = (-m)[0][1];
  Out[o + 28] = m[rc.x].w;
  Out[o + 29] = s[1].x;
  Out[o + 30] = s._22;
  Out[o + 31] = (float)i;
}
'''
    r = Rng(3)
    ins, picks = [], [(0, 1), (2, 3), (1, 0), (1, 3)]
    out = []
    for i in range(4):
        M = [[f32(r.int(-99, 99) / 4) for _ in range(4)] for _ in range(3)]
        ins += M
        s = [[1.0, 2.0], [3.0, 4.0]]
        rr, cc = picks[i]
        o = [M[0][0], M[1][2], M[2][3], M[0][0], M[2][3], M[1][2], M[2][1], M[rr][cc],
             fsub(M[0][1], M[1][0]), fadd(fadd(M[0][0], fmul(M[1][1], 10)), fmul(M[2][2], 100)),
             fadd(3.0, fmul(2.0, 10))]
        m = [list(row) for row in M]
        m[0][1] = 7.0
        m[2] = [-1.0, -2.0, -3.0, -4.0]
        m[1][3] = 50.0
        m[rr][cc] = fadd(m[rr][cc], 1000)
        m[1][0], m[2][0] = 0.5, 0.25
        e = [[fadd(fmul(x, 2), x) for x in row] for row in m]
        h = [[fmul(x, y) for x, y in zip(r1, r2)] for r1, r2 in zip(m, e)]
        for rw in range(3):
            o += m[rw]
        o += [e[2][3], h[0][1], h[1][3]]
        o += [fadd(fadd(fadd(5.0, 5.0), 10.0), -15.0)]
        o += [-m[0][1], m[rr][3], 3.0, 4.0, float(i)]
        out += o
    t = T('mat_access', '''Matrices: _m00/_m12/_m23 (zero-based) and _11/_34 (one-based) elements, m[r][c] constant and
dynamic, m[r] as a row vector, swizzles _m01_m10 and _11_22_33, constructors from rows, from
scalars (row by row) and a scalar splat, writes to an element, a row, [r][c] (dynamic, +=) and
a swizzle, element-wise matrix + and * (not mul), unary minus, matrix<float, 2, 2>.''', hlsl)
    t.buf('In', 'Float32', [x for row in ins for x in row], SB, 0)
    t.buf('Pick', 'UInt32', [v for p in picks for v in p], SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def mat_mul():
    hlsl = r'''
// mul() in all its forms: vector * matrix (row vector), matrix * vector (column vector),
// matrix * matrix with non-square shapes, scalar with matrix and vector, vector * vector (dot),
// and transpose(). Integer-valued inputs: every product and sum is exact.
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint b = i * 32;
  float2x3 A = float2x3(In[b + 0], In[b + 1], In[b + 2],
                        In[b + 3], In[b + 4], In[b + 5]);
  float3x4 B;
  [unroll]
  for (uint r = 0; r < 3; ++r)
    B[r] = float4(In[b + 6 + r * 4], In[b + 7 + r * 4], In[b + 8 + r * 4], In[b + 9 + r * 4]);
  float3 v3 = float3(In[b + 18], In[b + 19], In[b + 20]);
  float2 v2 = float2(In[b + 21], In[b + 22]);
  float4 v4 = float4(In[b + 23], In[b + 24], In[b + 25], In[b + 26]);
  float s = In[b + 27];

  float2x4 AB = mul(A, B);            // (2x3)(3x4)
  float3 vA = mul(v2, A);             // row vector (1x2)(2x3)
  float2 Av = mul(A, v3);             // column vector (2x3)(3x1)
  float3 Bv = mul(B, v4);             // (3x4)(4x1)
  float4 vB = mul(v3, B);             // (1x3)(3x4)
  float2x3 sA = mul(s, A);
  float2x3 As = mul(A, 3.0f);
  float3 sv = mul(v3, s);
  float d = mul(v3, v3);              // dot product
  float3x2 At = transpose(A);
  float2 x = mul(v3, At);             // equals mul(A, v3)
  float2x2 AAt = mul(A, At);

  uint o = i * 48;
  [unroll]
  for (uint r2 = 0; r2 < 2; ++r2) {
    [unroll]
    for (uint c = 0; c < 4; ++c)
      Out[o + r2 * 4 + c] = AB[r2][c];
  }
  Out[o + 8] = vA.x;   Out[o + 9] = vA.y;   Out[o + 10] = vA.z;
  Out[o + 11] = Av.x;  Out[o + 12] = Av.y;
  Out[o + 13] = Bv.x;  Out[o + 14] = Bv.y;  Out[o + 15] = Bv.z;
  Out[o + 16] = vB.x;  Out[o + 17] = vB.y;  Out[o + 18] = vB.z;  Out[o + 19] = vB.w;
  Out[o + 20] = sA._m00; Out[o + 21] = sA._m12;
  Out[o + 22] = As._m01; Out[o + 23] = As._m10;
  Out[o + 24] = sv.x;  Out[o + 25] = sv.y;  Out[o + 26] = sv.z;
  Out[o + 27] = d;
  Out[o + 28] = At._m00; Out[o + 29] = At._m01; Out[o + 30] = At._m10;
  Out[o + 31] = At._m11; Out[o + 32] = At._m20; Out[o + 33] = At._m21;
  Out[o + 34] = x.x;   Out[o + 35] = x.y;
  Out[o + 36] = AAt._m00; Out[o + 37] = AAt._m01; Out[o + 38] = AAt._m10; Out[o + 39] = AAt._m11;
  float4x4 I = float4x4(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
  float4 iv = mul(I, v4) + mul(v4, I);
  Out[o + 40] = iv.x;  Out[o + 41] = iv.y;  Out[o + 42] = iv.z;  Out[o + 43] = iv.w;
  float2x2 R = float2x2(0, -1, 1, 0);  // rotation by 90 degrees
  float2 rv = mul(R, v2);
  float2 vr = mul(v2, R);
  Out[o + 44] = rv.x;  Out[o + 45] = rv.y;
  Out[o + 46] = vr.x;  Out[o + 47] = vr.y;
}
'''
    r = Rng(77)
    ins, out = [], []
    for i in range(4):
        vals = [float(r.int(-9, 9)) for _ in range(28)] + [0.0] * 4
        ins += vals
        A = [vals[0:3], vals[3:6]]
        B = [vals[6 + 4 * k:10 + 4 * k] for k in range(3)]
        v3, v2, v4, s = vals[18:21], vals[21:23], vals[23:27], vals[27]
        AB = matmul(A, B)
        vA = matmul([v2], A)[0]
        Av = [row[0] for row in matmul(A, [[x] for x in v3])]
        Bv = [row[0] for row in matmul(B, [[x] for x in v4])]
        vB = matmul([v3], B)[0]
        sA = [[fmul(s, x) for x in row] for row in A]
        As = [[fmul(x, 3) for x in row] for row in A]
        sv = [fmul(x, s) for x in v3]
        d = matmul([v3], [[x] for x in v3])[0][0]
        At = transpose(A)
        x = matmul([v3], At)[0]
        AAt = matmul(A, At)
        I = [[1.0 if a == b else 0.0 for b in range(4)] for a in range(4)]
        iv = [fadd(p, q) for p, q in zip([row[0] for row in matmul(I, [[x_] for x_ in v4])], matmul([v4], I)[0])]
        R = [[0.0, -1.0], [1.0, 0.0]]
        rv = [row[0] for row in matmul(R, [[x_] for x_ in v2])]
        vr = matmul([v2], R)[0]
        o = AB[0] + AB[1] + vA + Av + Bv + vB + [sA[0][0], sA[1][2], As[0][1], As[1][0]] + sv + [d]
        o += [At[0][0], At[0][1], At[1][0], At[1][1], At[2][0], At[2][1]] + x
        o += [AAt[0][0], AAt[0][1], AAt[1][0], AAt[1][1]] + iv + rv + vr
        assert x == Av
        out += o
    t = T('mat_mul', '''Matrices: mul(matrix, matrix) 2x3 by 3x4, mul(row vector, matrix), mul(matrix, column vector),
mul(scalar, matrix), mul(matrix, scalar), mul(vector, scalar), mul(vector, vector) = dot,
transpose, identity, and a 2x2 rotation applied from both sides (mul(R, v) != mul(v, R)).''', hlsl)
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def mat_cbuffer_major():
    hlsl = r'''
// Matrix layout in cbuffers: column_major is the default (each 16-byte row holds a column),
// row_major and column_major keywords, and #pragma pack_matrix changing the default for the
// declarations after it. Every element is read with m[r][c] and written row by row.
cbuffer Mats : register(b0) {
  float3x4 Mc;                 // default: column_major, 4 rows of 16 bytes each holding a column of 3
  row_major float3x4 Mr;       // 3 rows of 16 bytes, each a row of 4
  column_major float2x3 Nc;    // 3 columns of 2
  float4 tail;
};

#pragma pack_matrix(row_major)
cbuffer Mats2 : register(b1) {
  float2x3 P;                  // row_major by the pragma
  column_major float2x2 Q;     // the keyword wins over the pragma
  int2x2 Qi;                   // row_major by the pragma
};
#pragma pack_matrix(column_major)

RWStructuredBuffer<float> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
  uint o = 0;
  [unroll] for (uint r = 0; r < 3; ++r) [unroll] for (uint c = 0; c < 4; ++c) Out[o++] = Mc[r][c];
  [unroll] for (uint r1 = 0; r1 < 3; ++r1) [unroll] for (uint c1 = 0; c1 < 4; ++c1) Out[o++] = Mr[r1][c1];
  [unroll] for (uint r2 = 0; r2 < 2; ++r2) [unroll] for (uint c2 = 0; c2 < 3; ++c2) Out[o++] = Nc[r2][c2];
  Out[o++] = tail.x + tail.w;
  [unroll] for (uint r3 = 0; r3 < 2; ++r3) [unroll] for (uint c3 = 0; c3 < 3; ++c3) Out[o++] = P[r3][c3];
  [unroll] for (uint r4 = 0; r4 < 2; ++r4) [unroll] for (uint c4 = 0; c4 < 2; ++c4) Out[o++] = Q[r4][c4];
  Out[o++] = (float)(Qi._m01 * 10 + Qi._m10);
  // mul with cbuffer matrices of both layouts
  float3 a = mul(Mc, float4(1, 2, 3, 4));
  float3 b = mul(Mr, float4(1, 2, 3, 4));
  float4 c = mul(float3(1, -1, 2), Mc);
  Out[o++] = a.x; Out[o++] = a.y; Out[o++] = a.z;
  Out[o++] = b.x; Out[o++] = b.y; Out[o++] = b.z;
  Out[o++] = c.x; Out[o++] = c.y; Out[o++] = c.z; Out[o++] = c.w;
  float2 d = mul(P, float3(1, 1, 1)) + Mc._m21;
  Out[o++] = d.x; Out[o++] = d.y;
}
'''
    Mc = [[float(10 * r + c + 1) for c in range(4)] for r in range(3)]
    Mr = [[float(-(10 * r + c + 1)) for c in range(4)] for r in range(3)]
    Nc = [[float(100 + 10 * r + c) for c in range(3)] for r in range(2)]
    tail = [0.5, 1.0, 2.0, 4.0]
    P = [[float(200 + 10 * r + c) for c in range(3)] for r in range(2)]
    Q = [[float(300 + 10 * r + c) for c in range(2)] for r in range(2)]
    Qi = [[1, 2], [3, 4]]
    f1 = [('Mc', mat('float', 3, 4, 'col')), ('Mr', mat('float', 3, 4, 'row')), ('Nc', mat('float', 2, 3, 'col')),
          ('tail', vec('float', 4))]
    f2 = [('P', mat('float', 2, 3, 'row')), ('Q', mat('float', 2, 2, 'col')), ('Qi', mat('int', 2, 2, 'row'))]
    from lib import cb_offsets
    assert cb_offsets(f1) == {'Mc': 0, 'Mr': 64, 'Nc': 112, 'tail': 160}, cb_offsets(f1)
    assert cb_offsets(f2) == {'P': 0, 'Q': 32, 'Qi': 64}, cb_offsets(f2)
    cb1 = cb_pack(f1, {'Mc': Mc, 'Mr': Mr, 'Nc': Nc, 'tail': tail})
    cb2 = cb_pack(f2, {'P': P, 'Q': Q, 'Qi': Qi})
    out = [x for row in Mc for x in row] + [x for row in Mr for x in row] + [x for row in Nc for x in row]
    out += [4.5] + [x for row in P for x in row] + [x for row in Q for x in row] + [23.0]
    col = lambda v: [[x] for x in v]  # noqa: E731
    out += [row[0] for row in matmul(Mc, col([1, 2, 3, 4]))]
    out += [row[0] for row in matmul(Mr, col([1, 2, 3, 4]))]
    out += matmul([[1.0, -1.0, 2.0]], Mc)[0]
    out += [fadd(row[0], Mc[2][1]) for row in matmul(P, col([1, 1, 1]))]
    t = T('mat_cbuffer_major', '''Matrices in cbuffers: default column_major (one 16-byte row per column), row_major and
column_major keywords, #pragma pack_matrix(row_major) for a later cbuffer, int2x2, and mul()
with cbuffer matrices of both layouts. Padding holds 0xa5a5a5a5.
Layout: Mats: Mc at 0 (4 columns of 3 floats, 60 bytes), Mr at 64 (3 rows of 4), Nc at 112
(3 columns of 2), tail at 160; Mats2: P at 0 (2 rows of 3), Q at 32 (2 columns of 2), Qi at 64.''',
          hlsl)
    t.buf('Mats', 'Hex32', words(cb1), CB, 0)
    t.buf('Mats2', 'Hex32', words(cb2), CB, 1)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


# ---------------------------------------------------------------------------
# 3. Structs

def fbits(x):
    return f32_bits(x)


@test
def struct_basic():
    hlsl = r'''
// Structs: nested, with arrays and vectors; locals, parameters (by value, inout), return
// values, assignment (a copy), initializer lists (flattened), arrays of structs with dynamic
// indices, and a struct as the element of a RWStructuredBuffer.
struct Inner {
  float2 uv;
  int id;
};

struct Outer {
  Inner a;
  Inner list[2];
  float3 color;
  uint flags;
};                               // 12 + 24 + 12 + 4 = 52 bytes in a structured buffer

StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<Outer> Out : register(u0);
RWStructuredBuffer<int> Misc : register(u1);

Outer make(int k) {
  Outer o;
  o.a.uv = float2(k, k * 0.5f);
  o.a.id = k;
  [unroll]
  for (int j = 0; j < 2; ++j) {
    o.list[j].uv = float2(j, -k);
    o.list[j].id = k * 10 + j;
  }
  o.color = float3(0.25f, 0.5f, k);
  o.flags = 0x100;
  return o;
}

Inner scaled(Inner x, float s) {   // by value: the caller's struct is unchanged
  x.uv *= s;
  x.id += 1;
  return x;
}

void bump(inout Outer o) {
  o.flags |= 1;
  o.list[1].id += 100;
}

int total(Inner arr[3]) {
  return arr[0].id + arr[1].id * 2 + arr[2].id * 3;
}

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int k = In[i];
  Outer o = make(k);
  Outer p = o;                 // a copy
  p.a.id = 77;                 // leaves o alone
  Inner q = scaled(o.a, 2);
  bump(o);
  Inner arr[3];
  arr[0] = q;
  arr[1] = o.list[0];
  arr[2] = p.a;
  Inner z = { float2(1, 2), 3 };
  Inner z2 = { 4, 5, 6 };      // flattened initializer
  Inner pick = arr[i % 3];
  pick.id += z.id + z2.id;
  Out[i] = o;
  Misc[i * 6 + 0] = o.a.id;
  Misc[i * 6 + 1] = p.a.id;
  Misc[i * 6 + 2] = (int)(q.uv.x * 4 + q.uv.y * 8) + q.id * 1000;
  Misc[i * 6 + 3] = total(arr);
  Misc[i * 6 + 4] = pick.id;
  Misc[i * 6 + 5] = (int)(z2.uv.x * 10 + z2.uv.y) + (int)p.color.z;
}
'''
    ks = [1, -2, 3, 10, 0, 7, -5, 100]
    outw, misc = [], []
    for i, k in enumerate(ks):
        a = {'uv': [float(k), f32(k * 0.5)], 'id': k}
        lst = [{'uv': [float(j), float(-k)], 'id': k * 10 + j} for j in range(2)]
        color = [0.25, 0.5, float(k)]
        flags = 0x100
        p_a = dict(a, id=77)
        q = {'uv': [fmul(a['uv'][0], 2), fmul(a['uv'][1], 2)], 'id': k + 1}
        flags |= 1
        lst[1]['id'] += 100
        arr = [q, lst[0], p_a]
        pick = dict(arr[i % 3])
        pick_id = pick['id'] + 3 + 6
        # Out[i]
        for inner in [a] + lst:
            outw += [fbits(inner['uv'][0]), fbits(inner['uv'][1]), u32(inner['id'])]
        outw += [fbits(c) for c in color] + [flags]
        qv = ftoi(fadd(fmul(q['uv'][0], 4), fmul(q['uv'][1], 8))) + q['id'] * 1000
        misc += [k, 77, qv, arr[0]['id'] + arr[1]['id'] * 2 + arr[2]['id'] * 3, pick_id, 45 + k]
    t = T('struct_basic', '''Structs: nested struct with an array of structs and vectors, returned from a function, copied by
assignment (the copy is independent), passed by value (unchanged in the caller) and inout,
flattened initializer lists, a local array of structs with a dynamic index, passed to a function,
and stored whole into a RWStructuredBuffer<Outer> (52-byte elements; Hex32 words).''', hlsl)
    t.buf('In', 'Int32', ks, SB, 0)
    t.out('Out', 'Hex32', outw, RWSB, 0)
    t.out('Misc', 'Int32', misc, RWSB, 1)
    t.write()


@test
def struct_buffer_members():
    hlsl = r'''
// Structs as structured-buffer elements: member reads through nested arrays, member writes
// (a vector component, a swizzle, an array element), whole-element copies, tight packing:
// `float3 pos; float w;` and `float a; float3 b;` are 16 bytes each, float3 is 12.
struct Tight1 { float3 pos; float w; };
struct Tight2 { float a; float3 b; };
struct Rec {
  Tight1 t1;
  Tight2 t2;
  int counts[3];
  float2 uv;
};                                  // 16 + 16 + 12 + 8 = 52 bytes

StructuredBuffer<Rec> In : register(t0);
RWStructuredBuffer<Rec> Out : register(u0);

[numthreads(6, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Rec r = In[i];
  uint j = 5 - i;
  Out[j] = r;                                        // whole-element copy to another index
  Out[j].t1.pos.y = In[i].t2.b.z + In[j].counts[2];  // a vector component
  Out[j].t2.b.zx = In[i].uv;                          // a swizzle
  Out[j].counts[i % 3] = In[i].counts[0] * 2 + (int)In[i].t1.w;   // a dynamic array element
  Out[j].uv += float2(In[j].t2.a, 1);
}
'''
    from lib import struct as st, sb_pack
    Tt = st(('t1', st(('pos', vec('float', 3)), ('w', scalar('float')))),
            ('t2', st(('a', scalar('float')), ('b', vec('float', 3)))),
            ('counts', ('arr', ('int',), 3)), ('uv', vec('float', 2)))
    r = Rng(11)
    recs = []
    for i in range(6):
        recs.append({'t1': {'pos': [f32(r.int(-50, 50) / 2) for _ in range(3)], 'w': float(r.int(0, 9))},
                     't2': {'a': f32(r.int(-50, 50) / 4), 'b': [f32(r.int(-50, 50) / 8) for _ in range(3)]},
                     'counts': [r.int(-100, 100) for _ in range(3)],
                     'uv': [f32(r.int(-20, 20) / 2) for _ in range(2)]})
    import copy
    out = [None] * 6
    for i in range(6):
        j = 5 - i
        out[j] = copy.deepcopy(recs[i])
    # statements run in thread order within the group; element j is written only by thread i = 5 - j
    for i in range(6):
        j = 5 - i
        o = out[j]
        o['t1']['pos'][1] = fadd(recs[i]['t2']['b'][2], float(recs[j]['counts'][2]))
        o['t2']['b'][2], o['t2']['b'][0] = recs[i]['uv'][0], recs[i]['uv'][1]
        o['counts'][i % 3] = recs[i]['counts'][0] * 2 + int(recs[i]['t1']['w'])
        o['uv'] = [fadd(o['uv'][0], recs[j]['t2']['a']), fadd(o['uv'][1], 1)]
    assert len(sb_pack(Tt, recs)) == 52 * 6
    t = T('struct_buffer_members', '''Structs in structured buffers: tight packing (float3 is 12 bytes; {float3; float} and
{float; float3} are 16), nested struct members, int[3] members with dynamic index, member
writes through a vector component and a swizzle, a whole-element copy (52-byte stride).''', hlsl)
    t.buf('In', 'Hex32', words(sb_pack(Tt, recs)), SB, 0, Stride=52)
    t.out('Out', 'Hex32', words(sb_pack(Tt, out)), RWSB, 0, Stride=52)
    t.write()


# ---------------------------------------------------------------------------
# 4. Arrays

@test
def array_local():
    hlsl = r'''
// Local arrays: constant and dynamic indices (reads and writes), arrays of vectors with
// initializers, flattened initializers, array assignment (a copy), arrays passed by value and
// inout, two-dimensional local arrays.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int weighted(int v[8]) {          // by value
  int s = 0;
  for (int k = 0; k < 8; ++k) {
    s += v[k] * (k + 1);
    v[k] = 0;                     // changes the copy only
  }
  return s;
}

void reverse(inout int v[8]) {
  for (int k = 0; k < 4; ++k) {
    int t = v[k];
    v[k] = v[7 - k];
    v[7 - k] = t;
  }
}

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int a[8];
  for (int k = 0; k < 8; ++k)
    a[k] = In[i * 8 + k];
  int idx = a[0] & 7;
  a[idx] += 1000;                 // dynamic write
  int b[8];
  b = a;                          // array assignment copies
  b[1] = -1;
  int w = weighted(a);
  reverse(b);
  float2 pts[3] = { float2(1, 2), float2(3, 4), float2(5, 6) };
  int2 pairs[2] = { 10, 20, 30, 40 };   // flattened
  int grid[3][4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      grid[r][c] = r * 10 + c + a[r + c];
  uint rr = i % 3, cc = (i * 5) % 4;
  grid[rr][cc] = -grid[rr][cc];
  uint o = i * 12;
  Out[o + 0] = w;
  Out[o + 1] = a[1];
  Out[o + 2] = b[0];
  Out[o + 3] = b[6];
  Out[o + 4] = b[7 - idx];
  Out[o + 5] = a[idx];
  Out[o + 6] = (int)(pts[i % 3].x * 10 + pts[2 - i % 3].y);
  Out[o + 7] = pairs[i & 1].y - pairs[0].x;
  Out[o + 8] = grid[rr][cc];
  Out[o + 9] = grid[2][3] + grid[0][0];
  Out[o + 10] = grid[(rr + 1) % 3][cc];
  int sum = 0;
  for (int r2 = 0; r2 < 3; ++r2)
    sum += grid[r2][r2];
  Out[o + 11] = sum;
}
'''
    r = Rng(4)
    ins = [r.int(-50, 50) for _ in range(64)]
    out = []
    for i in range(8):
        a = ins[i * 8:i * 8 + 8]
        a = list(a)
        idx = a[0] & 7
        a[idx] += 1000
        b = list(a)
        b[1] = -1
        w = sum(a[k] * (k + 1) for k in range(8))
        b = b[::-1]
        pts = [(1, 2), (3, 4), (5, 6)]
        pairs = [(10, 20), (30, 40)]
        grid = [[rw * 10 + c + a[rw + c] for c in range(4)] for rw in range(3)]
        rr, cc = i % 3, (i * 5) % 4
        grid[rr][cc] = -grid[rr][cc]
        out += [w, a[1], b[0], b[6], b[7 - idx], a[idx], pts[i % 3][0] * 10 + pts[2 - i % 3][1],
                pairs[i & 1][1] - pairs[0][0], grid[rr][cc], grid[2][3] + grid[0][0], grid[(rr + 1) % 3][cc],
                grid[0][0] + grid[1][1] + grid[2][2]]
    t = T('array_local', '''Arrays: local int[8] filled in a loop, a dynamic-index write, array assignment as a copy,
by-value (callee changes are not seen) and inout array parameters, float2[3] and flattened int2[2]
initializers, int[3][4] with constant and dynamic indices.''', hlsl)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def array_static_const():
    hlsl = r'''
// static const tables: scalars, vectors, 2D, looked up with constant and dynamic indices;
// a 5-tap binomial filter with its weights in a table.
static const uint kPrimes[8] = { 2, 3, 5, 7, 11, 13, 17, 19 };
static const float4 kColors[3] = { float4(1, 0, 0, 1), float4(0, 1, 0, 1), float4(0, 0.5, 1, 0.25) };
static const int kGrid[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
static const float kWeights[5] = { 0.0625, 0.25, 0.375, 0.25, 0.0625 };

StructuredBuffer<float> Signal : register(t0);
RWStructuredBuffer<float> Blur : register(u0);
RWStructuredBuffer<uint> Misc : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float acc = 0;
  [unroll]
  for (int k = -2; k <= 2; ++k) {
    int j = clamp((int)i + k, 0, 31);
    acc += kWeights[k + 2] * Signal[j];
  }
  Blur[i] = acc;
  float4 c = kColors[i % 3];
  Misc[i * 4 + 0] = kPrimes[i & 7] * kPrimes[(i >> 1) & 7];
  Misc[i * 4 + 1] = (uint)(c.r * 8 + c.g * 4 + c.b * 2 + c.a * 16);
  Misc[i * 4 + 2] = (uint)(kGrid[i & 1][i % 3] * 100 + kGrid[1][2]);
  Misc[i * 4 + 3] = kPrimes[7] + kPrimes[0];
}
'''
    r = Rng(9)
    sig = [f32(r.int(-64, 64) / 16) for _ in range(32)]
    w = [0.0625, 0.25, 0.375, 0.25, 0.0625]
    primes = [2, 3, 5, 7, 11, 13, 17, 19]
    colors = [(1, 0, 0, 1), (0, 1, 0, 1), (0, 0.5, 1, 0.25)]
    grid = [[1, 2, 3], [4, 5, 6]]
    blur, misc = [], []
    for i in range(32):
        acc = 0.0
        for k in range(-2, 3):
            j = min(max(i + k, 0), 31)
            acc = fadd(acc, fmul(w[k + 2], sig[j]))
        blur.append(acc)
        c = colors[i % 3]
        misc += [primes[i & 7] * primes[(i >> 1) & 7], int(c[0] * 8 + c[1] * 4 + c[2] * 2 + c[3] * 16),
                 grid[i & 1][i % 3] * 100 + 6, 21]
    t = T('array_static_const', '''Arrays: static const tables (uint[8], float4[3], int[2][3], float[5]) with initializers, read
with constant and dynamic indices; a 5-tap binomial blur (exact: dyadic weights and data).''', hlsl,
          groups=[2])
    t.buf('Signal', 'Float32', sig, SB, 0)
    t.out('Blur', 'Float32', blur, RWSB, 0)
    t.out('Misc', 'UInt32', misc, RWSB, 1)
    t.write()


@test
def compat_real_code():
    hlsl = r'''
// Forms found in real shaders: struct inheritance, a struct defined inside a declaration,
// bare `matrix`/`vector`, `sample` as a name, swizzles of literals, a float buffer index,
// mul of a float3 with a float4x4 (the matrix's first three rows), a root signature made of
// adjacent strings, and a texture that is declared but not used by this kernel.
#define MyRS "RootFlags(0), " \
             "UAV(u0)"
struct Base { float3 pos; uint id; };
struct Derived : Base { float mass; };
cbuffer Params : register(b0) { matrix M; };
Texture2D<float4> NotUsedHere : register(t1);
StructuredBuffer<Derived> In : register(t0);
RWStructuredBuffer<float4> Out : register(u0);
groupshared struct { float2 p; float d; } Cell[32];

float sample(float x) { return x * 2; }

[RootSignature(MyRS)]
[numthreads(32, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Derived d = In[i];
  Cell[i].p = d.pos.xy + 0.5.xx;
  Cell[i].d = d.mass;
  GroupMemoryBarrierWithGroupSync();
  vector v = float4(Cell[31 - i].p, Cell[i].d, (float)d.id);
  float f = i * 0.5;
  float4 r = mul(d.pos, M);
  Out[i * 2] = v + sample(In[f].mass);
  Out[i * 2 + 1] = r;
}
'''
    r = Rng(57)
    n = 32
    pos = [[float(r.int(-8, 8)) for _ in range(3)] for _ in range(n)]
    ids = [r.int(0, 100) for _ in range(n)]
    mass = [float(r.int(1, 16)) / 4 for _ in range(n)]
    m = [[float(r.int(-4, 4)) for _ in range(4)] for _ in range(4)]  # rows
    raw = []
    for k in range(n):
        raw += [f32_bits(x) for x in pos[k]] + [ids[k], f32_bits(mass[k])]
    out = []
    for i in range(n):
        cp = [pos[31 - i][0] + 0.5, pos[31 - i][1] + 0.5]
        v = [cp[0], cp[1], mass[i], float(ids[i])]
        s2 = mass[int(i * 0.5)] * 2
        out += [f32(x + s2) for x in v]
        row = []
        for c in range(4):
            acc = 0.0
            for k in range(3):
                acc = fadd(acc, fmul(pos[i][k], m[k][c])) if k else fmul(pos[i][k], m[k][c])
            row.append(acc)
        out += row
    # cbuffer: column-major float4x4 -> column c holds rows 0..3 of column c.
    cbw = [f32_bits(m[row][col]) for col in range(4) for row in range(4)]
    t = T('compat_real_code', '''Forms from real shaders: struct inheritance, an inline struct in a groupshared declaration,
bare matrix/vector, `sample` as a function name, 0.5.xx, a float buffer index, mul(float3,
float4x4), a RootSignature of adjacent strings, an unused Texture2D declaration.''', hlsl, groups=[1])
    t.buf('Params', 'Hex32', cbw, CB, 0)
    t.buf('In', 'Hex32', raw, SB, 0, Stride=20)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def struct_methods():
    hlsl = r"""
// Member functions: fields used without `this.` and with it, calls between them (to one
// declared later too), static members, default arguments, and inheritance: Weighted gets
// Acc's functions, its Total hides Acc's, and Acc's Mean still calls Acc's Total (calls are
// not virtual). Calls on locals, a dynamically indexed local array element, a function's
// result, read-only and RW buffer elements and a groupshared element (functions that do
// not change their object leave those untouched).
struct Acc {
  uint sum;
  uint n;
  void Add(uint x, uint times = 1) { sum += x * times; n += times; }
  void AddTwice(uint x) { Add(x); this.Add(x); }
  uint Mean() { return n == 0 ? 0 : Total() / n; }
  uint Total() { return this.sum; }
  static uint Scale(uint x) { return x * Factor(); }
  static uint Factor() { return 3; }
};

struct Weighted : Acc {
  uint w;
  uint Total() { return sum * w; }
  uint Both() { return Total() + Acc::Total() + Scale(n); }
};

StructuredBuffer<Acc> Seeds : register(t0);
RWStructuredBuffer<Acc> Live : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
groupshared Weighted gw[16];

Acc Make(uint s, uint n) { Acc a; a.sum = s; a.n = n; return a; }
uint Pick(uint x, uint k = 7) { return x + k; }

[numthreads(16, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Acc a = Seeds[i];
  a.AddTwice(i + 1);
  a.Add(5, 3);
  Acc arr[4];
  for (uint k = 0; k < 4; k++) arr[k] = Make(k, 1);
  arr[i & 3].Add(i);
  Weighted w;
  w.sum = a.sum;
  w.n = a.n;
  w.w = 2 + (i & 1);
  gw[i] = w;
  GroupMemoryBarrierWithGroupSync();
  uint o = i * 8;
  Out[o + 0] = a.Mean();
  Out[o + 1] = Seeds[i].Total() + Live[i].Mean();
  Out[o + 2] = Make(i, 2).Mean();
  Out[o + 3] = arr[0].Total() + arr[1].Total() + arr[2].Total() + arr[3].Total();
  Out[o + 4] = w.Mean();
  Out[o + 5] = gw[15 - i].Both();
  Out[o + 6] = Acc::Scale(i) + Weighted::Factor();
  Out[o + 7] = Pick(a.n) + Pick(1, 1);
}
"""
    r = Rng(91)
    n = 16
    seeds = [(r.int(0, 50), r.int(1, 5)) for _ in range(n)]
    live = [(r.int(0, 100), r.int(1, 7)) for _ in range(n)]
    a = [(s + 2 * (i + 1) + 15, c + 5) for i, (s, c) in enumerate(seeds)]
    out = []
    for i in range(n):
        j = 15 - i
        sj, nj = a[j]
        wj = 2 + (j & 1)
        out += [a[i][0] // a[i][1],
                seeds[i][0] + live[i][0] // live[i][1],
                i // 2,
                6 + i,
                a[i][0] // a[i][1],
                sj * wj + sj + nj * 3,
                i * 3 + 3,
                a[i][1] + 7 + 2]
    flat = lambda recs: [v for rec in recs for v in rec]
    t = T('struct_methods', """Struct member functions, static members, default arguments and inherited functions
(non-virtual), called on locals, array elements, values, buffer and groupshared elements.""", hlsl, groups=[1])
    t.buf('Seeds', 'UInt32', flat(seeds), SB, 0, Stride=8)
    t.out('Live', 'UInt32', flat(live), RWSB, 0, init=flat(live), Stride=8)
    t.out('Out', 'UInt32', out, RWSB, 1)
    t.write()


@test
def array_const_tables():
    hlsl = r'''
// Large static const tables, indexed dynamically (wavec keeps them in a constant block in
// memory): a 256-entry permutation, a 2D float table, and a table of structs.
static const uint kPerm[256] = { %s };
static const float kCurve[4][16] = { %s };
struct Step { uint shift; int bias; };
static const Step kSteps[16] = { %s };

StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<float> OutF : register(u1);

uint hash(uint x) {
  return kPerm[(kPerm[x & 255] + (x >> 8)) & 255];
}

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint v = In[i];
  Step s = kSteps[v & 15];
  Out[i * 2 + 0] = hash(v);
  Out[i * 2 + 1] = (uint)((int)(v >> s.shift) + s.bias);
  OutF[i] = kCurve[(v >> 4) & 3][v & 15] * 2.0f;
}
'''
    r = Rng(23)
    perm = list(range(256))
    for k in range(255, 0, -1):
        j = r.int(0, k)
        perm[k], perm[j] = perm[j], perm[k]
    curve = [[f32((a * 16 + b) / 64.0 - 0.5) for b in range(16)] for a in range(4)]
    steps = [(k % 5, k * 3 - 20) for k in range(16)]
    hlsl = hlsl % (
        ', '.join(str(x) for x in perm),
        ', '.join('{ ' + ', '.join(repr(x) for x in row) + ' }' for row in curve),
        ', '.join('{ %d, %d }' % st for st in steps))
    data = [r.int(0, 0xFFFFFFFF) for _ in range(128)]
    out, outf = [], []
    for v in data:
        sh, bias = steps[v & 15]
        out.append(perm[(perm[v & 255] + (v >> 8)) & 255])
        out.append(u32(i32(v >> sh) + bias))
        outf.append(f32(curve[(v >> 4) & 3][v & 15] * 2.0))
    t = T('array_const_tables', '''Arrays: large static const tables (uint[256], float[4][16], a struct table)
indexed dynamically, also inside a helper function; wavec keeps them in a constant block in memory.''', hlsl,
          groups=[2])
    t.buf('In', 'UInt32', data, SB, 0)
    t.out('Out', 'UInt32', out, RWSB, 0)
    t.out('OutF', 'Float32', outf, RWSB, 1)
    t.write()


@test
def array_groupshared():
    hlsl = r'''
// groupshared arrays: a 2D tile with a padding column (transpose through it), an array of
// float4, an array of structs written at a permuted index.
struct Pair {
  int key;
  float val;
};

groupshared float tile[8][8 + 1];
groupshared float4 vecs[64];
groupshared Pair pairs[64];

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Transposed : register(u0);
RWStructuredBuffer<float4> Vecs : register(u1);
RWStructuredBuffer<int> Keys : register(u2);

[numthreads(8, 8, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) {
  uint base = gid.x * 64;
  float x = In[base + gi];
  tile[gtid.y][gtid.x] = x;
  vecs[gi] = float4(x, gi, gtid.x, gtid.y);
  pairs[63 - gi].key = (int)gi * 3 - 7;
  pairs[63 - gi].val = x * 2;
  GroupMemoryBarrierWithGroupSync();
  Transposed[base + gi] = tile[gtid.x][gtid.y];
  float4 v = vecs[(gi + 9) & 63];
  v.w += vecs[gi ^ 1].x;
  Vecs[base + gi] = v;
  Pair p = pairs[gi];
  Keys[base + gi] = p.key + (int)p.val;
}
'''
    r = Rng(15)
    ins = [f32(r.int(-100, 100) / 4) for _ in range(128)]
    tr, vecs_out, keys = [], [], []
    for g in range(2):
        base = g * 64
        tile = [[ins[base + y * 8 + x] for x in range(8)] for y in range(8)]
        vecs = [[ins[base + gi], float(gi), float(gi % 8), float(gi // 8)] for gi in range(64)]
        pairs = [None] * 64
        for gi in range(64):
            pairs[63 - gi] = (gi * 3 - 7, fmul(ins[base + gi], 2))
        for gi in range(64):
            tx, ty = gi % 8, gi // 8
            tr.append(tile[tx][ty])
            v = list(vecs[(gi + 9) & 63])
            v[3] = fadd(v[3], vecs[gi ^ 1][0])
            vecs_out += v
            keys.append(pairs[gi][0] + ftoi(pairs[gi][1]))
    t = T('array_groupshared', '''Arrays in groupshared memory: float[8][9] (a transpose through a padded tile), float4[64]
and an array of structs written at a permuted index, read after GroupMemoryBarrierWithGroupSync.''',
          hlsl, groups=[2])
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Transposed', 'Float32', tr, RWSB, 0)
    t.out('Vecs', 'Float32', vecs_out, RWSB, 1)
    t.out('Keys', 'Int32', keys, RWSB, 2)
    t.write()


@test
def array_groupshared_large():
    hlsl = r'''
// Several groupshared arrays that together fill most of 16 KB (the generic target's limit per
// group): written through one partition of indices and read through another, so arrays that
// were placed over each other, or sized too small, give wrong sums.
groupshared float big[3072];        // 12288 bytes
groupshared uint marks[700];        // 2800 bytes
groupshared int2 pairs[64];         // 512 bytes

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Sums : register(u0);
RWStructuredBuffer<uint> Marks : register(u1);

[numthreads(256, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID) {
  for (uint k = 0; k < 12; ++k)
    big[k * 256 + gi] = In[k * 256 + gi] + (float)gid.x;
  for (uint m = gi; m < 700; m += 256)
    marks[m] = m * 3 + gid.x;
  if (gi < 64)
    pairs[gi] = int2(gi, -(int)gi);
  GroupMemoryBarrierWithGroupSync();
  float s = 0;
  for (uint j = 0; j < 12; ++j)
    s += big[gi * 12 + j];
  Sums[gid.x * 256 + gi] = s;
  uint t = marks[gi] + marks[699 - gi] + (uint)(pairs[gi & 63].x - pairs[63 - (gi & 63)].y);
  Marks[gid.x * 256 + gi] = t;
}
'''
    r = Rng(16)
    ins = [f32(r.int(-64, 64) / 8) for _ in range(3072)]
    sums, marks_out = [], []
    for g in range(2):
        big = [fadd(x, float(g)) for x in ins]
        marks = [m * 3 + g for m in range(700)]
        for gi in range(256):
            s = 0.0
            for j in range(12):
                s = fadd(s, big[gi * 12 + j])
            sums.append(s)
            marks_out.append(u32(marks[gi] + marks[699 - gi] + (gi & 63) + (63 - (gi & 63))))
    t = T('array_groupshared_large', '''Arrays: three groupshared arrays totalling 15600 bytes (float[3072], uint[700], int2[64]), under the
16 KB per group of the generic target, written and read through different index partitions so
that overlapping or undersized allocations change the results.''', hlsl, groups=[2])
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Sums', 'Float32', sums, RWSB, 0)
    t.out('Marks', 'UInt32', marks_out, RWSB, 1)
    t.write()
