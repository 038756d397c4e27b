#!/usr/bin/env python3
"""Writes the example kernels examples/NAME.hlsl and their pipeline tests examples/NAME.test
(same kernel text), with inputs and expected buffers computed here by a Python model of each
kernel. Nothing here runs wavec.

Run from anywhere:  python3 tests/lang/gen/gen_examples.py [NAME ...]
"""
import math
import os
import random
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402
from lib import (T, SB, RWSB, BAB, RWBAB, CB, EXAMPLES, f32, u32, i32, f32_bits, f32_from_bits, fadd, fsub,  # noqa: E402
                 fmul, fdiv, cb_pack, cb_offsets, words, vec, mat, sb_pack, struct, scalar, matmul_exact, waves_of)

GEN = 'tests/lang/gen/gen_examples.py'
EXAMPLES_LIST = []


def example(fn):
    EXAMPLES_LIST.append(fn)
    return fn


def emit(name, desc, hlsl, groups, setup, entry='main'):
    """Writes examples/NAME.hlsl and examples/NAME.test; setup(t) adds the buffers."""
    with open(os.path.join(EXAMPLES, name + '.hlsl'), 'w') as f:
        f.write(hlsl.strip('\n') + '\n')
    t = T(name, desc, hlsl, groups=groups, entry=entry, out_dir=EXAMPLES, generator=GEN)
    setup(t)
    t.write()
    lib.WRITTEN.append(os.path.join(EXAMPLES, name + '.hlsl'))


# ---------------------------------------------------------------------------
@example
def reduce_groupshared():
    hlsl = r'''
// Parallel sum: each group of 256 threads reduces 512 floats in groupshared memory
// (two per thread, added while loading), halving the active threads at each step,
// and writes one partial sum per group. A second pass (or the host) adds the partials.
//
// Compile: wavec examples/reduce_groupshared.hlsl -O
// Run:     wavec run examples/reduce_groupshared.test

#define GROUP_SIZE 256

cbuffer Params : register(b0) {
    uint g_count;      // number of valid elements in Input
};

StructuredBuffer<float> Input : register(t0);
RWStructuredBuffer<float> PartialSums : register(u0);

groupshared float s_data[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint groupIndex : SV_GroupIndex) {
    // Load two elements per thread; elements past the end count as zero.
    uint i = groupId.x * GROUP_SIZE * 2 + groupIndex;
    float a = i < g_count ? Input[i] : 0.0f;
    float b = i + GROUP_SIZE < g_count ? Input[i + GROUP_SIZE] : 0.0f;
    s_data[groupIndex] = a + b;
    GroupMemoryBarrierWithGroupSync();

    // Tree reduction: the lower half adds the upper half into itself.
    [unroll]
    for (uint stride = GROUP_SIZE / 2; stride > 0; stride >>= 1) {
        if (groupIndex < stride) {
            s_data[groupIndex] += s_data[groupIndex + stride];
        }
        GroupMemoryBarrierWithGroupSync();
    }

    if (groupIndex == 0) {
        PartialSums[groupId.x] = s_data[0];
    }
}
'''
    G = 256
    count = 3000
    groups = -(-count // (2 * G))
    rng = random.Random(1)
    data = [f32(rng.randint(-1000, 1000) / 64) for _ in range(count)]
    sums = []
    for g in range(groups):
        s = []
        for t in range(G):
            i = g * 2 * G + t
            a = data[i] if i < count else 0.0
            b = data[i + G] if i + G < count else 0.0
            s.append(fadd(a, b))
        stride = G // 2
        while stride:
            for t in range(stride):
                s[t] = fadd(s[t], s[t + stride])
            stride //= 2
        exact = sum(Fraction(x) for x in data[g * 2 * G:(g + 1) * 2 * G])
        assert Fraction(s[0]) == exact   # every partial sum is exact: any order gives these bits
        sums.append(s[0])

    def setup(t):
        t.buf('Params', 'UInt32', [count, 0, 0, 0], CB, 0)
        t.out('PartialSums', 'Float32', sums, RWSB, 0)
        t.buf('Input', 'Float32', data, SB, 0)     # last in memory: an unguarded read past g_count faults
    emit('reduce_groupshared', '''Example: groupshared tree reduction. 3000 floats (multiples of 1/64, so every partial sum is
exact) in 6 groups of 256 threads, two elements per thread; the last group is partly empty.
Input is the last buffer in memory, so reading past g_count faults.''', hlsl, [groups], setup)


@example
def matmul_tiled():
    hlsl = r'''
// C = A * B with 8x8 tiles staged in groupshared memory. A is M x K, B is K x N and
// C is M x N, all row-major. Each group computes one 8x8 tile of C; each thread one
// element. Sizes need not be multiples of the tile: loads outside the matrices read
// zero and stores outside C are skipped.
//
// Compile: wavec examples/matmul_tiled.hlsl -O
// Run:     wavec run examples/matmul_tiled.test

#define TILE 8

cbuffer Dims : register(b0) {
    uint M;
    uint N;
    uint K;
};

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> C : register(u0);

groupshared float tileA[TILE][TILE];
groupshared float tileB[TILE][TILE];

[numthreads(TILE, TILE, 1)]
void main(uint3 groupId : SV_GroupID, uint3 localId : SV_GroupThreadID) {
    uint row = groupId.y * TILE + localId.y;
    uint col = groupId.x * TILE + localId.x;
    float acc = 0.0f;

    uint tileCount = (K + TILE - 1) / TILE;
    for (uint t = 0; t < tileCount; ++t) {
        // Each thread loads one element of each tile.
        uint ka = t * TILE + localId.x;
        uint kb = t * TILE + localId.y;
        tileA[localId.y][localId.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        tileB[localId.y][localId.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        GroupMemoryBarrierWithGroupSync();

        [unroll]
        for (uint k = 0; k < TILE; ++k) {
            acc += tileA[localId.y][k] * tileB[k][localId.x];
        }
        GroupMemoryBarrierWithGroupSync();
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}
'''
    M, N, K, TILE = 20, 28, 36, 8
    rng = random.Random(2)
    A = [[f32(rng.randint(-4, 4) / 4) for _ in range(K)] for _ in range(M)]
    B = [[f32(rng.randint(-4, 4) / 2) for _ in range(N)] for _ in range(K)]
    Cm = matmul_exact(A, B)

    def setup(t):
        t.buf('Dims', 'UInt32', [M, N, K, 0], CB, 0)
        t.buf('A', 'Float32', [x for r in A for x in r], SB, 0)
        t.buf('B', 'Float32', [x for r in B for x in r], SB, 1)
        t.out('C', 'Float32', [x for r in Cm for x in r], RWSB, 0)   # last: unguarded stores fault
    emit('matmul_tiled', '''Example: tiled matrix multiply, 8x8 groupshared tiles, M = 20, N = 28, K = 36 (none a multiple of
the tile): a 4 x 3 grid of groups. Entries are multiples of 1/4 and 1/2, so C is exact in any
summation order. C is the last buffer, so a store outside it faults.''', hlsl, [-(-N // TILE), -(-M // TILE)],
         setup)


@example
def nbody():
    hlsl = r'''
// One time step of an all-pairs n-body simulation (gravitational constant 1). Positions
// are staged through groupshared memory one tile of GROUP_SIZE bodies at a time; each
// thread accumulates the acceleration of its body, then integrates velocity and position.
//
// Compile: wavec examples/nbody.hlsl -O
// Run:     wavec run examples/nbody.test

#define GROUP_SIZE 64
#define SOFTENING_SQUARED 0.01f

cbuffer SimParams : register(b0) {
    float g_dt;
    float g_damping;
    uint g_numBodies;       // a multiple of GROUP_SIZE
};

StructuredBuffer<float4> PosIn : register(t0);      // xyz: position, w: mass
StructuredBuffer<float4> VelIn : register(t1);      // xyz: velocity
RWStructuredBuffer<float4> PosOut : register(u0);
RWStructuredBuffer<float4> VelOut : register(u1);

groupshared float4 s_pos[GROUP_SIZE];

// Acceleration on body bi from body bj, added to ai. The softening term keeps the
// self-interaction (r = 0) and close encounters finite.
float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai) {
    float3 r = bj.xyz - bi.xyz;
    float distSqr = dot(r, r) + SOFTENING_SQUARED;
    float invDist = rsqrt(distSqr);
    float invDistCube = invDist * invDist * invDist;
    float s = bj.w * invDistCube;
    return ai + r * s;
}

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID, uint groupIndex : SV_GroupIndex) {
    float4 pos = PosIn[dispatchId.x];
    float4 vel = VelIn[dispatchId.x];
    float3 accel = 0;

    for (uint tile = 0; tile < g_numBodies / GROUP_SIZE; ++tile) {
        s_pos[groupIndex] = PosIn[tile * GROUP_SIZE + groupIndex];
        GroupMemoryBarrierWithGroupSync();
        [unroll(8)]
        for (uint j = 0; j < GROUP_SIZE; ++j) {
            accel = bodyBodyInteraction(pos, s_pos[j], accel);
        }
        GroupMemoryBarrierWithGroupSync();
    }

    vel.xyz = (vel.xyz + accel * g_dt) * g_damping;
    pos.xyz += vel.xyz * g_dt;
    PosOut[dispatchId.x] = pos;
    VelOut[dispatchId.x] = vel;
}
'''
    n, G = 128, 64
    dt, damping, soft = f32(0.01), f32(0.995), f32(0.01)
    rng = random.Random(3)
    pos = [[f32(rng.uniform(-10, 10)) for _ in range(3)] + [f32(rng.uniform(0.5, 2.0))] for _ in range(n)]
    vel = [[f32(rng.uniform(-1, 1)) for _ in range(3)] + [0.0] for _ in range(n)]

    def step(rsqrt, fma):
        po, vo = [], []
        for i in range(n):
            p, v = pos[i], vel[i]
            acc = [0.0, 0.0, 0.0]
            for j in range(n):
                q = pos[j]
                r = [fsub(q[k], p[k]) for k in range(3)]
                if fma:
                    d = f32(f32(r[0] * r[0] + r[1] * r[1]) + r[2] * r[2])
                else:
                    d = fadd(fadd(fmul(r[0], r[0]), fmul(r[1], r[1])), fmul(r[2], r[2]))
                d = fadd(d, soft)
                inv = rsqrt(d)
                cube = fmul(fmul(inv, inv), inv)
                s = fmul(q[3], cube)
                acc = [f32(acc[k] + r[k] * s) if fma else fadd(acc[k], fmul(r[k], s)) for k in range(3)]
            nv = [fmul(fadd(v[k], fmul(acc[k], dt)), damping) for k in range(3)]
            npos = [fadd(p[k], fmul(nv[k], dt)) for k in range(3)]
            po.append(npos + [p[3]])
            vo.append(nv + [v[3]])
        return po, vo

    exact_rsqrt = lambda x: f32(1 / math.sqrt(x))  # noqa: E731
    po, vo = step(exact_rsqrt, False)
    # How far an implementation may drift: rsqrt off by an ULP or two, fused multiply-adds.
    noisy = random.Random(4)

    def rough_rsqrt(x):
        y = exact_rsqrt(x)
        return f32_from_bits(f32_bits(y) + noisy.choice([-2, -1, 0, 1, 2]))
    po2, vo2 = step(rough_rsqrt, True)
    dpos = max(abs(a - b) for r1, r2 in zip(po, po2) for a, b in zip(r1, r2))
    dvel = max(abs(a - b) for r1, r2 in zip(vo, vo2) for a, b in zip(r1, r2))
    eps_pos, eps_vel = 2e-5, 2e-5
    assert dpos * 20 < eps_pos and dvel * 20 < eps_vel, (dpos, dvel)
    # The tolerance is far below what the step changes: for every body, the acceleration's
    # share of the new velocity and the distance moved.
    kick = min(max(abs(a - fmul(b, damping)) for a, b in zip(r1[:3], r2[:3])) for r1, r2 in zip(vo, vel))
    moved = min(max(abs(a - b) for a, b in zip(r1[:3], r2[:3])) for r1, r2 in zip(po, pos))
    assert kick > 20 * eps_vel and moved > 20 * eps_pos, (kick, moved)

    def setup(t):
        t.buf('SimParams', 'Hex32', [f32_bits(dt), f32_bits(damping), n, 0], CB, 0)
        t.buf('PosIn', 'Float32', [x for p in pos for x in p], SB, 0)
        t.buf('VelIn', 'Float32', [x for v in vel for x in v], SB, 1)
        t.out('PosOut', 'Float32', [x for p in po for x in p], RWSB, 0, eps=eps_pos)
        t.out('VelOut', 'Float32', [x for v in vo for x in v], RWSB, 1, eps=eps_vel)
    emit('nbody', '''Example: one n-body step for 128 bodies in 2 groups of 64, positions staged through groupshared
memory, a helper function with rsqrt. Expected values come from an f32 model with a correctly
rounded rsqrt; the tolerance (2e-5, BufferFloatEpsilon) is over 20 times the drift of the same
model with rsqrt off by up to 2 ULP and with fused multiply-adds, and under 1/20 of the change
that gravity makes to every body's velocity and of the distance every body moves.''', hlsl, [n // G], setup)


@example
def histogram():
    hlsl = r'''
// 64-bin histogram of 8-bit values packed four to a uint. Each group counts into a
// groupshared histogram with InterlockedAdd, then adds its non-zero bins to the global
// histogram. Stats (a byte-address buffer) collects the number of values counted and the
// largest bin count any single group saw.
//
// Compile: wavec examples/histogram.hlsl -O
// Run:     wavec run examples/histogram.test

#define NUM_BINS 64
#define GROUP_SIZE 256
#define WORDS_PER_THREAD 4

cbuffer Params : register(b0) {
    uint g_numWords;       // number of packed uints in Pixels
};

StructuredBuffer<uint> Pixels : register(t0);
RWStructuredBuffer<uint> Histogram : register(u0);
RWByteAddressBuffer Stats : register(u1);    // 0: values counted, 4: largest per-group bin

groupshared uint s_bins[NUM_BINS];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint groupIndex : SV_GroupIndex) {
    if (groupIndex < NUM_BINS) {
        s_bins[groupIndex] = 0;
    }
    GroupMemoryBarrierWithGroupSync();

    uint first = groupId.x * GROUP_SIZE * WORDS_PER_THREAD;
    uint counted = 0;
    [unroll]
    for (uint k = 0; k < WORDS_PER_THREAD; ++k) {
        // Consecutive threads read consecutive words.
        uint w = first + k * GROUP_SIZE + groupIndex;
        if (w < g_numWords) {
            uint packed = Pixels[w];
            [unroll]
            for (uint b = 0; b < 4; ++b) {
                uint value = (packed >> (8 * b)) & 0xFF;
                InterlockedAdd(s_bins[value >> 2], 1);
            }
            counted += 4;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    if (groupIndex < NUM_BINS) {
        uint c = s_bins[groupIndex];
        if (c != 0) {
            InterlockedAdd(Histogram[groupIndex], c);
        }
        Stats.InterlockedMax(4, c);
    }
    if (counted != 0) {
        Stats.InterlockedAdd(0, counted);
    }
}
'''
    words_n, G, per = 3000, 256, 4
    groups = -(-words_n // (G * per))
    rng = random.Random(5)
    # A two-peaked distribution, like an image with a dark and a bright region.
    vals = []
    for _ in range(words_n * 4):
        centre = 60 if rng.random() < 0.6 else 190
        vals.append(min(255, max(0, int(rng.gauss(centre, 25)))))
    pixels = [vals[4 * w] | vals[4 * w + 1] << 8 | vals[4 * w + 2] << 16 | vals[4 * w + 3] << 24 for w in range(words_n)]
    hist = [0] * 64
    biggest = 0
    for g in range(groups):
        local = [0] * 64
        for w in range(g * G * per, min((g + 1) * G * per, words_n)):
            for b in range(4):
                local[((pixels[w] >> (8 * b)) & 0xFF) >> 2] += 1
        hist = [a + b for a, b in zip(hist, local)]
        biggest = max(biggest, max(local))

    def setup(t):
        t.buf('Params', 'UInt32', [words_n, 0, 0, 0], CB, 0)
        t.buf('Pixels', 'Hex32', pixels, SB, 0)
        t.out('Histogram', 'UInt32', hist, RWSB, 0)
        t.out('Stats', 'UInt32', [words_n * 4, biggest], RWBAB, 1)
    emit('histogram', '''Example: histogram with InterlockedAdd into groupshared bins, then InterlockedAdd into a
RWStructuredBuffer and InterlockedAdd / InterlockedMax on a RWByteAddressBuffer. 12000 values
from a two-peaked distribution in 3 groups of 256 threads (the last partly idle).''', hlsl, [groups], setup)


@example
def blelloch_scan():
    hlsl = r'''
// Work-efficient exclusive prefix sum (Blelloch) of blocks of 256 uints in groupshared
// memory, 128 threads per block, two elements per thread. Shared-memory indices are padded
// by CONFLICT_FREE_OFFSET to avoid bank conflicts (GPU Gems 3, ch. 39). Each block's total
// goes to BlockSums, which a second pass would scan and add back to get a global scan.
//
// Compile: wavec examples/blelloch_scan.hlsl -O
// Run:     wavec run examples/blelloch_scan.test

#define BLOCK_SIZE 256
#define THREADS (BLOCK_SIZE / 2)
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWStructuredBuffer<uint> BlockSums : register(u1);

groupshared uint s_temp[BLOCK_SIZE + (BLOCK_SIZE >> LOG_NUM_BANKS)];

[numthreads(THREADS, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint tid : SV_GroupIndex) {
    uint blockStart = groupId.x * BLOCK_SIZE;
    uint ai = tid;
    uint bi = tid + BLOCK_SIZE / 2;
    uint bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    uint bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    s_temp[ai + bankOffsetA] = Input[blockStart + ai];
    s_temp[bi + bankOffsetB] = Input[blockStart + bi];

    // Up-sweep: build partial sums in place up the tree.
    uint offset = 1;
    [unroll]
    for (uint d = BLOCK_SIZE >> 1; d > 0; d >>= 1) {
        GroupMemoryBarrierWithGroupSync();
        if (tid < d) {
            uint a = offset * (2 * tid + 1) - 1;
            uint b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            s_temp[b] += s_temp[a];
        }
        offset <<= 1;
    }

    // The root holds the block total: save it and clear it for the down-sweep.
    if (tid == 0) {
        uint last = BLOCK_SIZE - 1 + CONFLICT_FREE_OFFSET(BLOCK_SIZE - 1);
        BlockSums[groupId.x] = s_temp[last];
        s_temp[last] = 0;
    }

    // Down-sweep: push prefixes back down the tree.
    [unroll]
    for (uint d2 = 1; d2 < BLOCK_SIZE; d2 <<= 1) {
        offset >>= 1;
        GroupMemoryBarrierWithGroupSync();
        if (tid < d2) {
            uint a = offset * (2 * tid + 1) - 1;
            uint b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            uint t = s_temp[a];
            s_temp[a] = s_temp[b];
            s_temp[b] += t;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    Output[blockStart + ai] = s_temp[ai + bankOffsetA];
    Output[blockStart + bi] = s_temp[bi + bankOffsetB];
}
'''
    B, blocks = 256, 4
    rng = random.Random(6)
    data = [rng.randint(0, 1000) for _ in range(B * blocks)]
    out, sums = [], []
    for b in range(blocks):
        blk = data[b * B:(b + 1) * B]
        # the algorithm itself, on a padded array, to check the model of the padding too
        pad = lambda n: n + (n >> 5)  # noqa: E731
        s = [0] * (B + B // 32)
        for k in range(B):
            s[pad(k)] = blk[k]
        off = 1
        d = B >> 1
        while d:
            for tid in range(d):
                a, bb = off * (2 * tid + 1) - 1, off * (2 * tid + 2) - 1
                s[pad(bb)] += s[pad(a)]
            off <<= 1
            d >>= 1
        sums.append(s[pad(B - 1)])
        s[pad(B - 1)] = 0
        d = 1
        while d < B:
            off >>= 1
            for tid in range(d):
                a, bb = pad(off * (2 * tid + 1) - 1), pad(off * (2 * tid + 2) - 1)
                s[a], s[bb] = s[bb], s[bb] + s[a]
            d <<= 1
        res = [s[pad(k)] for k in range(B)]
        assert res == [sum(blk[:k]) for k in range(B)]
        out += res
    assert sums == [sum(data[b * B:(b + 1) * B]) for b in range(blocks)]

    def setup(t):
        t.buf('Input', 'UInt32', data, SB, 0)
        t.out('Output', 'UInt32', out, RWSB, 0)
        t.out('BlockSums', 'UInt32', sums, RWSB, 1)
    emit('blelloch_scan', '''Example: Blelloch work-efficient exclusive scan of 4 blocks of 256 uints in groupshared memory
with bank-conflict padding macros; up-sweep and down-sweep loops with barriers; block totals.''',
         hlsl, [blocks], setup)


@example
def bitonic_sort_step():
    hlsl = r'''
// One compare-and-swap pass of a bitonic sort of (key, payload) pairs. The host sorts N
// elements by dispatching this kernel for k = 2, 4, ..., N and, for each k, for
// j = k/2, k/4, ..., 1, with j and k in the cbuffer. Each pair (i, i ^ j) is handled by
// its lower index; sequences whose bit k is clear are sorted ascending, the others
// descending.
//
// Compile: wavec examples/bitonic_sort_step.hlsl -O
// Run:     wavec run examples/bitonic_sort_step.test

cbuffer SortParams : register(b0) {
    uint g_j;          // distance between compared elements
    uint g_k;          // size of the bitonic sequences being merged
    uint g_count;      // number of elements (a power of two)
};

RWStructuredBuffer<uint2> Data : register(u0);    // x: key, y: payload

[numthreads(256, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    uint partner = i ^ g_j;
    if (partner > i && partner < g_count) {
        uint2 a = Data[i];
        uint2 b = Data[partner];
        bool ascending = (i & g_k) == 0;
        bool outOfOrder = ascending ? (a.x > b.x) : (a.x < b.x);
        if (outOfOrder) {
            Data[i] = b;
            Data[partner] = a;
        }
    }
}
'''
    n = 1024
    rng = random.Random(7)
    keys = [rng.randint(0, 500) for _ in range(n)]          # duplicates on purpose
    data = [[keys[i], i] for i in range(n)]

    def pass_(arr, j, k):
        for i in range(n):
            p = i ^ j
            if p > i:
                a, b = arr[i], arr[p]
                asc = (i & k) == 0
                if (a[0] > b[0]) if asc else (a[0] < b[0]):
                    arr[i], arr[p] = b, a

    k_run, j_run = 512, 256
    k = 2
    while k <= n:
        j = k // 2
        while j:
            if (k, j) == (k_run, j_run):
                break
            pass_(data, j, k)
            j //= 2
        if (k, j) == (k_run, j_run):
            break
        k *= 2
    before = [list(x) for x in data]
    pass_(data, j_run, k_run)
    after = data
    assert before != after

    def setup(t):
        t.buf('SortParams', 'UInt32', [j_run, k_run, n, 0], CB, 0)
        t.out('Data', 'UInt32', [v for p in after for v in p], RWSB, 0, init=[v for p in before for v in p],
              Stride=8)
    emit('bitonic_sort_step', '''Example: one bitonic-sort pass (k = 512, j = 256) over 1024 (key, payload) pairs in 4 groups of
256: pairs span groups, and blocks of 512 alternate ascending and descending. The input is the
state after every earlier pass of the sort (computed here); keys repeat.''', hlsl, [n // 256], setup)


@example
def transform4x4():
    hlsl = r'''
// Vertex transform with matrices from a cbuffer. g_world is declared with the default
// (column_major) packing and applied as mul(M, v) (column vectors); g_viewProj is declared
// row_major and applied as mul(v, M) (row vectors, the DirectXMath convention).
//
// Compile: wavec examples/transform4x4.hlsl -O
// Run:     wavec run examples/transform4x4.test

cbuffer Transforms : register(b0) {
    float4x4 g_world;
    row_major float4x4 g_viewProj;
    uint g_vertexCount;
};

StructuredBuffer<float4> Positions : register(t0);        // w is ignored
RWStructuredBuffer<float4> WorldPositions : register(u0);
RWStructuredBuffer<float4> ClipPositions : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    if (i >= g_vertexCount) {
        return;
    }
    float4 p = float4(Positions[i].xyz, 1.0f);
    float4 world = mul(g_world, p);
    float4 clip = mul(world, g_viewProj);
    WorldPositions[i] = world;
    ClipPositions[i] = clip;
}
'''
    # Layout of Transforms (HLSL packing rules, "Matrix ordering" in the cbuffer docs):
    # g_world is column_major (the default without -Zpr or #pragma pack_matrix), so the
    # buffer's 16-byte rows 0..3 hold its columns: row c = (W[0][c], W[1][c], W[2][c], W[3][c]).
    # g_viewProj is row_major: rows 4..7 hold its rows as they are. g_vertexCount follows at
    # offset 128. mul(g_world, p) treats p as a column vector (sum over c of W[r][c] * p[c]);
    # mul(world, g_viewProj) treats world as a row vector (sum over r of world[r] * V[r][c]).
    rng = random.Random(8)
    W = [[f32(rng.randint(-16, 16) / 8) for _ in range(4)] for _ in range(4)]
    V = [[f32(rng.randint(-16, 16) / 8) for _ in range(4)] for _ in range(4)]
    count, groups = 150, 3
    fields = [('g_world', mat('float', 4, 4, 'col')), ('g_viewProj', mat('float', 4, 4, 'row')),
              ('g_vertexCount', ('uint',))]
    assert cb_offsets(fields) == {'g_world': 0, 'g_viewProj': 64, 'g_vertexCount': 128}
    cbuf = words(cb_pack(fields, {'g_world': W, 'g_viewProj': V, 'g_vertexCount': count}))
    assert cbuf[0:4] == [f32_bits(W[r][0]) for r in range(4)]       # first row of the buffer: column 0
    pos = [[f32(rng.randint(-160, 160) / 16) for _ in range(3)] + [f32(rng.choice([0.0, 7.0]))]
           for _ in range(count)]
    worlds, clips = [], []
    for p in pos:
        v = p[:3] + [1.0]
        w = [row[0] for row in matmul_exact(W, [[x] for x in v])]
        c = matmul_exact([w], V)[0]
        worlds += w
        clips += c
    pad = groups * 64 - count

    def setup(t):
        t.buf('Transforms', 'Hex32', cbuf, CB, 0)
        t.buf('Positions', 'Float32', [x for p in pos for x in p] + [0.0] * (4 * pad), SB, 0)
        t.out('WorldPositions', 'Float32', worlds + [-1.0] * (4 * pad), RWSB, 0, fill=-1.0)
        t.out('ClipPositions', 'Float32', clips + [-1.0] * (4 * pad), RWSB, 1, fill=-1.0)
    emit('transform4x4', '''Example: mul(float4x4, float4) with a column_major cbuffer matrix (buffer rows are its columns)
and mul(float4, float4x4) with a row_major one; 150 vertices in 3 groups of 64, the rest return
early. Entries are multiples of 1/8 and 1/16: every product and sum is exact.''', hlsl, [groups], setup)


@example
def particles():
    hlsl = r'''
// Particle update: gravity, a bouncing floor, and a lifetime. Particles live in a
// RWStructuredBuffer of 32-byte structs (float3, float3, float, uint: tightly packed);
// a helper takes the particle inout. Dead particles are left alone; live ones are
// counted with InterlockedAdd.
//
// Compile: wavec examples/particles.hlsl -O
// Run:     wavec run examples/particles.test

#define FLAG_ALIVE   1u
#define FLAG_BOUNCED 2u

struct Particle {
    float3 position;
    float3 velocity;
    float life;          // seconds left
    uint flags;
};

cbuffer FrameParams : register(b0) {
    float g_dt;             // offset 0
    float3 g_gravity;       // offset 4: shares the first 16-byte row with g_dt
    float g_restitution;    // offset 16
    float g_floorY;         // offset 20
    uint g_count;           // offset 24
};

RWStructuredBuffer<uint> AliveCount : register(u1);
RWStructuredBuffer<Particle> Particles : register(u0);

void integrate(inout Particle p, float dt) {
    p.velocity += g_gravity * dt;
    p.position += p.velocity * dt;
    if (p.position.y < g_floorY) {
        p.position.y = g_floorY;
        p.velocity.y = -p.velocity.y * g_restitution;
        p.flags |= FLAG_BOUNCED;
    }
    p.life -= dt;
    if (p.life <= 0.0f) {
        p.flags &= ~FLAG_ALIVE;
    }
}

[numthreads(64, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    if (i >= g_count) {
        return;
    }
    Particle p = Particles[i];
    if ((p.flags & FLAG_ALIVE) == 0) {
        return;
    }
    integrate(p, g_dt);
    Particles[i] = p;
    if (p.flags & FLAG_ALIVE) {
        InterlockedAdd(AliveCount[0], 1);
    }
}
'''
    count, groups = 200, 4
    dt, grav, rest, floor_y = 0.0625, [0.0, -8.0, 0.0], 0.5, -2.0
    fields = [('g_dt', ('float',)), ('g_gravity', vec('float', 3)), ('g_restitution', ('float',)),
              ('g_floorY', ('float',)), ('g_count', ('uint',))]
    assert cb_offsets(fields) == {'g_dt': 0, 'g_gravity': 4, 'g_restitution': 16, 'g_floorY': 20, 'g_count': 24}
    cbuf = words(cb_pack(fields, {'g_dt': dt, 'g_gravity': grav, 'g_restitution': rest, 'g_floorY': floor_y,
                                  'g_count': count}))
    rng = random.Random(9)
    P = struct(('position', vec('float', 3)), ('velocity', vec('float', 3)), ('life', ('float',)),
               ('flags', ('uint',)))
    parts = []
    for k in range(count):
        parts.append({'position': [rng.randint(-320, 320) / 64, rng.randint(-128, 256) / 64, rng.randint(-320, 320) / 64],
                      'velocity': [rng.randint(-32, 32) / 4, rng.randint(-32, 32) / 4, rng.randint(-32, 32) / 4],
                      'life': rng.randint(0, 32) / 16,
                      'flags': rng.choice([0, 1, 1, 1, 3])})
    out = []
    alive = 0
    for p in parts:
        q = {k: (list(v) if isinstance(v, list) else v) for k, v in p.items()}
        if q['flags'] & 1:
            q['velocity'] = [fadd(v, fmul(g, dt)) for v, g in zip(q['velocity'], grav)]
            q['position'] = [fadd(x, fmul(v, dt)) for x, v in zip(q['position'], q['velocity'])]
            if q['position'][1] < floor_y:
                q['position'][1] = floor_y
                q['velocity'][1] = fmul(-q['velocity'][1], rest)
                q['flags'] |= 2
            q['life'] = fsub(q['life'], dt)
            if q['life'] <= 0:
                q['flags'] &= ~1
            alive += q['flags'] & 1
            for v in q['position'] + q['velocity'] + [q['life']]:   # dyadic: exact in f32 and f64
                assert v == f32(v)
        out.append(q)
    assert any(q['flags'] & 2 for q in out) and any(not q['flags'] & 1 and p['flags'] & 1 for p, q in zip(parts, out))

    def setup(t):
        t.buf('FrameParams', 'Hex32', cbuf, CB, 0)
        t.out('AliveCount', 'UInt32', [alive], RWSB, 1)
        t.out('Particles', 'Hex32', words(sb_pack(P, out)), RWSB, 0, init=words(sb_pack(P, parts)), Stride=32)
    emit('particles', '''Example: particle update on a RWStructuredBuffer<Particle> (32-byte tightly packed structs, Hex32
words), a helper with an inout struct parameter, a cbuffer where a float3 packs behind a float,
InterlockedAdd counting live particles. 200 particles in 4 groups of 64; Particles is the last
buffer. Dyadic values (dt = 1/16): exact.''', hlsl, [groups], setup)


@example
def byteaddress():
    hlsl = r'''
// Repack a vertex stream stored in a raw buffer: records of 20 bytes (float3 position,
// RGBA8 color, uint id) are scaled, their color swizzled to BGRA, and stored as 16-byte
// records at the slot their id names. The bounding box of the scaled positions and the
// number of non-transparent vertices are gathered with atomics on a RWByteAddressBuffer
// (floats are mapped to uints whose unsigned order is the float order).
//
// Compile: wavec examples/byteaddress.hlsl -O
// Run:     wavec run examples/byteaddress.test

cbuffer Params : register(b0) {
    uint g_vertexCount;
    float g_scale;
};

ByteAddressBuffer Vertices : register(t0);
RWByteAddressBuffer Output : register(u0);   // 16 bytes per vertex: float3 position, uint BGRA
RWByteAddressBuffer Bounds : register(u1);   // 0: min xyz, 12: max xyz (ordered uints), 24: opaque count

uint orderedFromFloat(float f) {
    uint u = asuint(f);
    return (u & 0x80000000) != 0 ? ~u : u | 0x80000000;
}

[numthreads(64, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    if (i >= g_vertexCount) {
        return;
    }
    uint src = i * 20;
    uint2 xy = Vertices.Load2(src);
    float z = Vertices.Load<float>(src + 8);
    uint4 tail = Vertices.Load4(src + 4);     // y, z, color, id
    uint rgba = tail.z;
    uint id = Vertices.Load(src + 16);
    float3 pos = float3(asfloat(xy.x), asfloat(tail.x), z);

    float3 scaled = pos * g_scale;
    uint bgra = (rgba & 0xFF00FF00) | ((rgba >> 16) & 0xFF) | ((rgba & 0xFF) << 16);
    uint dst = id * 16;
    Output.Store<float3>(dst, scaled);
    Output.Store(dst + 12, bgra);

    Bounds.InterlockedMin(0, orderedFromFloat(scaled.x));
    Bounds.InterlockedMin(4, orderedFromFloat(scaled.y));
    Bounds.InterlockedMin(8, orderedFromFloat(scaled.z));
    Bounds.InterlockedMax(12, orderedFromFloat(scaled.x));
    Bounds.InterlockedMax(16, orderedFromFloat(scaled.y));
    Bounds.InterlockedMax(20, orderedFromFloat(scaled.z));
    if ((rgba >> 24) != 0) {
        Bounds.InterlockedAdd(24, 1);
    }
    if (i == 0) {
        Bounds.Store2(28, uint2(g_vertexCount, asuint(g_scale)));
    }
}
'''
    count, groups, scale = 100, 2, 0.5
    rng = random.Random(10)
    ids = list(range(count))
    rng.shuffle(ids)
    verts = []
    for k in range(count):
        pos = [f32(rng.randint(-4000, 4000) / 32) for _ in range(3)]
        color = rng.randint(0, 0xFFFFFF) | (rng.choice([0, 0x80, 0xFF]) << 24)
        verts.append((pos, color, ids[k]))
    raw = []
    for pos, color, id_ in verts:
        raw += [f32_bits(x) for x in pos] + [color, id_]

    def ordered(f):
        u = f32_bits(f)
        return (~u) & 0xFFFFFFFF if u & 0x80000000 else u | 0x80000000
    out = [0xCDCDCDCD] * (count * 4)
    mins, maxs = [0xFFFFFFFF] * 3, [0] * 3
    opaque = 0
    for pos, color, id_ in verts:
        sc = [fmul(x, scale) for x in pos]
        bgra = (color & 0xFF00FF00) | ((color >> 16) & 0xFF) | ((color & 0xFF) << 16)
        out[id_ * 4:id_ * 4 + 4] = [f32_bits(x) for x in sc] + [bgra]
        mins = [min(m, ordered(x)) for m, x in zip(mins, sc)]
        maxs = [max(m, ordered(x)) for m, x in zip(maxs, sc)]
        opaque += (color >> 24) != 0
    # the order of the mapped uints is the order of the floats
    xs = sorted({fmul(p[0][0], scale) for p in verts})
    assert sorted(ordered(x) for x in xs) == [ordered(x) for x in xs]
    bounds0 = [0xFFFFFFFF] * 3 + [0] * 3 + [0, 0, 0]
    bounds = mins + maxs + [opaque, count, f32_bits(scale)]

    def setup(t):
        t.buf('Params', 'Hex32', [count, f32_bits(scale), 0, 0], CB, 0)
        t.buf('Vertices', 'Hex32', raw, BAB, 0)
        t.out('Bounds', 'Hex32', bounds, RWBAB, 1, init=bounds0)
        t.out('Output', 'Hex32', out, RWBAB, 0, fill=0xCDCDCDCD)
    emit('byteaddress', '''Example: byte-address buffers: Load, Load2, Load4 (overlapping), Load<float>, Store, Store2,
Store<float3>, InterlockedMin/Max/Add on a RWByteAddressBuffer; 100 vertex records of 20 bytes
scattered to 16-byte records by id; an order-preserving float -> uint map for the bounds.''',
         hlsl, [groups], setup)


@example
def wave_reduce():
    hlsl = r'''
// Group-wide exclusive prefix sum and totals built from wave intrinsics: WavePrefixSum
// within each wave, the wave totals (WaveActiveSum) scanned by the first wave, and the grand
// total gathered with one InterlockedAdd per wave (WaveIsFirstLane). The results do not
// depend on the wave width (32 on the generic target, 64 on gcn), as long as the lanes of a
// wave are consecutive SV_GroupIndex values, as on every D3D12 driver, and a group holds at
// most as many waves as a wave has lanes (GROUP_SIZE <= W * W: 16 lanes and up here).
//
// Compile: wavec examples/wave_reduce.hlsl -O
// Run:     wavec run examples/wave_reduce.test

#define GROUP_SIZE 256
#define MAX_WAVES (GROUP_SIZE / 4)      // D3D waves have at least 4 lanes

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> GroupPrefix : register(u0);   // exclusive prefix sum within the group
RWStructuredBuffer<uint> GroupTotals : register(u1);
RWStructuredBuffer<uint> GrandTotal : register(u2);

groupshared uint s_waveTotals[MAX_WAVES];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID, uint3 groupId : SV_GroupID,
          uint groupIndex : SV_GroupIndex) {
    uint v = Input[dispatchId.x];
    uint laneCount = WaveGetLaneCount();
    uint waveIndex = groupIndex / laneCount;
    uint numWaves = (GROUP_SIZE + laneCount - 1) / laneCount;

    uint lanePrefix = WavePrefixSum(v);
    uint waveTotal = WaveActiveSum(v);
    if (WaveIsFirstLane()) {
        s_waveTotals[waveIndex] = waveTotal;
        InterlockedAdd(GrandTotal[0], waveTotal);
    }
    GroupMemoryBarrierWithGroupSync();

    // The first wave turns the wave totals into their exclusive prefix sums.
    if (waveIndex == 0) {
        uint t = groupIndex < numWaves ? s_waveTotals[groupIndex] : 0;
        uint tPrefix = WavePrefixSum(t);
        uint groupTotal = WaveActiveSum(t);
        if (groupIndex < numWaves) {
            s_waveTotals[groupIndex] = tPrefix;
        }
        if (groupIndex == 0) {
            GroupTotals[groupId.x] = groupTotal;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    GroupPrefix[dispatchId.x] = s_waveTotals[waveIndex] + lanePrefix;
}
'''
    G, groups = 256, 4
    rng = random.Random(11)
    data = [rng.randint(0, 1000) for _ in range(G * groups)]
    prefix, totals = [], []
    for g in range(groups):
        blk = data[g * G:(g + 1) * G]
        prefix += [sum(blk[:k]) for k in range(G)]
        totals.append(sum(blk))
    # the model of the kernel, at both wave widths, gives the same buffers
    for W in (16, 32, 64):
        pre_w = []
        for g in range(groups):
            blk = data[g * G:(g + 1) * G]
            waves = waves_of(G, W)
            wt = [sum(blk[k] for k in w) for w in waves]
            scan = [sum(wt[:k]) for k in range(len(waves))]
            for wi, w in enumerate(waves):
                for lane, k in enumerate(w):
                    pre_w.append(scan[wi] + sum(blk[k2] for k2 in w[:lane]))
        assert pre_w == prefix, W

    def setup(t):
        t.buf('Input', 'UInt32', data, SB, 0)
        t.out('GroupPrefix', 'UInt32', prefix, RWSB, 0)
        t.out('GroupTotals', 'UInt32', totals, RWSB, 1)
        t.out('GrandTotal', 'UInt32', [sum(data)], RWSB, 2)
    emit('wave_reduce', '''Example: WavePrefixSum, WaveActiveSum, WaveIsFirstLane and InterlockedAdd build a group-wide
exclusive scan, group totals and a grand total over 4 groups of 256. The expected buffers hold
for any wave width from 16 to 64 (checked by the generator for 16, 32 and 64), so this one test
serves the generic target (W = 32) and gcn (W = 64).''', hlsl, [groups], setup)


def main(argv):
    names = [a for a in argv if not a.startswith('--')]
    for fn in EXAMPLES_LIST:
        if names and not any(n in fn.__name__ for n in names):
            continue
        fn()
    for p in lib.WRITTEN:
        print('wrote', os.path.relpath(p, lib.ROOT))


if __name__ == '__main__':
    main(sys.argv[1:])
