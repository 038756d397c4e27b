#!/usr/bin/env python3
"""Writes the examples that reproduce the seed articles, examples/seeds/NAME.hlsl and NAME.test
(same kernel text), with the expected buffers computed here by a Python model of each kernel
(f32 arithmetic, rounding after every operation); and the occupancy advisor's cases of the same
articles, tests/advisor/NAME.test (uint arithmetic, modelled exactly), which tests/seeds.rs and
compiler/tests/advisor.rs run with `--target-occupancy auto`. Nothing here runs wavec.

The kernels are about time, not arithmetic: their inputs are filled with constants so that the
tests stay small however large the dispatch (the language tests cover the arithmetic), and a
workgroup that wrote the wrong place would leave zeros where the model expects values.
tests/seeds.rs runs each one in the configurations its header names and snapshots the reports.

Run from anywhere:  python3 tests/lang/gen/gen_seeds.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402
from lib import T, SB, RWSB, fadd, fmul, f32, u32  # noqa: E402

GEN = 'tests/lang/gen/gen_seeds.py'
SEEDS = os.path.join(lib.EXAMPLES, 'seeds')
ADVISOR = os.path.join(lib.ROOT, 'tests', 'advisor')


def emit(name, desc, hlsl, groups, inputs, outputs):
    """inputs: (name, kind, reg, fill_bytes, fill_value); outputs: (name, reg, bytes, expected_value)."""
    os.makedirs(SEEDS, exist_ok=True)
    with open(os.path.join(SEEDS, name + '.hlsl'), 'w') as f:
        f.write(hlsl.strip('\n') + '\n')
    t = T(name, desc, hlsl, groups=groups, out_dir=SEEDS, generator=GEN)
    for buf, kind, reg, size, value in inputs:
        t.bufs.append((buf, 'Float32', ('fill', size, value), {}))
        t.bind(buf, kind, reg)
    for buf, reg, size, expected in outputs:
        t.bufs.append((buf, 'Float32', ('fill', size, None), {}))
        t.bind(buf, RWSB, reg)
        t.expected.append(('Expected' + buf, 'Float32', ('fill', size, expected), {}))
        t.results.append((buf, 'BufferExact', buf, 'Expected' + buf, {}))
    t.write()
    lib.WRITTEN.append(os.path.join(SEEDS, name + '.hlsl'))


def occupancy_latency():
    threads, taps = 65536, 8
    hlsl = r'''
// "What is shader occupancy and why do we care about it?": a wave stalls when it
// uses a load's result, not when it issues the load, and the SIMD hides the wait
// by switching to another resident wave. Each thread here reads eight values from
// DRAM, each one used right away: alone, a wave waits out every load.
//
// On gcn the kernel needs few registers (10 waves per SIMD). The blog's two cases
// are what-ifs on the register count, which is what sets how many waves a SIMD holds
// (`--disable sched` keeps each load next to its use, as the blog's kernel has it):
//   wavec run examples/seeds/occupancy_latency.test --target gcn -O --disable sched --registers 32 --stats
//       (8 waves per SIMD: one wave's wait is another's turn; about two thirds of core cycles issue)
//   wavec run examples/seeds/occupancy_latency.test --target gcn -O --disable sched --registers 128 --stats
//       (2 waves per SIMD: about three quarters of core cycles wait for memory, 2.7x the cycles)
// The other way to hide latency is inside one wave: at -O the scheduler issues the
// eight loads together (registers permitting), and 2 waves per SIMD come close to 8:
//   wavec run examples/seeds/occupancy_latency.test --target gcn -O --registers 128 --stats

#define N 65536

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    float acc = 0.0f;
    [unroll]
    for (uint k = 0; k < 8; k++) {
        acc = acc * 0.5f + In[i + k * N];
    }
    Out[i] = acc;
}
'''
    v = f32(2.0)
    acc = f32(0.0)
    for _ in range(taps):
        acc = fadd(fmul(acc, f32(0.5)), v)
    emit('occupancy_latency',
         'Latency hiding by occupancy (seed: "What is shader occupancy and why do we care about it?").',
         hlsl, (threads // 64, 1, 1),
         [('In', SB, 0, 4 * threads * taps, v)],
         [('Out', 0, 4 * threads, acc)])


def bandwidth_bound():
    threads = 65536
    hlsl = r'''
// A kernel occupancy does not help: each thread issues four independent loads
// before it uses any, so even two waves per SIMD keep more bytes in flight than
// DRAM delivers. The same two register counts as occupancy_latency give nearly
// the same cycles, with DRAM busy most of the run:
//   wavec run examples/seeds/bandwidth_bound.test --target gcn -O --registers 32 --stats
//   wavec run examples/seeds/bandwidth_bound.test --target gcn -O --registers 128 --stats
// ("Is high occupancy always good?" in the occupancy blog: a kernel that moves
// a lot of memory is limited by the memory system, not by latency.)

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
StructuredBuffer<float> C : register(t2);
StructuredBuffer<float> D : register(t3);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    float a = A[i];
    float b = B[i];
    float c = C[i];
    float d = D[i];
    Out[i] = (a + b) + (c + d);
}
'''
    a, b, c, d = f32(1.0), f32(2.0), f32(3.0), f32(4.0)
    emit('bandwidth_bound',
         'A bandwidth-bound kernel, insensitive to occupancy (seed: "What is shader occupancy...").',
         hlsl, (threads // 64, 1, 1),
         [('A', SB, 0, 4 * threads, a), ('B', SB, 1, 4 * threads, b), ('C', SB, 2, 4 * threads, c),
          ('D', SB, 3, 4 * threads, d)],
         [('Out', 0, 4 * threads, fadd(fadd(a, b), fadd(c, d)))])


def thread_group_swizzle():
    width, height, pad, taps = 2048, 128, 32, 9
    hlsl = r'''
// "Optimizing Compute Shaders for L2 Locality using Thread-Group ID Swizzling":
// a wide vertical filter over an image 2048 pixels wide. Groups launch in row-major
// order, so the groups that run together span whole rows of groups, and a group's
// neighbour below (which reads mostly the same rows) starts a full row of groups
// later, after the L2 has moved on. Tiling remaps SV_GroupID so that consecutive
// groups walk down columns 16 groups wide; their footprints overlap in the L2.
//
// Like the article's denoiser the pass is memory-latency bound, here by running it
// as if it used 128 registers (2 waves per SIMD):
//   wavec run examples/seeds/thread_group_swizzle.test --target gcn -O --registers 128 --stats
//       (row-major: L2 hit rate 50%)
//   wavec run examples/seeds/thread_group_swizzle.test --target gcn -O --registers 128 -D SWIZZLE=1 --stats
//       (tiled: 78%, and 1.25 times as fast; the article saw 63% -> 86% and 47% faster)

#ifndef SWIZZLE
#define SWIZZLE 0
#endif

#define WIDTH 2048
#define HEIGHT 128
#define PAD 32                  // rows of padding above and below the image
#define GRID_X (WIDTH / 8)      // groups per row
#define GRID_Y (HEIGHT / 8)     // rows of groups
#define TILE 16                 // groups per tile row (GRID_X is a multiple of it)

StructuredBuffer<float> Image : register(t0);   // (HEIGHT + 2 * PAD) rows of WIDTH
RWStructuredBuffer<float> Out : register(u0);   // HEIGHT rows of WIDTH

[numthreads(8, 8, 1)]
void main(uint3 groupId : SV_GroupID, uint3 tid : SV_GroupThreadID) {
#if SWIZZLE
    // Thread-group tiling, direction X: tiles TILE groups wide and GRID_Y tall,
    // launched one after another, each walked row by row.
    uint linear = groupId.y * GRID_X + groupId.x;
    uint tile = linear / (TILE * GRID_Y);
    uint inTile = linear % (TILE * GRID_Y);
    uint2 g = uint2(tile * TILE + inTile % TILE, inTile / TILE);
#else
    uint2 g = groupId.xy;
#endif
    uint x = g.x * 8 + tid.x;
    uint y = g.y * 8 + tid.y;
    uint at = (y + PAD) * WIDTH + x;
    float sum = 0.0f;
    [unroll]
    for (int k = -4; k <= 4; k++) {
        sum += Image[at + k * 8 * WIDTH];
    }
    Out[y * WIDTH + x] = sum;
}
'''
    v = f32(0.5)
    s = f32(0.0)
    for _ in range(taps):
        s = fadd(s, v)
    emit('thread_group_swizzle',
         'Row-major versus tiled thread-group order and the L2 hit rate (seed: "Thread-Group ID Swizzling").',
         hlsl, (width // 8, height // 8, 1),
         [('Image', SB, 0, 4 * width * (height + 2 * pad), v)],
         [('Out', 0, 4 * width * height, s)])


def large_thread_groups():
    n, groups, passes = 1024, 64, 4
    hlsl = r'''
// "Optimizing GPU occupancy and resource usage with large thread groups": groups of
// 1024 threads that stage data in groupshared memory and synchronize with barriers
// between passes, each pass fetching a per-group weight from DRAM. At 40 registers
// per thread only one such group fits a GCN compute unit (16 waves, 4 per SIMD): when
// its waves wait for memory at a barrier, nothing else can run. At 32 registers two
// groups fit, and one computes while the other waits.
//   wavec run examples/seeds/large_thread_groups.test --target gcn -O --registers 40 --stats
//       (1 group per CU; about 22% of core cycles wait for memory)
//   wavec run examples/seeds/large_thread_groups.test --target gcn -O --registers 32 --stats
//       (2 groups per CU: 1.25 times as fast; the article measured a 50% boost on one platform)

#define N 1024
#define PASSES 4

StructuredBuffer<float> In : register(t0);
StructuredBuffer<float> Weight : register(t1);  // PASSES weights per thread of each group
RWStructuredBuffer<float> Out : register(u0);

groupshared float s[N];

[numthreads(N, 1, 1)]
void main(uint3 gid : SV_GroupID, uint t : SV_GroupIndex) {
    uint base = gid.x * N;
    s[t] = In[base + t];
    GroupMemoryBarrierWithGroupSync();
    [unroll]
    for (uint pass = 0; pass < PASSES; pass++) {
        float w = Weight[(gid.x * PASSES + pass) * N + t];
        float v = s[(t + N - 1) & (N - 1)] + s[t] * w + s[(t + 1) & (N - 1)];
        GroupMemoryBarrierWithGroupSync();
        s[t] = v * 0.25f;
        GroupMemoryBarrierWithGroupSync();
    }
    Out[base + t] = s[t];
}
'''
    x, w = f32(1.0), f32(2.0)
    s = [x] * n
    for _ in range(passes):
        s = [fmul(fadd(fadd(s[(t - 1) % n], fmul(s[t], w)), s[(t + 1) % n]), f32(0.25)) for t in range(n)]
    assert all(v == s[0] for v in s)
    emit('large_thread_groups',
         'One versus two 1024-thread groups per compute unit (seed: GPUOpen, large thread groups).',
         hlsl, (groups, 1, 1),
         [('In', SB, 0, 4 * n * groups, x), ('Weight', SB, 1, 4 * n * groups * passes, w)],
         [('Out', 0, 4 * n * groups, s[0])])


def emit_advisor(name, desc, hlsl, groups, inputs, outputs):
    """A case for the occupancy advisor, tests/advisor/NAME.test, on gcn (its header says so), with
    UInt32 buffers. inputs: (name, reg, fill_bytes, fill_value); outputs: (name, reg, bytes, expected)."""
    os.makedirs(ADVISOR, exist_ok=True)
    t = T(name, desc, hlsl, groups=groups, out_dir=ADVISOR, generator=GEN,
          notes=['Expectations for the gcn target (64-lane waves, 4 SIMDs per compute unit):', 'wavec: --target gcn'])
    for buf, reg, size, value in inputs:
        t.bufs.append((buf, 'UInt32', ('fill', size, value), {}))
        t.bind(buf, SB, reg)
    for buf, reg, size, expected in outputs:
        t.bufs.append((buf, 'UInt32', ('fill', size, None), {}))
        t.bind(buf, RWSB, reg)
        t.expected.append(('Expected' + buf, 'UInt32', ('fill', size, expected), {}))
        t.results.append((buf, 'BufferExact', buf, 'Expected' + buf, {}))
    t.write()


def large_thread_groups_48():
    n, groups, passes, keep = 1024, 64, 12, 27
    hlsl = r"""
// The GPUOpen article's case for the occupancy advisor: 1024-thread groups (16 waves, 4 per
// SIMD on gcn) whose passes synchronize on barriers and fetch from DRAM, as in
// examples/seeds/large_thread_groups, but with KEEP values per thread read from groupshared
// memory before the passes and used after them. The article's shader "originally used 48 VGPRs,
// so only one group was running on each CU"; so does this one by default. Occupancy comes in
// whole groups: a register budget that does not fit a second group (36 or 40 registers) gains
// nothing, so the advisor's candidates are 4 and 8 waves per SIMD; at 32 registers two groups
// fit, and one group's passes run while the other's wait.
//   wavec run tests/advisor/large_thread_groups_48.test -O --target-occupancy auto

#define N 1024
#define PASSES 12
#define KEEP 27

StructuredBuffer<uint> In : register(t0);
StructuredBuffer<uint> Weight : register(t1);  // PASSES weights per thread of each group
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint s[N];

[numthreads(N, 1, 1)]
void main(uint3 gid : SV_GroupID, uint t : SV_GroupIndex) {
    uint base = gid.x * N;
    s[t] = In[base + t];
    GroupMemoryBarrierWithGroupSync();
    uint keep[KEEP];  // neighbours before the passes overwrite them: live across every pass
    [unroll]
    for (uint j = 0; j < KEEP; j++) {
        keep[j] = s[(t + j + 2) & (N - 1)];
    }
    [unroll]
    for (uint pass = 0; pass < PASSES; pass++) {
        uint w = Weight[(gid.x * PASSES + pass) * N + t];
        uint v = s[(t + N - 1) & (N - 1)] + s[t] * w + s[(t + 1) & (N - 1)];
        GroupMemoryBarrierWithGroupSync();
        s[t] = v >> 2;
        GroupMemoryBarrierWithGroupSync();
    }
    uint r = s[t];
    [unroll]
    for (uint j = 0; j < KEEP; j++) {
        r = (r + keep[j]) >> 1;
    }
    Out[base + t] = r;
}
"""
    x, w = 1, 2
    s = [x] * n
    keep = [[s[(t + j + 2) % n] for j in range(keep)] for t in range(n)]
    for _ in range(passes):
        s = [u32(s[(t - 1) % n] + u32(s[t] * w) + s[(t + 1) % n]) >> 2 for t in range(n)]
    out = []
    for t in range(n):
        r = s[t]
        for k in keep[t]:
            r = u32(r + k) >> 1
        out.append(r)
    assert all(v == out[0] for v in out)
    emit_advisor('large_thread_groups_48',
                 'One or two 1024-thread groups per compute unit at 48 registers: the occupancy advisor\'s\n'
                 'case of the GPUOpen large-thread-groups article.',
                 hlsl, (groups, 1, 1),
                 [('In', 0, 4 * n * groups, x), ('Weight', 1, 4 * n * groups * passes, w)],
                 [('Out', 0, 4 * n * groups, out[0])])


def occupancy_latency_spills():
    groups, steps, keep, chase, table = 1024, 8, 36, 16, 4096
    hlsl = r"""
// "What is shader occupancy and why do we care about it?" for the occupancy advisor: more
// resident waves hide the latency of loads used right away, and cost registers. Each thread
// keeps KEEP values for the whole loop and uses all of them every step (36 registers or more
// at a time: 5 waves per SIMD by default on gcn); each step first follows CHASE dependent
// loads (a pointer chase through an L2-resident table, each load's address the last load's
// result), which only other waves can hide. A register budget for more waves moves kept values
// to local memory and reloads them every step: the first step up pays, the next ones do not.
//   wavec run tests/advisor/occupancy_latency_spills.test -O --target-occupancy auto
// With one load per step (-D CHASE=1) the kernel issues nearly all the time at 5 waves per
// SIMD: more waves hide nothing, the default is fastest, and the spilling targets' issue
// cycles alone exceed its time (the advisor skips them without timing them):
//   wavec run tests/advisor/occupancy_latency_spills.test -O -D CHASE=1 --target-occupancy auto

#define KEEP 36
#define STEPS 8
#ifndef CHASE
#define CHASE 16  // dependent loads per step, at least 1 (the result is the same for any)
#endif

StructuredBuffer<uint> Table : register(t0);  // 4096 zeros
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    uint lane = i & 63;
    uint keep[KEEP];
    [unroll]
    for (uint j = 0; j < KEEP; j++) {
        keep[j] = Table[lane + 64 * j] + j + 1;
    }
    uint acc = 0;
    uint x = lane;
    [loop]
    for (uint k = 0; k < STEPS; k++) {
        [unroll]
        for (uint c = 0; c < CHASE; c++) {
            x = Table[x + c];
        }
        uint m = x + k;
        [unroll]
        for (uint j = 0; j < KEEP; j++) {
            acc += keep[j] * m;
        }
    }
    Out[i] = acc;
}
"""
    zeros = [0] * table

    def lane_result(lane, chase):
        kept = [u32(zeros[lane + 64 * j] + j + 1) for j in range(keep)]
        acc, x = 0, lane
        for k in range(steps):
            for c in range(chase):
                x = zeros[x + c]
            m = u32(x + k)
            for v in kept:
                acc = u32(acc + u32(v * m))
        return acc
    results = {lane_result(lane, c) for lane in range(64) for c in (1, 2, chase)}
    assert len(results) == 1, results
    emit_advisor('occupancy_latency_spills',
                 'Occupancy against spills for a latency-bound kernel: the occupancy advisor\'s case of\n'
                 '"What is shader occupancy and why do we care about it?".',
                 hlsl, (groups, 1, 1),
                 [('Table', 0, 4 * table, 0)],
                 [('Out', 0, 4 * 64 * groups, results.pop())])


if __name__ == '__main__':
    occupancy_latency()
    bandwidth_bound()
    thread_group_swizzle()
    large_thread_groups()
    large_thread_groups_48()
    occupancy_latency_spills()
    for p in lib.WRITTEN:
        print('wrote', os.path.relpath(p, lib.ROOT))
