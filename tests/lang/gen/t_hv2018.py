"""HLSL 2018 mode (-HV 2016/2017/2018, and Unity .compute files) against HLSL 2021, and the
literal forms DXC accepts: binary literals, swizzles on literals, 64-bit `literal int`
arithmetic with truncation to 32 bits, and Vulkan specialization constants.

The semantics modelled here (DXC's):
- HLSL 2018: `&&`, `||` and `?:` never short-circuit; every operand is evaluated, left to right,
  element-wise on vectors and matrices (`c ? a : b` is `select(c, a, b)`). Calls with effects,
  out arguments, buffer writes, atomics and wave operations in an operand all happen, and a wave
  operation sees every lane that evaluates the whole expression.
- HLSL 2021: scalar short-circuit; the unchosen side does not run.
- HLSL 2018: a `for` init variable belongs to the enclosing scope (it outlives the loop; a later
  `for` declaring the same name makes a new variable that shadows it).
- HLSL 2018: structs with the same layout convert implicitly.
- Unsuffixed integer literals are 64-bit while only literals meet; converting one to a 32-bit type
  keeps its low 32 bits.
"""
from lib import T, SB, RWSB, CB, f32, i32, u32, f32_bits, Rng

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


EAGER_HLSL = r'''
// && || ?: whose unchosen operand has effects: a call counting itself in a static, an out
// argument, buffer writes, an atomic, assignments, and wave operations (which count the lanes
// that run them). HLSL 2018 (-HV 2018) runs every operand; HLSL 2021 short-circuits. Reads of
// Data past its end (it is the last buffer in memory) are never used in either mode and never
// fault.
cbuffer Params : register(b0) {
  uint n;
};
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<int> Log : register(u1);
RWStructuredBuffer<uint> Count : register(u2);
StructuredBuffer<int> Data : register(t0);     // n elements, the last buffer in memory

static int calls;

bool touch(int v) {
  calls++;
  return v > 0;
}

int setOut(int v, out int o) {
  o = v * 3;
  return v;
}

bool countHit() {
  InterlockedAdd(Count[0], 1);
  return true;
}

int mark(uint slot, int v) {
  Log[slot] = v;
  return v;
}

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  int x = (int)i - 12;
  int v = (i < n && Data[i] > 5) ? 1 : 0;
  int idx = i < n ? Data[i] : -1;
  int2 dv = i < n ? int2(Data[i], Data[i] * 2) : int2(-1, -2);
  bool t1 = x > 0 && touch(x);
  int c1 = calls;
  bool t2 = x > 0 || touch(-x);
  int c2 = calls;
  int q = -1;
  int r = (x & 1) ? setOut(x, q) : 7;
  int s = (x > 4) ? mark(i * 2, x) : mark(i * 2 + 1, -x);
  bool h = (x < 0) && countHit();
  int ws = (x & 1) ? WaveActiveSum(1) : 0;
  uint wb = (x > 8) ? WaveActiveCountBits(true) : 100u;
  int asg = 0;
  int a2 = (x == 3) ? (asg = 5) : (asg = 9);
  uint o = i * 12;
  Out[o + 0] = v;
  Out[o + 1] = idx + 1000 * dv.y;
  Out[o + 2] = (t1 ? 1 : 0) | (t2 ? 2 : 0) | (h ? 4 : 0);
  Out[o + 3] = c1;
  Out[o + 4] = c2;
  Out[o + 5] = q;
  Out[o + 6] = r;
  Out[o + 7] = s;
  Out[o + 8] = ws;
  Out[o + 9] = (int)wb;
  Out[o + 10] = asg;
  Out[o + 11] = a2;
}
'''


def eager_test(year):
    eager = year < 2021
    n = 24
    r = Rng(2018)
    data = [r.int(-10, 20) for _ in range(n)]
    log_fill = 12345
    out, log, count = [], [log_fill] * 64, 0
    lanes = list(range(32))           # one wave of 32 lanes (the generic target)
    odd = [i for i in lanes if (i - 12) & 1]
    above8 = [i for i in lanes if i - 12 > 8]
    for i in lanes:
        x = i - 12
        v = 1 if i < n and data[i] > 5 else 0
        idx = data[i] if i < n else -1
        idx += 1000 * (2 * data[i] if i < n else -2)
        calls = 0
        # t1 = x > 0 && touch(x)
        if eager or x > 0:
            calls += 1
        t1 = x > 0 and x > 0
        c1 = calls
        # t2 = x > 0 || touch(-x)
        if eager or not x > 0:
            calls += 1
        t2 = x > 0 or -x > 0
        c2 = calls
        q = -1
        if eager or x & 1:
            q = 3 * x
        rr = x if x & 1 else 7
        if eager or x > 4:
            log[i * 2] = x
        if eager or not x > 4:
            log[i * 2 + 1] = -x
        s = x if x > 4 else -x
        if eager or x < 0:
            count += 1
        h = x < 0
        ws = (32 if eager else len(odd)) if x & 1 else 0
        wb = (32 if eager else len(above8)) if x > 8 else 100
        if eager:
            asg = 9                   # both assignments run, left to right
        else:
            asg = 5 if x == 3 else 9
        a2 = 5 if x == 3 else 9
        flags = int(t1) | int(t2) << 1 | int(h) << 2
        out += [v, idx, flags, c1, c2, q, rr, s, ws, wb, asg, a2]
    name = 'hv%d_eager' % year if eager else 'hv2021_short_circuit'
    what = ('HLSL %d (-HV %d): && || ?: evaluate every operand, so the calls, out arguments, '
            'buffer writes, atomics, assignments and wave operations of the unchosen side all happen'
            % (year, year)) if eager else (
            'HLSL 2021 (-HV 2021): && || ?: short-circuit, so the unchosen side of each does not run')
    t = T(name, '''HLSL versions: %s (the same kernel as hv%s).
WaveActiveSum/CountBits count the lanes that evaluate them (one wave of 32). Data has n = 24
elements and is the last buffer in memory: its reads past the end are never needed and never
fault.''' % (what, '2021_short_circuit' if eager else '2018_eager'), EAGER_HLSL,
          run='-T cs_6_0 -HV %d' % year)
    t.buf('Params', 'UInt32', [n, 0, 0, 0], CB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.out('Log', 'Int32', log, RWSB, 1, fill=log_fill)
    t.out('Count', 'UInt32', [count], RWSB, 2)
    t.buf('Data', 'Int32', data, SB, 0)
    t.write()


@test
def hv2018_eager():
    eager_test(2018)


@test
def hv2021_short_circuit():
    eager_test(2021)


VECTOR_HLSL = r'''
// HLSL 2018: ?: with a vector condition chooses per component (a scalar branch splats), && and
// || are element-wise on vectors (float operands compare with 0).
RWStructuredBuffer<float> OutF : register(u0);
RWStructuredBuffer<int> OutI : register(u1);
StructuredBuffer<float4> In : register(t0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  float4 v = In[i];
  float4 w = In[7 - i];
  float4 mx = v > w ? v : w;
  float4 ab = v < 0 ? -v : v;
  int3 sg = v.xyz > 0 ? 1 : (v.xyz < 0 ? -1 : 0);
  bool4 both = v > 0 && w > 0;
  bool4 either = v > 0 || w > 0;
  bool2 nz = float2(v.x, 0) && true;
  uint o = i * 8;
  OutF[o + 0] = mx.x;
  OutF[o + 1] = mx.y;
  OutF[o + 2] = mx.z;
  OutF[o + 3] = mx.w;
  OutF[o + 4] = ab.x;
  OutF[o + 5] = ab.y;
  OutF[o + 6] = ab.z;
  OutF[o + 7] = ab.w;
  uint p = i * 6;
  OutI[p + 0] = sg.x;
  OutI[p + 1] = sg.y;
  OutI[p + 2] = sg.z;
  OutI[p + 3] = (both.x ? 1 : 0) | (both.y ? 2 : 0) | (both.z ? 4 : 0) | (both.w ? 8 : 0);
  OutI[p + 4] = (either.x ? 1 : 0) | (either.y ? 2 : 0) | (either.z ? 4 : 0) | (either.w ? 8 : 0);
  OutI[p + 5] = (nz.x ? 1 : 0) | (nz.y ? 2 : 0);
}
'''

AGGREGATE_HLSL = r'''
// HLSL 2018: ?: with a matrix condition chooses per element, a scalar condition chooses whole
// structs, and constants (static const values, an array size) fold through ?: and &&.
struct Pair {
  float a;
  int b;
};
RWStructuredBuffer<float> OutF : register(u0);
RWStructuredBuffer<int> OutI : register(u1);
StructuredBuffer<float4> In : register(t0);

static const int K = (3 > 2) ? 10 : 20;
static const int2 KV = bool2(true, false) ? int2(1, 2) : int2(3, 4);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  float4 v = In[i];
  float4 w = In[7 - i];
  float2x2 m = float2x2(v);
  float2x2 n = float2x2(w);
  float2x2 mm = m < n ? m : n;
  Pair p = { v.x, 1 };
  Pair q = { w.x, 2 };
  Pair pq = (v.y > w.y) ? p : q;
  float s = (i & 1) ? v.w : 2;
  int arr[(2 > 1) && true ? 3 : 5];
  uint o = i * 6;
  OutF[o + 0] = mm._m00;
  OutF[o + 1] = mm._m01;
  OutF[o + 2] = mm._m10;
  OutF[o + 3] = mm._m11;
  OutF[o + 4] = pq.a;
  OutF[o + 5] = s;
  OutI[i * 2 + 0] = pq.b;
  OutI[i * 2 + 1] = K + KV.x * 100 + KV.y * 1000 + (int)(sizeof(arr) / 4) * 10000;
}
'''


def vector_inputs():
    r = Rng(77)
    return [[r.pick([-3.5, -2, -1.25, -0.5, 0, 0.5, 1, 1.75, 2.5, 4]) for _ in range(4)] for _ in range(8)]


@test
def hv2018_vectors():
    ins = vector_inputs()
    outf, outi = [], []

    def sgn(a):
        return 1 if a > 0 else (-1 if a < 0 else 0)

    def bits(bs):
        return sum(int(b) << k for k, b in enumerate(bs))
    for i in range(8):
        v, w = ins[i], ins[7 - i]
        mx = [a if a > b else b for a, b in zip(v, w)]
        ab = [-a if a < 0 else a for a in v]
        outf += [f32(x) for x in mx + ab]
        outi += [sgn(a) for a in v[:3]]
        outi += [bits(a > 0 and b > 0 for a, b in zip(v, w)), bits(a > 0 or b > 0 for a, b in zip(v, w)),
                 bits([v[0] != 0, False])]
    t = T('hv2018_vectors', '''HLSL 2018 (-HV 2018): ?: with vector conditions chooses per component, with scalar branches
splatted; && and || on vectors are element-wise (floats compare with 0).''', VECTOR_HLSL, run='-T cs_6_0 -HV 2018')
    t.out('OutF', 'Float32', outf, RWSB, 0)
    t.out('OutI', 'Int32', outi, RWSB, 1)
    t.buf('In', 'Float32', [x for v in ins for x in v], SB, 0)
    t.write()


@test
def hv2018_select_aggregates():
    ins = vector_inputs()
    outf, outi = [], []
    for i in range(8):
        v, w = ins[i], ins[7 - i]
        mm = [a if a < b else b for a, b in zip(v, w)]   # float2x2(v) takes v's components row by row
        pq = (v[0], 1) if v[1] > w[1] else (w[0], 2)
        s = v[3] if i & 1 else 2.0
        outf += [f32(x) for x in mm] + [f32(pq[0]), f32(s)]
        outi += [pq[1], 10 + 1 * 100 + 4 * 1000 + 3 * 10000]
    t = T('hv2018_select_aggregates', '''HLSL 2018 (-HV 2018): ?: with a matrix condition chooses per element; a scalar ?: chooses a
whole struct; static const values and an array size fold through ?: and &&.''', AGGREGATE_HLSL,
          run='-T cs_6_0 -HV 2018')
    t.out('OutF', 'Float32', outf, RWSB, 0)
    t.out('OutI', 'Int32', outi, RWSB, 1)
    t.buf('In', 'Float32', [x for v in ins for x in v], SB, 0)
    t.write()


@test
def hv2016_for_scope():
    hlsl = r'''
// HLSL 2016 (the pre-2021 rules): a for-init variable lives on after its loop (with the value
// it had when the loop ended, by its condition or by break, unrolled or not); a later for that
// declares the same name (warning W0206) makes a new variable, which is the one used after it,
// also when it has another type; a loop inside a block leaks into that block only.
RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<int> In : register(t0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  int lim = In[i];
  for (int k = 0; k < lim; k++) {
    if (k * k > 20)
      break;
  }
  int afterFirst = k;
  int acc = 0;
  for (int k = 10; k > lim; k -= 3)
    acc += k;
  int afterSecond = k;
  [unroll] for (int u = 0; u < 4; u++) {
    if (u == (int)(i & 3))
      break;
  }
  int afterUnroll = u;
  {
    for (uint j = 0; j < 3; j++)
      acc += 1;
    acc += j * 100;
  }
  int m = 7;
  for (float m = 0.5; m < lim; m += 2.0)
    acc += 1000;
  Out[i * 5 + 0] = afterFirst;
  Out[i * 5 + 1] = afterSecond;
  Out[i * 5 + 2] = acc;
  Out[i * 5 + 3] = afterUnroll;
  Out[i * 5 + 4] = (int)(m * 2);
}
'''
    ins = [0, 3, 9, 5, 1, 7, 4, 12]
    out = []
    for i, lim in enumerate(ins):
        k = 0
        while k < lim:
            if k * k > 20:
                break
            k += 1
        after_first = k
        acc = 0
        k = 10
        while k > lim:
            acc += k
            k -= 3
        after_second = k
        u = 0
        while u < 4:
            if u == i & 3:
                break
            u += 1
        acc += 3 + 3 * 100
        m = 0.5
        while m < lim:
            acc += 1000
            m += 2.0
        out += [after_first, after_second, acc, u, int(m * 2)]
    t = T('hv2016_for_scope', '''HLSL 2016 (-HV 2016, the same rules as 2018): for-init variables outlive their loop (after
a condition exit, a break, an [unroll]ed loop's break); a second for declaring the same name
(W0206) shadows the first, also with another type; a loop in a block leaks into the block only.''',
          hlsl, run='-T cs_6_0 -HV 2016')
    t.out('Out', 'Int32', out, RWSB, 0)
    t.buf('In', 'Int32', ins, SB, 0)
    t.write()


@test
def hv2018_struct_layout():
    hlsl = r'''
// HLSL 2018: structs with the same layout (the same scalars in order) convert implicitly: in an
// initializer, as an argument, as a function's result; an exact overload still wins.
struct LinearRGB {
  float3 rgb;
};
struct LinearYCoCg {
  float3 ycocg;
};
struct Particle {
  float3 pos;
  float mass;
};
struct Body {
  float3 center;
  float weight;
};

float luma(LinearRGB c) {
  return c.rgb.g * 2 + c.rgb.r + c.rgb.b;
}

Particle drift(Particle p, float dt) {
  p.pos += dt;
  return p;
}

float weightOf(Particle p) { return p.mass; }
float weightOf(Body b) { return -b.weight; }

RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<Body> Bodies : register(t0);

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Body b = Bodies[i];
  Particle p = b;
  Body moved = drift(b, 0.5);
  LinearYCoCg y;
  y.ycocg = b.center;
  float l = luma(y);
  Out[i * 7 + 0] = p.mass;
  Out[i * 7 + 1] = moved.center.x;
  Out[i * 7 + 2] = moved.center.y;
  Out[i * 7 + 3] = moved.center.z;
  Out[i * 7 + 4] = moved.weight;
  Out[i * 7 + 5] = l;
  Out[i * 7 + 6] = weightOf(b) + weightOf(p) * 10;
}
'''
    r = Rng(5)
    bodies = [[r.pick([-2.5, -1, 0, 0.25, 1.5, 3, 4.75]) for _ in range(4)] for _ in range(4)]
    out = []
    for c0, c1, c2, wt in bodies:
        lum = f32(f32(f32(c1 * 2) + c0) + c2)
        out += [wt, f32(c0 + 0.5), f32(c1 + 0.5), f32(c2 + 0.5), wt, lum, f32(-wt + f32(wt * 10))]
    t = T('hv2018_struct_layout', '''HLSL 2018 (-HV 2018): structs of the same layout convert implicitly (initializer, argument,
result); overload resolution still prefers the exact type.''', hlsl, run='-T cs_6_0 -HV 2018')
    t.out('Out', 'Float32', out, RWSB, 0)
    t.buf('Bodies', 'Float32', [x for b in bodies for x in b], SB, 0, Stride=16)
    t.write()


@test
def hv_unity_compute():
    hlsl = r'''
// A Unity .compute file compiled without -HV: HLSL 2018 rules, as FXC (which Unity uses)
// follows them: a vector ?: condition, a for variable used after its loop, and
// __HLSL_VERSION = 2018.
#pragma kernel CSMain

float4 Threshold;
RWStructuredBuffer<int> Result;

[numthreads(8, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) {
  float4 v = float4(id.x, id.x * 2, 7.0 - id.x, 3);
  int4 above = v > Threshold ? 1 : -1;
  for (int k = 0; k < (int)(id.x % 3); k++) {
  }
  Result[id.x * 6 + 0] = above.x;
  Result[id.x * 6 + 1] = above.y;
  Result[id.x * 6 + 2] = above.z;
  Result[id.x * 6 + 3] = above.w;
  Result[id.x * 6 + 4] = k;
  Result[id.x * 6 + 5] = __HLSL_VERSION;
}
'''
    thr = [3.5, 6.0, 2.0, 3.0]
    out = []
    for x in range(8):
        v = [x, x * 2, 7.0 - x, 3]
        out += [1 if a > b else -1 for a, b in zip(v, thr)] + [x % 3, 2018]
    t = T('hv_unity_compute', '''HLSL versions: a Unity `kernel.compute` source without -HV follows HLSL 2018 rules (Unity
compiles .compute files with FXC): vector ?: per component, for variables after the loop,
__HLSL_VERSION 2018. $Globals (Threshold) at b0, Result at u0 by implicit binding.''', hlsl,
          entry='CSMain', source_name='kernel.compute')
    t.buf('Globals', 'Float32', thr, CB, 0)
    t.out('Result', 'Int32', out, RWSB, 0)
    t.write()


@test
def lit_forms():
    hlsl = r'''
// Literal forms DXC accepts (HLSL 2021): binary literals with suffixes, swizzles of integer and
// float literals (2.xx, 1.5.xxx, (3).xxxx, 7.r), unsuffixed literals as 64-bit `literal int`
// folded in 64 bits and truncated to 32 when they meet a 32-bit type (W0207), and Vulkan
// specialization constants, which take their default values (W0208).
[[vk::constant_id(0)]] const uint Stride = 3;
[[vk::constant_id(1)]] const bool Negate = true;
[[vk::constant_id(2)]] const float Gain = 1.5;

RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t0);

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  uint x = In[i];
  uint o = i * 16;
  Out[o + 0] = x & 0b1010;
  Out[o + 1] = x | 0B1u;
  Out[o + 2] = 0b11111111 ^ x;
  uint2 s2 = 2.xx * x;
  Out[o + 3] = s2.x + s2.y;
  float3 f3 = 1.5.xxx;
  Out[o + 4] = (uint)(f3.z * 2) + x;
  Out[o + 5] = ((3).xxxx * x).w;
  Out[o + 6] = 7.r + x;
  Out[o + 7] = x + 0x100000000;
  Out[o + 8] = x * (0x100000000 >> 4);
  Out[o + 9] = (65536 * 65536 / 65536) + x;
  Out[o + 10] = x ^ 5000000000;
  Out[o + 11] = (0xFFFFFFFF == -1) ? 1 : 2;
  Out[o + 12] = Negate ? Stride * x : x;
  Out[o + 13] = (uint)(Gain * x);
  Out[o + 14] = asuint((float)5000000000);
  Out[o + 15] = ((1 << 32) | x) + (-(-5000000000) - 4999999999);
}
'''
    ins = [0, 13, 200, 1023]
    out = []
    for x in ins:
        out += [x & 0b1010, x | 1, 0xFF ^ x, u32(4 * x), 3 + x, u32(3 * x), 7 + x, x,
                u32(x * 0x10000000), 65536 + x, x ^ (5000000000 & 0xFFFFFFFF), 2,
                u32(3 * x), int(f32(1.5 * x)), f32_bits(5000000000.0), x + 1]
    t = T('lit_forms', '''Literals: binary literals (0b1010, 0B1u), swizzles of literals (2.xx, 1.5.xxx, (3).xxxx,
7.r), unsuffixed literals as 64-bit values folded in 64 bits (0x100000000 >> 4, 65536*65536/65536,
0xFFFFFFFF == -1 is false) and truncated to 32 bits when they meet a uint (W0207), and
[[vk::constant_id]] specialization constants at their default values (W0208).''', hlsl)
    t.out('Out', 'UInt32', out, RWSB, 0)
    t.buf('In', 'UInt32', ins, SB, 0)
    t.write()
