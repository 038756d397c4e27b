"""Item 9 of the language issue: types and literals, conversions, 16-bit types."""
import math
from lib import (T, SB, RWSB, f32, f32_from_bits, f16, f16_bits, i16, u16, i32, u32, idiv, imod, ftoi, f32_bits, fadd, fmul,
                 fdiv, Rng)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def types_names():
    hlsl = r'''
// Type names: unsigned int, dword, int32_t, uint32_t, float32_t, typedefs (also of a typedef),
// vector<T, N> and matrix<T, R, C> spellings, half as a 32-bit float without
// -enable-16bit-types.
typedef float4 color_t;
typedef uint2 pair_t;
typedef int myint;
typedef myint myint2;        // a typedef of a typedef

StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int x = In[i];
  unsigned int a = 4000000000u + (uint)x;
  dword b = 0xFFFFFFF0 | (dword)i;
  int32_t c = -5 * x;
  uint32_t d = 7u * (uint32_t)i;
  float32_t e = 1.5f * (float32_t)x;
  half h = 1.0f / 3.0f + (half)x;          // full f32 precision: half is float here
  color_t col = color_t(1, 2, 3, x);
  pair_t pr = pair_t(a, b);
  myint2 z = c * 3;
  vector<uint, 2> vv = vector<uint, 2>(d, 9);
  matrix<int, 2, 2> mm = matrix<int, 2, 2>(1, 2, 3, x);
  uint o = i * 12;
  Out[o + 0] = a;
  Out[o + 1] = b;
  Out[o + 2] = (uint)c;
  Out[o + 3] = d;
  Out[o + 4] = asuint(e);
  Out[o + 5] = asuint(h);
  Out[o + 6] = asuint(col.w);
  Out[o + 7] = pr.x ^ pr.y;
  Out[o + 8] = (uint)z;
  Out[o + 9] = vv.x + vv.y;
  Out[o + 10] = (uint)(mm._m11 * mm._m10);
  Out[o + 11] = sizeof(half) * 100 + sizeof(dword);
}
'''
    xs = [3, -7, 100, 0]
    out = []
    for i, x in enumerate(xs):
        a = u32(4000000000 + u32(x))
        b = 0xFFFFFFF0 | i
        c = -5 * x
        d = 7 * i
        e = fmul(1.5, float(x))
        h = fadd(f32(1.0 / 3.0), float(x))
        z = c * 3
        out += [a, b, u32(c), d, f32_bits(e), f32_bits(h), f32_bits(float(x)), a ^ b, u32(z), d + 9, u32(x * 3), 404]
    t = T('types_names', '''Types: unsigned int, dword, int32_t, uint32_t, float32_t, typedefs (of a typedef too),
vector<uint, 2>, matrix<int, 2, 2>, and half as a 32-bit float without -enable-16bit-types
(1/3 keeps f32 precision; sizeof(half) is 4).''', hlsl)
    t.buf('In', 'Int32', xs, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def types_min_precision():
    hlsl = r'''
// min16float / min16int / min16uint without -enable-16bit-types: D3D lets an implementation
// compute them with 16 bits or more; DXC's own choice (and wavec's) is 32 bits, which this test
// expects: no 16-bit wrap or rounding.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int x = In[i];
  min16int mi = 30000 + (min16int)x;
  mi = mi * 3;
  min16uint mu = 65535;
  mu += (min16uint)i + 2;
  min16float mf = 1.0f / 3.0f;
  mf *= (min16float)(x + 1);
  min16float2 v = min16float2(mf, 2049);
  Out[i * 4 + 0] = (uint)mi;
  Out[i * 4 + 1] = (uint)mu;
  Out[i * 4 + 2] = asuint((float)mf);
  Out[i * 4 + 3] = asuint((float)(v.y + 1));
}
'''
    xs = [0, 5, -9, 1000]
    out = []
    for i, x in enumerate(xs):
        mi = (30000 + x) * 3
        mu = 65535 + i + 2
        mf = fmul(f32(1 / 3), float(x + 1))
        out += [u32(mi), mu, f32_bits(mf), f32_bits(2050.0)]
    t = T('types_min_precision', '''Types: min16int, min16uint, min16float(2) without -enable-16bit-types computed with 32 bits
(no wrap at 16 bits: 90000, 65537; float precision: 1/3, and 2049 + 1 = 2050 which a half
could not hold). D3D would also allow 16-bit results here; wavec follows DXC's 32-bit choice.''',
          hlsl)
    t.buf('In', 'Int32', xs, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def types_literals():
    hlsl = r'''
// Literals: suffixes u U l L ll ull h f F, hex, octal, forms of float literals (.5, 1., 1e3,
// 2.5e-3, 1.5E+2), integer literal arithmetic, signed / and % truncating toward zero.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
  uint o = 0;
  Out[o++] = 10u;
  Out[o++] = 10U + 1;
  Out[o++] = 0x7FFFFFFF;
  Out[o++] = 0xFFFFFFFFu;
  Out[o++] = 0xdeadBEEF;
  Out[o++] = 017;                 // octal
  Out[o++] = 0777 + 01;
  Out[o++] = 3000000000;          // fits uint
  int l1 = 5l;
  int l2 = -6L;
  int l3 = 7ll;
  uint l4 = 8ull;
  Out[o++] = (uint)(l1 * 1000 + l2 * 100 + l3 * 10) + l4;
  Out[o++] = asuint(1.5h * 2);
  Out[o++] = asuint(1.0f / 3);
  Out[o++] = asuint(.5 + 1.);
  Out[o++] = asuint(1e3f);
  Out[o++] = asuint((float)2.5e-3);
  Out[o++] = asuint(1.5E+2F);
  Out[o++] = asuint((float)0.1);
  Out[o++] = 7 / 2;
  Out[o++] = (uint)(-7 / 2);
  Out[o++] = (uint)(7 % -3);
  Out[o++] = (uint)(-7 % 3);
  Out[o++] = 1u << 31;
  Out[o++] = (uint)-1;
  Out[o++] = 0x10 * 0x10 - 010;
}
'''
    out = [10, 11, 0x7FFFFFFF, 0xFFFFFFFF, 0xDEADBEEF, 15, 0o777 + 1, 3000000000,
           u32(5000 - 600 + 70 + 8), f32_bits(3.0), f32_bits(f32(1 / 3)), f32_bits(1.5), f32_bits(1000.0),
           f32_bits(f32(2.5e-3)), f32_bits(150.0), f32_bits(f32(0.1)), 3, u32(-3), 1, u32(-1), 0x80000000,
           0xFFFFFFFF, 256 - 8]
    t = T('types_literals', '''Literals: u/U, l/L, ll, ull suffixes (values that fit 32 bits, assigned to 32-bit variables), h and
f/F suffixes, hex in both cases, octal (017, 0777, 01, 010), 3000000000 as a uint, float forms
.5, 1., 1e3f, 2.5e-3, 1.5E+2F, 0.1 (rounded once to f32), literal / and % with negative operands
(truncation toward zero), 1u << 31, (uint)-1.''', hlsl)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def types_conversions():
    hlsl = r'''
// Implicit and explicit conversions: float -> int truncates toward zero, int -> float rounds to
// nearest even, uint -> float, int <-> bool, negative int -> uint wraps, int and uint in one
// expression convert to uint (also in comparisons), vector truncation and splats, float3 ->
// int3, shift amounts masked to 5 bits.
StructuredBuffer<float> F : register(t0);
StructuredBuffer<int> I : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float f = F[i];
  int n = I[i];
  int a = f;                     // implicit float -> int
  float c = n;                   // int -> float
  float d = (uint)n;             // uint -> float
  bool e = n;
  int g = e;
  uint h = n;
  bool lt = n < 1u;              // n converts to uint
  uint sum = n + 1u;
  float2 v2 = float4(f, 2, 3, 4);   // truncation to the first two components
  float3 sp = n;                  // splat with conversion
  int3 iv = float3(f, -f, f * 2);
  uint s1 = 1u << (uint)n;        // amount masked to 5 bits
  int s2 = -256 >> (n & 63);
  uint o = i * 14;
  Out[o + 0] = (uint)a;
  Out[o + 1] = asuint(c);
  Out[o + 2] = asuint(d);
  Out[o + 3] = (uint)g;
  Out[o + 4] = h;
  Out[o + 5] = lt ? 1 : 0;
  Out[o + 6] = sum;
  Out[o + 7] = asuint(v2.x + v2.y);
  Out[o + 8] = asuint(sp.z);
  Out[o + 9] = (uint)iv.x;
  Out[o + 10] = (uint)iv.y;
  Out[o + 11] = (uint)iv.z;
  Out[o + 12] = s1;
  Out[o + 13] = (uint)s2;
}
'''
    fs = [2.75, -2.75, 0.5, -0.5, 1e9, -123456.78, 7.0, 3.5]
    ns = [16777217, -1, 0, 33, -16777219, 2147483647, 40, 7]
    fs = [f32(x) for x in fs]
    out = []
    for f, n in zip(fs, ns):
        a = ftoi(f)
        c = f32(float(n))
        d = f32(float(u32(n)))
        g = int(n != 0)
        h = u32(n)
        lt = int(u32(n) < 1)
        sm = u32(n + 1)
        v2 = fadd(f, 2.0)
        iv = [ftoi(f), ftoi(-f), ftoi(fmul(f, 2))]
        s1 = u32(1 << (u32(n) & 31))
        s2 = -256 >> ((n & 63) & 31)
        out += [u32(a), f32_bits(c), f32_bits(d), g, h, lt, sm, f32_bits(v2), f32_bits(c), u32(iv[0]), u32(iv[1]),
                u32(iv[2]), s1, u32(s2)]
    assert all(abs(fmul(f, 2)) < 2 ** 31 for f in fs)
    t = T('types_conversions', '''Conversions: implicit float -> int (truncation, also of 1e9 and -123456.78), int -> float
(16777217 rounds to 16777216, -16777219 to -16777220), (uint)-1 -> float (4294967296), int -> bool
-> int, int -> uint wrap, n < 1u and n + 1u in uint, float4 -> float2 truncation, int -> float3
splat, float3 -> int3, shifts by 33/40/63 masked to 5 bits.''', hlsl)
    t.buf('F', 'Float32', fs, SB, 0)
    t.buf('I', 'Int32', ns, SB, 1)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def types_static_const_sizeof():
    hlsl = r'''
// const and static: static const globals, static globals (thread-private, zero-initialized),
// a static local keeping its value between calls, const locals computed at run time, sizeof of
// scalars, vectors, matrices, structs, arrays and typedefs.
typedef float3 vec3;
typedef vec3 position_t;

struct S {
  float a;
  int b[3];
  float2 c;
};                                       // 24 bytes

static const int kSize = sizeof(S);
static const float kHalf = 0.5f;
const static uint kMask = 0xF0;
static int gCounter;
static float gScale = 2.0f;

StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

uint nextId() {
  static uint next = 100;
  return next++;
}

void count() {
  gCounter += 3;
}

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  const int k = In[i] * 2;
  count();
  count();
  gScale *= (float)k;
  uint id0 = nextId();
  uint id1 = nextId();
  uint id2 = nextId();
  int arr[5];
  arr[0] = k;
  uint o = i * 12;
  Out[o + 0] = k;
  Out[o + 1] = gCounter;
  Out[o + 2] = (int)(gScale * kHalf);
  Out[o + 3] = (int)(id0 * 10000 + id1 * 100 + id2 % 100);
  Out[o + 4] = (int)(kMask | i);
  Out[o + 5] = kSize;
  Out[o + 6] = sizeof(float) + sizeof(int) * 10 + sizeof(bool) * 100;
  Out[o + 7] = sizeof(float3);
  Out[o + 8] = sizeof(float4x4);
  Out[o + 9] = sizeof(arr) + arr[0];
  Out[o + 10] = sizeof(position_t);
  Out[o + 11] = sizeof(S[2]) + sizeof(uint2x3);
}
'''
    xs = [1, -4, 7, 0]
    out = []
    for i, x in enumerate(xs):
        k = x * 2
        scale = fmul(2.0, float(k))
        out += [k, 6, ftoi(fmul(scale, 0.5)), 100 * 10000 + 101 * 100 + 2, 0xF0 | i, 24, 4 + 40 + 400, 12, 64,
                20 + k, 12, 48 + 24]
    t = T('types_static_const_sizeof', '''Types: static const globals (one initialized with sizeof), const static, static globals
(zero-initialized and initialized, per thread, modified by functions), a static local in a
function (100, 101, 102 over three calls), a const local from a buffer, sizeof(float, int, bool,
float3, float4x4, a struct, a local array, a typedef of a typedef, S[2], uint2x3).''', hlsl)
    t.buf('In', 'Int32', xs, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def types_16bit():
    hlsl = r'''
// -enable-16bit-types: int16_t, uint16_t, float16_t (and half) are real 16-bit types: integer
// arithmetic wraps at 16 bits (HLSL does not promote to int), a literal takes the other
// operand's type, float16 rounds to half after every operation; 16-bit structured buffers have
// 2-byte elements.
StructuredBuffer<int16_t> A : register(t0);
StructuredBuffer<float16_t> H : register(t1);
RWStructuredBuffer<int16_t> OutI : register(u0);
RWStructuredBuffer<uint16_t> OutU : register(u1);
RWStructuredBuffer<float16_t> OutH : register(u2);
RWStructuredBuffer<uint> Out32 : register(u3);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int16_t a = A[i];
  int16_t s = a + a;
  int16_t d = (a + a) / 2;
  int16_t neg = -a;
  int16_t sh = a >> 3;
  uint16_t u = (uint16_t)a;
  u += 40000;
  uint16_t m = u * 3;
  uint16_t ush = u >> 3;
  uint16_t shl = u << 4;
  float16_t h = H[i];
  float16_t h2 = h * h + (float16_t)0.1;
  float16_t h3 = h / 3;
  half h4 = h + (half)1000;
  float widened = h3;
  float16_t narrowed = (float16_t)(1.0f / 3.0f + (float)i);
  int32_t w1 = a * 2;             // 16-bit multiply, then widened
  int32_t w2 = (int)a * 2;        // 32-bit multiply
  OutI[i * 4 + 0] = s;
  OutI[i * 4 + 1] = d;
  OutI[i * 4 + 2] = neg;
  OutI[i * 4 + 3] = sh;
  OutU[i * 4 + 0] = u;
  OutU[i * 4 + 1] = m;
  OutU[i * 4 + 2] = ush;
  OutU[i * 4 + 3] = shl;
  OutH[i * 4 + 0] = h2;
  OutH[i * 4 + 1] = h3;
  OutH[i * 4 + 2] = h4;
  OutH[i * 4 + 3] = narrowed;
  Out32[i * 6 + 0] = asuint(widened);
  Out32[i * 6 + 1] = (uint)w1;
  Out32[i * 6 + 2] = (uint)w2;
  Out32[i * 6 + 3] = sizeof(int16_t) * 100 + sizeof(float16_t) * 10 + sizeof(half) + sizeof(min16float) * 1000;
  min16float mf = (min16float)(h / 7);      // min16float is float16_t with the flag
  Out32[i * 6 + 4] = asuint((float)mf);
  Out32[i * 6 + 5] = asuint((float)(0.1h + (float16_t)i));
}
'''
    As = [30000, -30000, 1, -1, 16384, 255, -32768, 12345]
    Hs = [f16(x) for x in [1.5, -2.25, 0.75, 3.0, 10.5, 0.125, -0.5, 7.0]]
    oi, ou, oh, o32 = [], [], [], []
    p1 = f16(0.1)
    for i, (a, h) in enumerate(zip(As, Hs)):
        s = i16(a + a)
        d = i16(idiv(s, 2))
        neg = i16(-a)
        sh = a >> 3
        u = u16(u16(a) + 40000)
        m = u16(u * 3)
        ush = u >> 3
        shl = u16(u << 4)
        hh = f16(h * h)
        assert hh == h * h        # exact product: fusing with the add cannot change the result
        h2 = f16(hh + p1)
        h3 = f16(h / 3)
        h4 = f16(h + 1000)
        narrowed = f16(fadd(f32(1 / 3), float(i)))
        w1 = i16(a * 2)
        w2 = a * 2
        oi += [s, d, neg, sh]
        ou += [u, m, ush, shl]
        oh += [h2, h3, h4, narrowed]
        o32 += [f32_bits(h3), u32(w1), u32(w2), 2222, f32_bits(f16(h / 7)), f32_bits(f16(f16(0.1) + i))]
    t = T('types_16bit', '''Types with -enable-16bit-types: int16_t wraps (30000 + 30000 = -5536, and (a + a) / 2 is
-2768: no promotion to 32 bits), uint16_t wraps (+= 40000, * 3, << 4), >> arithmetic on int16_t
and logical on uint16_t, float16_t rounds to half after each operation (h * h + 0.1, h / 3,
h + 1000), f32 -> f16 rounding, f16 -> f32 widening, a * 2 with a literal in 16 bits vs (int)a * 2,
min16float as float16_t, a 0.1h literal, 2-byte structured-buffer elements, sizeof of 16-bit
types (min16float included).''', hlsl, run='-enable-16bit-types -T cs_6_2')
    t.buf('A', 'Int16', As, SB, 0)
    t.buf('H', 'Float16', Hs, SB, 1)
    t.out('OutI', 'Int16', oi, RWSB, 0)
    t.out('OutU', 'UInt16', ou, RWSB, 1)
    t.out('OutH', 'Float16', oh, RWSB, 2)
    t.out('Out32', 'Hex32', o32, RWSB, 3)
    t.write()


@test
def types_16bit_bit_intrinsics():
    hlsl = r'''
// Bit intrinsics on 16-bit integers see 16 bits: countbits counts them, reversebits reverses
// them (and stays 16-bit), firstbithigh looks from bit 15 (for int16_t: the first bit unlike
// the sign), firstbitlow from bit 0; not found is 0xFFFFFFFF.
StructuredBuffer<uint16_t> U : register(t0);
StructuredBuffer<int16_t> S : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint16_t> Rev : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  uint16_t u = U[i];
  int16_t s = S[i];
  uint o = i * 6;
  Out[o + 0] = countbits(u);
  Out[o + 1] = countbits(s);
  Out[o + 2] = firstbithigh(u);
  Out[o + 3] = firstbithigh(s);
  Out[o + 4] = firstbitlow(u);
  Out[o + 5] = firstbitlow(s);
  Rev[i] = reversebits(u);
}
'''
    us = [0, 1, 0x8000, 0xFFFF, 0x0F0F, 0x1234, 0x00F0, 0x7FFF]
    ss = [0, -1, -8, 9, -32768, 32767, -2, 0x100]
    NF = 0xFFFFFFFF

    def fbh_u(x):
        return x.bit_length() - 1 if x else NF

    def fbh_s(x):
        if x == 0 or x == -1:
            return NF
        return fbh_u(~x & 0xFFFF) if x < 0 else fbh_u(x)

    def fbl(x):
        x &= 0xFFFF
        return (x & -x).bit_length() - 1 if x else NF
    out = []
    for u, s in zip(us, ss):
        out += [bin(u).count('1'), bin(s & 0xFFFF).count('1'), fbh_u(u), fbh_s(s), fbl(u), fbl(s)]
    rev = [int('{:016b}'.format(u)[::-1], 2) for u in us]
    t = T('types_16bit_bit_intrinsics', '''16-bit types: countbits, reversebits, firstbithigh and firstbitlow on uint16_t and int16_t
work on 16 bits (reversebits returns uint16_t).''', hlsl, groups=[1], run='-T cs_6_2 -enable-16bit-types')
    t.buf('U', 'UInt16', us, SB, 0)
    t.buf('S', 'Int16', ss, SB, 1)
    t.out('Out', 'UInt32', out, RWSB, 0)
    t.out('Rev', 'UInt16', rev, RWSB, 1)
    t.write()


@test
def types_16bit_reinterpret():
    hlsl = r'''
// asint16, asuint16 and asfloat16 reinterpret 16-bit values (scalars and vectors) without
// changing their bits: half -> int16_t/uint16_t, int16_t/uint16_t -> half, int16_t <-> uint16_t.
StructuredBuffer<half> H : register(t0);
StructuredBuffer<uint16_t> U : register(t1);
RWStructuredBuffer<int16_t> OutI : register(u0);
RWStructuredBuffer<uint16_t> OutU : register(u1);
RWStructuredBuffer<half> OutH : register(u2);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  half h = H[i];
  uint16_t u = U[i];
  OutI[i * 2] = asint16(h);
  OutI[i * 2 + 1] = asint16(u);
  int16_t2 v = asint16(half2(h, -h));
  OutU[i * 2] = asuint16(v.y);
  OutU[i * 2 + 1] = asuint16(h) ^ asuint16(v).x;
  OutH[i] = asfloat16(u) + asfloat16((int16_t)0);
}
'''
    hs = [0x3C00, 0xC100, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0x3555, 0x0400]
    us = [0x3C00, 0x4248, 0xBC00, 0x0000, 0x8000, 0x5640, 0x03FF, 0x2E66]
    outi, outu, outh = [], [], []
    for h, u in zip(hs, us):
        s16 = lambda x: x - 0x10000 if x & 0x8000 else x
        outi += [s16(h), s16(u)]
        outu += [h ^ 0x8000, 0]
        # u's half plus +0: exact (x + 0 = x), and -0 + 0 = +0.
        outh.append(0x0000 if u == 0x8000 else u)
    t = T('types_16bit_reinterpret', '''16-bit types: asint16, asuint16, asfloat16 of scalars and vectors keep the bits (the half
bits of -h differ only in the sign bit).''', hlsl, groups=[1], run='-T cs_6_2 -enable-16bit-types')
    t.buf('H', 'Hex16', hs, SB, 0)
    t.buf('U', 'UInt16', us, SB, 1)
    t.out('OutI', 'Int16', outi, RWSB, 0)
    t.out('OutU', 'UInt16', outu, RWSB, 1)
    t.out('OutH', 'Hex16', outh, RWSB, 2)
    t.write()


@test
def types_denorm_ftz():
    hlsl = r'''
// -denorm ftz (D3D's fp32 rule): arithmetic flushes denormal inputs and results to zero of the
// same sign; copies, abs, negation, selects and bit casts keep them. Inputs: denormals of both
// signs, the smallest normal, and normals whose product or difference is denormal.
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  float x = In[i];
  uint o = i * 8;
  Out[o + 0] = x;                    // a copy keeps a denormal
  Out[o + 1] = abs(x);               // so does abs
  Out[o + 2] = -x;                   // and negation
  Out[o + 3] = x + 0.0f;             // arithmetic flushes its input
  Out[o + 4] = x * 1e-10f;           // and its result
  Out[o + 5] = sqrt(x);              // sqrt(-denormal) = sqrt(-0) = -0
  Out[o + 6] = asfloat(asuint(x) | 1u);
  Out[o + 7] = (x > 0.0f) ? 1.0f : 0.0f;   // comparisons see 0 for a denormal
}
'''
    den = 2.0 ** -130
    ins = [f32(v) for v in [den, -den, 2.0 ** -126, -3 * 2.0 ** -140, 1e-30, 0.5, 1e-28, 2.0 ** -149]]
    MIN = 2.0 ** -126

    def ftz(v):
        return math.copysign(0.0, v) if v != 0 and abs(v) < MIN else v
    out = []
    for x in ins:
        x = f32(x)
        fx = ftz(x)
        prod = ftz(f32(fx * f32(1e-10)))
        sq = math.copysign(0.0, fx) if fx == 0 else (math.sqrt(fx) if fx > 0 else float('nan'))
        bits = f32_bits(x) | 1
        out += [x, abs(x), -x, ftz(f32(fx + 0.0)), prod, f32(sq), f32_from_bits(bits), 1.0 if fx > 0 else 0.0]
    t = T('types_denorm_ftz', '''Types: -denorm ftz flushes fp32 denormals in arithmetic (inputs and results, sign kept) and keeps
them through copies, abs, negation and bit casts.''', hlsl, groups=[1], run='-T cs_6_2 -denorm ftz')
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Out', 'Hex32', [f32_bits(v) for v in out], RWSB, 0)
    t.write()
