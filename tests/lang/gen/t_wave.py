"""Item 10 of the language issue: wave intrinsics, in uniform and divergent control flow.

Every test is written twice from one model: NAME.test with expectations for waves of 32 lanes
(the generic target) and NAME_w64.test for 64 lanes (run it with --target gcn). The model
assumes what every D3D12 driver does for 1D groups and wavesim does: a wave holds consecutive
SV_GroupIndex values, wave w of a group holds group indices [w*W, (w+1)*W), and a group whose
size is not a multiple of W ends with a partial wave whose missing lanes are inactive.
Active lanes in divergent code are the lanes of the wave that execute the intrinsic."""
import math

from lib import T, SB, RWSB, CB, f32, i32, u32, f32_bits, fadd, fmul, waves_of, Rng

TESTS = []


def test(fn):
    TESTS.append(lambda: fn(32))
    TESTS.append(lambda: fn(64))
    TESTS[-2].__name__ = fn.__name__
    TESTS[-1].__name__ = fn.__name__ + '_w64'
    return fn


def name_for(base, W):
    return base if W == 32 else base + '_w64'


def notes_for(W):
    if W == 32:
        return ['Expectations for waves of 32 lanes (the generic target); %s_w64.test has them for 64.']
    return ['Expectations for waves of 64 lanes (W = 64), on the gcn target:', 'wavec: --target gcn']


def mk(base, W, desc, hlsl, groups):
    n = notes_for(W)
    n = [x % base if '%s' in x else x for x in n]
    return T(name_for(base, W), desc, hlsl, groups=groups, notes=n)


def ballot4(bits):
    return [(bits >> (32 * k)) & 0xFFFFFFFF for k in range(4)]


def prod32(vals):
    p = 1
    for v in vals:
        p = i32(p * v)
    return p


def fsum(vals):
    acc = 0.0
    for v in vals:
        acc = fadd(acc, v)
    return acc


def fprod(vals):
    acc = 1.0
    for v in vals:
        acc = fmul(acc, v)
    return acc


@test
def wave_basics(W):
    hlsl = r'''
// WaveGetLaneIndex, WaveGetLaneCount, WaveIsFirstLane, WaveReadLaneFirst, WaveReadLaneAt with a
// constant and with a uniform lane from a cbuffer (int and float), in groups of 48 threads (a
// partial wave at the end of each group when the wave width does not divide 48).
cbuffer Params : register(b0) {
  uint readLane;
};
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(48, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
  int v = In[dtid.x];
  uint lane = WaveGetLaneIndex();
  uint o = dtid.x * 8;
  Out[o + 0] = lane;
  Out[o + 1] = WaveGetLaneCount();
  Out[o + 2] = WaveIsFirstLane() ? 1 : 0;
  Out[o + 3] = (uint)WaveReadLaneFirst(v);
  Out[o + 4] = (uint)WaveReadLaneAt(v, 5);
  Out[o + 5] = (uint)WaveReadLaneAt(v, readLane);
  Out[o + 6] = asuint(WaveReadLaneAt((float)v * 0.5f, 2));
  Out[o + 7] = gi - lane;
}
'''
    G, groups, read_lane = 48, 2, 11
    r = Rng(71)
    ins = [r.int(-1000, 1000) for _ in range(G * groups)]
    out = [0] * (G * groups * 8)
    for g in range(groups):
        for wave in waves_of(G, W):
            vals = [ins[g * G + gi] for gi in wave]
            for lane, gi in enumerate(wave):
                t = g * G + gi
                out[t * 8:t * 8 + 8] = [lane, W, int(lane == 0), u32(vals[0]), u32(vals[5]), u32(vals[read_lane]),
                                        f32_bits(fmul(float(vals[2]), 0.5)), wave[0]]
    t = mk('wave_basics', W, '''Wave intrinsics: lane index, lane count, first lane, WaveReadLaneFirst, WaveReadLaneAt(v, 5),
WaveReadLaneAt(v, readLane) with readLane = 11 from a cbuffer, WaveReadLaneAt of a float, and
the group index of each wave's lane 0 (lanes are consecutive group indices); groups of 48.''', hlsl, [groups])
    t.buf('Params', 'UInt32', [read_lane, 0, 0, 0], CB, 0)
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def wave_read_lane_varying(W):
    hlsl = r'''
// WaveReadLaneAt with a lane index that differs per lane (allowed since 2020): a rotation by one
// lane within the wave, a reversal, and a float read from the lane named by the data; groups of 64.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  int v = In[dtid.x];
  uint lane = WaveGetLaneIndex();
  uint n = WaveGetLaneCount();
  uint o = dtid.x * 3;
  Out[o + 0] = WaveReadLaneAt(v, (lane + n - 1) % n);
  Out[o + 1] = WaveReadLaneAt(v, n - 1 - lane);
  Out[o + 2] = (int)WaveReadLaneAt((float)v * 2.0f, (uint)v & (n - 1));
}
'''
    G, groups = 64, 2
    r = Rng(83)
    ins = [r.int(0, 10000) for _ in range(G * groups)]
    out = [0] * (G * groups * 3)
    for g in range(groups):
        for wave in waves_of(G, W):
            vals = [ins[g * G + gi] for gi in wave]
            for lane, gi in enumerate(wave):
                t = g * G + gi
                v = vals[lane]
                out[t * 3:t * 3 + 3] = [vals[(lane + W - 1) % W], vals[W - 1 - lane], vals[v & (W - 1)] * 2]
    t = mk('wave_read_lane_varying', W, '''Wave intrinsics: WaveReadLaneAt with a per-lane lane index (rotation, reversal, an index
from the data), in full waves (groups of 64).''', hlsl, [groups])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def wave_quad_reads(W):
    hlsl = r'''
// Quad reads: a quad is four consecutive lanes; QuadReadAcrossX reads the horizontal
// neighbour (lane ^ 1), Y the vertical one (lane ^ 2), Diagonal lane ^ 3, and QuadReadLaneAt
// a given lane of the quad (int, float and a per-lane quad lane index).
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  int v = In[dtid.x];
  uint o = dtid.x * 6;
  Out[o + 0] = QuadReadAcrossX(v);
  Out[o + 1] = QuadReadAcrossY(v);
  Out[o + 2] = QuadReadAcrossDiagonal(v);
  Out[o + 3] = (int)QuadReadAcrossX((float)v * 0.5f);
  Out[o + 4] = QuadReadLaneAt(v, 2);
  Out[o + 5] = QuadReadLaneAt(v, (uint)v);
}
'''
    G, groups = 64, 2
    r = Rng(97)
    ins = [r.int(0, 10000) for _ in range(G * groups)]
    out = [0] * (G * groups * 6)
    for g in range(groups):
        for wave in waves_of(G, W):
            vals = [ins[g * G + gi] for gi in wave]
            for lane, gi in enumerate(wave):
                t = g * G + gi
                v = vals[lane]
                q = lane & ~3
                out[t * 6:t * 6 + 6] = [vals[lane ^ 1], vals[lane ^ 2], vals[lane ^ 3], int(vals[lane ^ 1] * 0.5),
                                        vals[q | 2], vals[q | (v & 3)]]
    t = mk('wave_quad_reads', W, '''Quad intrinsics: QuadReadAcrossX/Y/Diagonal (int and float) and QuadReadLaneAt with a
constant and a per-lane index, in full waves (groups of 64).''', hlsl, [groups])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def wave_ops_in_conditions(W):
    hlsl = r'''
// A wave operation on one side of `?:`, `&&` or `||` runs only in the lanes that take that
// side (HLSL 2021 short-circuits), so its result covers just those lanes.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint i : SV_GroupIndex) {
  uint lane = WaveGetLaneIndex();
  uint a = lane < 5 ? WaveActiveSum(lane + 1) : 100;
  uint b = (lane & 1) ? WaveActiveCountBits(true) : WavePrefixSum(1u);
  bool c = (lane > 20) && WaveActiveAllTrue(lane > 25);
  bool d = (lane < 3) || WaveActiveAnyTrue(lane == 7);
  uint o = i * 4;
  Out[o + 0] = a;
  Out[o + 1] = b;
  Out[o + 2] = c ? 1 : 0;
  Out[o + 3] = d ? 1 : 0;
}
'''
    G = 64
    out = [0] * (G * 4)
    for wave in waves_of(G, W):
        for lane, gi in enumerate(wave):
            a = sum(range(1, 6)) if lane < 5 else 100
            b = W // 2 if lane & 1 else lane // 2
            c = 1 if lane > 20 and all(l > 25 for l in range(21, W)) else 0
            d = 1 if lane < 3 or any(l == 7 for l in range(3, W)) else 0
            out[gi * 4:gi * 4 + 4] = [a, b, c, d]
    t = mk('wave_ops_in_conditions', W, '''Wave intrinsics under short-circuit operators: WaveActiveSum, WaveActiveCountBits and
WavePrefixSum in the arms of ?:, WaveActiveAllTrue after &&, WaveActiveAnyTrue after || see
only the lanes that evaluate them.''', hlsl, [1])
    t.out('Out', 'UInt32', out, RWSB, 0)
    t.write()


@test
def wave_active_int(W):
    hlsl = r'''
// WaveActive* reductions on int and uint in uniform control flow: Sum, Product, Min, Max
// (signed for int, unsigned for uint), BitAnd, BitOr, BitXor, CountBits, AllTrue, AnyTrue,
// AllEqual, Ballot. Every lane writes the wave's result.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID) {
  int v = In[dtid.x];
  uint u = (uint)v;
  uint o = dtid.x * 16;
  Out[o + 0] = (uint)WaveActiveSum(v);
  Out[o + 1] = WaveActiveSum(u & 0xFFFF);
  Out[o + 2] = (uint)WaveActiveProduct((v & 2) | 1);
  Out[o + 3] = (uint)WaveActiveMin(v);
  Out[o + 4] = (uint)WaveActiveMax(v);
  Out[o + 5] = WaveActiveMin(u);
  Out[o + 6] = WaveActiveMax(u);
  Out[o + 7] = WaveActiveBitAnd(u | 0xF0000000);
  Out[o + 8] = WaveActiveBitOr(u & 0x0F0F);
  Out[o + 9] = WaveActiveBitXor(u);
  Out[o + 10] = WaveActiveCountBits(v > 0);
  uint flags = 0;
  flags |= WaveActiveAllTrue(v > -900) ? 1u : 0u;
  flags |= WaveActiveAnyTrue(v > 900) ? 2u : 0u;
  flags |= WaveActiveAllEqual(v >> 8) ? 4u : 0u;
  flags |= WaveActiveAllEqual(gid.x) ? 8u : 0u;
  Out[o + 11] = flags;
  uint4 b = WaveActiveBallot((v & 1) != 0);
  Out[o + 12] = b.x;
  Out[o + 13] = b.y;
  Out[o + 14] = b.z;
  Out[o + 15] = b.w;
}
'''
    G, groups = 64, 2
    r = Rng(72)
    ins = []
    for g in range(groups):
        for k in range(G):
            if g == 0 and k < 32:
                v = r.int(256, 511)          # v >> 8 is 1 on the whole first 32 lanes
            elif g == 1 and k == 40:
                v = -950                     # one lane fails v > -900
            elif g == 1 and k == 10:
                v = 999                      # one lane passes v > 900
            else:
                v = r.int(-800, 800)
            ins.append(v)
    out = [0] * (G * groups * 16)
    for g in range(groups):
        for wave in waves_of(G, W):
            vs = [ins[g * G + gi] for gi in wave]
            us = [u32(v) for v in vs]
            band, bor, bxor = 0xFFFFFFFF, 0, 0
            for u in us:
                band &= u | 0xF0000000
                bor |= u & 0x0F0F
                bxor ^= u
            flags = int(all(v > -900 for v in vs)) | int(any(v > 900 for v in vs)) << 1 | \
                int(len(set(v >> 8 for v in vs)) == 1) << 2 | 8
            bits = sum(1 << l for l, v in enumerate(vs) if v & 1)
            res = [u32(sum(vs)), u32(sum(u & 0xFFFF for u in us)), u32(prod32([(v & 2) | 1 for v in vs])),
                   u32(min(vs)), u32(max(vs)), min(us), max(us), band, bor, bxor, sum(v > 0 for v in vs), flags] + \
                ballot4(bits)
            for gi in wave:
                t = g * G + gi
                out[t * 16:t * 16 + 16] = res
    t = mk('wave_active_int', W, '''Wave intrinsics on integers, uniform control flow: WaveActiveSum (int, uint), Product (wrapping),
Min/Max (signed on int, unsigned on uint), BitAnd/BitOr/BitXor, CountBits, AllTrue, AnyTrue,
AllEqual (true on a wave whose v >> 8 is uniform, and on SV_GroupID), Ballot (all four words).''',
           hlsl, [groups])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def wave_float(W):
    hlsl = r'''
// Wave intrinsics on floats: WaveActiveSum/Product/Min/Max, AllEqual, ReadLaneFirst, the float2
// form of WaveActiveSum, WavePrefixSum and WavePrefixProduct. The values are dyadic (sums of
// multiples of 1/4, products of powers of two), so every summation order gives the same bits.
StructuredBuffer<float> In : register(t0);
StructuredBuffer<float> P : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  float f = In[dtid.x];
  float p = P[dtid.x];
  uint o = dtid.x * 10;
  Out[o + 0] = WaveActiveSum(f);
  Out[o + 1] = WaveActiveProduct(p);
  Out[o + 2] = WaveActiveMin(f);
  Out[o + 3] = WaveActiveMax(f);
  Out[o + 4] = WaveActiveAllEqual(floor(f / 1024.0f)) ? 1.0f : 0.0f;
  Out[o + 5] = WaveReadLaneFirst(f);
  float2 s2 = WaveActiveSum(float2(f, 1.0f));
  Out[o + 6] = s2.y;
  Out[o + 7] = WavePrefixSum(f);
  Out[o + 8] = WavePrefixProduct(p);
  Out[o + 9] = WavePrefixSum(1.0f) + s2.x;
}
'''
    G, groups = 64, 2
    r = Rng(73)
    # the first 32 lanes of group 0 are positive: floor(f / 1024) is 0 on all of them
    ins = [f32((1 if (g == 0 and k < 32) else r.pick([-1, 1])) * r.int(1, 400) / 4)
           for g in range(groups) for k in range(G)]
    ps = [r.pick([1.0, 2.0, 0.5, -1.0, -2.0, -0.5]) for _ in range(G * groups)]
    out = [0.0] * (G * groups * 10)
    for g in range(groups):
        for wave in waves_of(G, W):
            fs = [ins[g * G + gi] for gi in wave]
            pp = [ps[g * G + gi] for gi in wave]
            assert fsum(fs) == sum(fs)
            tot = fsum(fs)
            for lane, gi in enumerate(wave):
                t = g * G + gi
                eq = 1.0 if len(set(math.floor(f / 1024) for f in fs)) == 1 else 0.0
                out[t * 10:t * 10 + 10] = [tot, fprod(pp), min(fs), max(fs), eq, fs[0], float(len(fs)),
                                           fsum(fs[:lane]), fprod(pp[:lane]), fadd(float(lane), tot)]
    t = mk('wave_float', W, '''Wave intrinsics on float: WaveActiveSum, Product, Min, Max, AllEqual, ReadLaneFirst, the float2
WaveActiveSum, WavePrefixSum and WavePrefixProduct (exclusive: lane 0 gets 0 and 1). Dyadic
values: exact in any order.''', hlsl, [groups])
    t.buf('In', 'Float32', ins, SB, 0)
    t.buf('P', 'Float32', ps, SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def wave_prefix(W):
    hlsl = r'''
// Exclusive prefix operations on integers: WavePrefixSum (int, uint), WavePrefixProduct
// (wrapping), WavePrefixCountBits of a predicate and of true (= the lane index here).
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(96, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  int v = In[dtid.x];
  uint o = dtid.x * 5;
  Out[o + 0] = (uint)WavePrefixSum(v);
  Out[o + 1] = WavePrefixSum((uint)v & 0xFF);
  Out[o + 2] = (uint)WavePrefixProduct((v & 1) != 0 ? -1 : 3);
  Out[o + 3] = WavePrefixCountBits(v > 0);
  Out[o + 4] = WavePrefixCountBits(true);
}
'''
    G, groups = 96, 1
    r = Rng(74)
    ins = [r.int(-5000, 5000) for _ in range(G * groups)]
    out = [0] * (G * groups * 5)
    for g in range(groups):
        for wave in waves_of(G, W):
            vs = [ins[g * G + gi] for gi in wave]
            for lane, gi in enumerate(wave):
                t = g * G + gi
                below = vs[:lane]
                out[t * 5:t * 5 + 5] = [u32(sum(below)), sum(u32(v) & 0xFF for v in below),
                                        u32(prod32([-1 if v & 1 else 3 for v in below])), sum(v > 0 for v in below),
                                        lane]
    t = mk('wave_prefix', W, '''Wave intrinsics: exclusive WavePrefixSum (int and uint), WavePrefixProduct (wrapping at 32 bits),
WavePrefixCountBits of a predicate and of true, in groups of 96 (three waves of 32, or a wave of
64 and a partial one of 32).''', hlsl, [groups])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def wave_divergent(W):
    hlsl = r'''
// Wave intrinsics in divergent control flow: the active lanes are those executing the call.
// if (lane & 1) / else, a data-dependent if, a loop whose trip count differs per lane (fewer
// lanes each iteration), and lanes that returned early. Groups of 80 threads.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Late : register(u1);

[numthreads(80, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  uint lane = WaveGetLaneIndex();
  int v = In[dtid.x];
  uint o = dtid.x * 10;
  uint r0, r1, r2, r3;
  uint4 b;
  if (lane & 1) {
    r0 = (uint)WaveActiveSum(v);
    r1 = WavePrefixCountBits(true);
    r2 = WaveIsFirstLane() ? 1 : 0;
    r3 = (uint)WaveReadLaneFirst(v);
    b = WaveActiveBallot(v > 0);
  } else {
    r0 = (uint)WaveActiveMax(v);
    r1 = WaveActiveCountBits(v > 0);
    r2 = WaveIsFirstLane() ? 1 : 0;
    r3 = (uint)WavePrefixSum(v);
    b = WaveActiveBallot(true);
  }
  uint r4 = 0;
  if (v > 10)
    r4 = WaveActiveCountBits(true) * 100000 + (uint)WaveActiveMin(v);
  uint acc = 0;
  for (uint k = 0; k <= lane % 4; ++k)
    acc += WaveActiveSum(k + 1) * 1000 + WaveActiveCountBits(true);
  Out[o + 0] = r0;
  Out[o + 1] = r1;
  Out[o + 2] = r2;
  Out[o + 3] = r3;
  Out[o + 4] = b.x;
  Out[o + 5] = b.y;
  Out[o + 6] = r4;
  Out[o + 7] = acc;
  Out[o + 8] = lane;
  Out[o + 9] = 0;
  if (v < -50)
    return;
  Late[dtid.x] = WaveActiveCountBits(true) * 1000 + (uint)WavePrefixSum(1);
}
'''
    G, groups = 80, 2
    r = Rng(75)
    ins = [r.int(-100, 100) for _ in range(G * groups)]
    out = [0] * (G * groups * 10)
    late = [0xFFFFFFFF] * (G * groups)
    for g in range(groups):
        for wave in waves_of(G, W):
            vs = [ins[g * G + gi] for gi in wave]
            n = len(wave)
            odd = [l for l in range(n) if l & 1]
            even = [l for l in range(n) if not l & 1]
            big = [l for l in range(n) if vs[l] > 10]
            stay = [l for l in range(n) if not vs[l] < -50]
            for lane, gi in enumerate(wave):
                t = g * G + gi
                if lane & 1:
                    grp = odd
                    r0 = u32(sum(vs[l] for l in grp))
                    r1 = sum(1 for l in grp if l < lane)
                    r2 = int(lane == grp[0])
                    r3 = u32(vs[grp[0]])
                    bits = sum(1 << l for l in grp if vs[l] > 0)
                else:
                    grp = even
                    r0 = u32(max(vs[l] for l in grp))
                    r1 = sum(1 for l in grp if vs[l] > 0)
                    r2 = int(lane == grp[0])
                    r3 = u32(sum(vs[l] for l in grp if l < lane))
                    bits = sum(1 << l for l in grp)
                r4 = len(big) * 100000 + u32(min(vs[l] for l in big)) if vs[lane] > 10 else 0
                r4 = u32(r4)
                acc = 0
                for k in range(lane % 4 + 1):
                    active = [l for l in range(n) if l % 4 >= k]
                    acc += (k + 1) * len(active) * 1000 + len(active)
                b = ballot4(bits)
                out[t * 10:t * 10 + 10] = [r0, r1, r2, r3, b[0], b[1], r4, acc, lane, 0]
                if lane in stay:
                    late[t] = len(stay) * 1000 + sum(1 for l in stay if l < lane)
    t = mk('wave_divergent', W, '''Wave intrinsics in divergent control flow: under if (lane & 1) and its else (Sum, Max, CountBits,
PrefixCountBits, PrefixSum, IsFirstLane, ReadLaneFirst, Ballot over the lanes of one side),
under a data-dependent if (CountBits, Min), in a loop running lane % 4 + 1 times (the active set
shrinks), and after some lanes returned (Late keeps 0xffffffff for them). Groups of 80 threads:
the last wave of each group is partial.''', hlsl, [groups])
    t.buf('In', 'Int32', ins, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.out('Late', 'Hex32', late, RWSB, 1, fill=0xFFFFFFFF)
    t.write()


@test
def wave_partial_warp(W):
    hlsl = r'''
// A 5x3x2 group (30 threads: one partial warp) with wave operations, groupshared memory, a
// barrier, atomics and a loop whose trip count differs per thread. On --isa wave-0.1.2 it runs in
// groups of 32 threads whose last two do nothing (pad-warps); every id it reads is the one the
// declared group gives.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Count : register(u1);
groupshared uint Shared[30];

[numthreads(5, 3, 2)]
void main(uint3 gt : SV_GroupThreadID, uint3 g : SV_GroupID, uint3 dt : SV_DispatchThreadID,
          uint gi : SV_GroupIndex) {
  uint flat = (g.y * 2 + g.x) * 30 + gi;
  uint v = In[dt.x + 10 * dt.y + 60 * dt.z];
  Shared[gi] = v;
  InterlockedAdd(Count[0], 1);
  InterlockedMax(Count[1], flat);
  GroupMemoryBarrierWithGroupSync();
  uint nb = Shared[(gi + 7) % 30];
  uint lane = WaveGetLaneIndex();
  uint acc = 0;
  for (uint k = 0; k < gt.x; ++k)
    acc += WaveActiveCountBits(true) * (k + 1);
  uint o = flat * 8;
  Out[o + 0] = gt.x | (gt.y << 8) | (gt.z << 16);
  Out[o + 1] = dt.x | (dt.y << 8) | (dt.z << 16);
  Out[o + 2] = WaveActiveSum(v);
  Out[o + 3] = WaveActiveCountBits(nb > 50) * 100 + WavePrefixCountBits(true);
  Out[o + 4] = WaveActiveBallot((v & 1) != 0).x;
  Out[o + 5] = (WaveIsFirstLane() ? 1000 : 0) + WaveReadLaneFirst(v) + WaveGetLaneCount() * 10000
             + (WaveActiveAllTrue(v < 1000) ? 1000000 : 0) + (WaveActiveAnyTrue(v > 95) ? 2000000 : 0);
  Out[o + 6] = acc;
  Out[o + 7] = WaveActiveMax(nb) + (lane << 16);
}
'''
    X, Y, Z = 5, 3, 2
    G = X * Y * Z
    gx, gy = 2, 2
    r = Rng(30)
    ins = [r.int(0, 99) for _ in range(G * gx * gy)]
    out = [0] * (G * gx * gy * 8)
    for by in range(gy):
        for bx in range(gx):
            ids = []
            for gi in range(G):
                t = (gi % X, gi // X % Y, gi // (X * Y))
                d = (bx * X + t[0], by * Y + t[1], t[2])
                ids.append((t, d, ins[d[0] + 10 * d[1] + 60 * d[2]]))
            shared = [v for _, _, v in ids]
            for wave in waves_of(G, W):
                vs = [ids[gi][2] for gi in wave]
                nbs = [shared[(gi + 7) % G] for gi in wave]
                for lane, gi in enumerate(wave):
                    (tx, ty, tz), (dx, dy, dz), v = ids[gi]
                    flat = (by * gx + bx) * G + gi
                    acc = 0
                    for k in range(tx):
                        acc += sum(1 for l in wave if ids[l][0][0] > k) * (k + 1)
                    r5 = (1000 if lane == 0 else 0) + vs[0] + W * 10000
                    r5 += (1000000 if all(x < 1000 for x in vs) else 0) + (2000000 if any(x > 95 for x in vs) else 0)
                    out[flat * 8:flat * 8 + 8] = [
                        tx | ty << 8 | tz << 16,
                        dx | dy << 8 | dz << 16,
                        u32(sum(vs)),
                        sum(1 for x in nbs if x > 50) * 100 + lane,
                        sum(1 << l for l in range(len(wave)) if vs[l] & 1),
                        r5,
                        acc,
                        max(nbs) + (lane << 16),
                    ]
    t = mk('wave_partial_warp', W, '''Wave intrinsics in a 5x3x2 group (30 threads, a partial warp) with groupshared memory, a barrier,
atomics and a loop whose trip count differs per thread: SV_GroupThreadID, SV_DispatchThreadID and
SV_GroupIndex of a 3-D group, Sum, CountBits, PrefixCountBits, Ballot, IsFirstLane, ReadLaneFirst,
GetLaneCount, AllTrue, AnyTrue, Max. On --isa wave-0.1.2 the group runs padded to 32 threads.''', hlsl, [gx, gy])
    t.buf('In', 'UInt32', ins, SB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.out('Count', 'UInt32', [G * gx * gy, G * gx * gy - 1], RWSB, 1)
    t.write()
