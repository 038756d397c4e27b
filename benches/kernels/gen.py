#!/usr/bin/env python3
"""Writes the benchmark kernels benches/kernels/NAME.test: kernels written as GPU programmers
write them (the quality table's corpus, with examples/), each with inputs and expected buffers
computed here by a Python model of the kernel. Nothing here runs wavec.

Models follow HLSL's semantics as docs/language.md states them: f32 rounding after every
operation (the helpers of tests/lang/gen/lib.py), half rounding after every 16-bit operation,
32-bit integer wrapping, the cbuffer layout rules, lanes of a wave as consecutive
SV_GroupIndex values. Where results are exact in any summation order and with any fusing of
multiply-adds (the helpers `xadd`, `xmul`, `exact_sum` assert it), the rule is BufferExact; where
a transcendental is involved the tolerance is derived below from a perturbed model.

Run from anywhere:  python3 benches/kernels/gen.py [--check] [NAME ...]
  NAME      write only the kernels whose name contains NAME
  --check   then check the written files with tests/lang/gen/validate.py
"""
import math
import os
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'lang', 'gen'))
import lib  # noqa: E402
from lib import (T, SB, RWSB, CB, Rng, f32, f16, u32, f32_bits, f32_from_bits, fadd, fsub, fmul, fdiv, ffma,  # noqa: E402
                 cb_pack, cb_offsets, words, vec, scalar, waves_of, matmul_exact)

GEN = 'benches/kernels/gen.py'
KERNELS = []


def kernel(fn):
    KERNELS.append(fn)
    return fn


def new(name, desc, hlsl, groups, run=None, notes=()):
    return T(name, desc, hlsl, groups=groups, out_dir=HERE, generator=GEN, run=run, notes=notes)


# ---------------------------------------------------------------------------
# Exact arithmetic: values chosen so that every operation is exact in f32, which makes the
# result independent of summation order and of fused multiply-adds.

def xadd(a, b):
    r = Fraction(a) + Fraction(b)
    assert Fraction(f32(float(r))) == r, (a, b)
    return float(r)


def xsub(a, b):
    return xadd(a, -b)


def xmul(a, b):
    r = Fraction(a) * Fraction(b)
    assert Fraction(f32(float(r))) == r, (a, b)
    return float(r)


def exact_sum(terms):
    """Sum of exact f32 terms that every order of addition gives exactly: all terms are multiples
    of the finest quantum among them and their magnitudes add up to at most 2^24 quanta, so every
    partial sum is representable."""
    fr = [Fraction(t) for t in terms]
    if not fr:
        return 0.0
    q = Fraction(1, max(f.denominator for f in fr))
    assert sum(abs(f) for f in fr) <= q * 2 ** 24, terms
    return float(sum(fr))


def exact_dot(ws, xs):
    return exact_sum([xmul(w, x) for w, x in zip(ws, xs)])


def dyadic(r, lo, hi, denom):
    """A random multiple of 1/denom in [lo, hi]."""
    return f32(r.int(int(lo * denom), int(hi * denom)) / denom)


def ulp_dist(a, b):
    def ordered(v):
        bits = f32_bits(v)
        return -(bits & 0x7FFFFFFF) if bits & 0x80000000 else bits
    return abs(ordered(a) - ordered(b))


def round_up(x):
    """x rounded up to one significant decimal digit (a tolerance that reads well)."""
    e = 10.0 ** math.floor(math.log10(x))
    return float("%g" % (math.ceil(x / e - 1e-9) * e))


def nudge(r, x, ulps):
    """x moved by a random number of f32 ulps in [-ulps, ulps] (a less accurate implementation)."""
    return f32_from_bits(f32_bits(x) + r.int(-ulps, ulps)) if x != 0 else x


# ---------------------------------------------------------------------------
@kernel
def matmul_naive():
    hlsl = r'''
// C = A * B with one thread per element of C, looping over K: the simplest matrix multiply.
// A is M x K, B is K x N, C is M x N, all row-major; every thread reads a row of A and a column
// of B straight from device memory. Sizes come from a cbuffer and need not be multiples of
// the 16 x 16 group.

cbuffer Dims : register(b0) {
    uint M;
    uint N;
    uint K;
};

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> C : register(u0);

[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint row = id.y;
    uint col = id.x;
    if (row >= M || col >= N) {
        return;
    }
    float acc = 0.0f;
    for (uint k = 0; k < K; ++k) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}
'''
    M, N, K = 37, 45, 29
    r = Rng(101)
    A = [[dyadic(r, -2, 2, 4) for _ in range(K)] for _ in range(M)]
    B = [[dyadic(r, -4, 4, 2) for _ in range(N)] for _ in range(K)]
    Cm = [[exact_dot(A[i], [B[k][j] for k in range(K)]) for j in range(N)] for i in range(M)]
    assert Cm == matmul_exact(A, B)
    t = new('matmul_naive', '''Benchmark kernel: naive matrix multiply, one thread per element of C with a loop over K;
M = 37, N = 45, K = 29 on a 3 x 3 grid of 16 x 16 groups (edge threads return). Entries are
multiples of 1/4 and 1/2, so C is exact in any summation order, fused or not. C is the last
buffer, so a store outside it faults.''', hlsl, [-(-N // 16), -(-M // 16)])
    t.buf('Dims', 'UInt32', [M, N, K, 0], CB, 0)
    t.buf('A', 'Float32', [x for row in A for x in row], SB, 0)
    t.buf('B', 'Float32', [x for row in B for x in row], SB, 1)
    t.out('C', 'Float32', [x for row in Cm for x in row], RWSB, 0)
    t.write()


@kernel
def jacobi2d():
    hlsl = r'''
// One Jacobi relaxation step for Laplace's equation on a width x height grid (5-point
// stencil): every interior point becomes the average of its four neighbours, boundary points
// (fixed, Dirichlet conditions) are copied. Delta receives |new - old| for the host's
// convergence test. A 2D dispatch of 16 x 16 groups; the host swaps In and Out between steps.

cbuffer Grid : register(b0) {
    uint g_width;
    uint g_height;
};

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);
RWStructuredBuffer<float> Delta : register(u1);

[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint x = id.x;
    uint y = id.y;
    if (x >= g_width || y >= g_height) {
        return;
    }
    uint idx = y * g_width + x;
    float centre = In[idx];
    float next = centre;
    if (x > 0 && y > 0 && x < g_width - 1 && y < g_height - 1) {
        float north = In[idx - g_width];
        float south = In[idx + g_width];
        float west = In[idx - 1];
        float east = In[idx + 1];
        next = 0.25f * (north + south + west + east);
    }
    Out[idx] = next;
    Delta[idx] = abs(next - centre);
}
'''
    W, H = 50, 35
    r = Rng(102)
    grid = [[dyadic(r, -8, 8, 16) for _ in range(W)] for _ in range(H)]
    out, delta = [], []
    for y in range(H):
        for x in range(W):
            c = grid[y][x]
            v = c
            if 0 < x < W - 1 and 0 < y < H - 1:
                s = xadd(xadd(xadd(grid[y - 1][x], grid[y + 1][x]), grid[y][x - 1]), grid[y][x + 1])
                v = xmul(0.25, s)
            out.append(v)
            delta.append(abs(xsub(v, c)))
    t = new('jacobi2d', '''Benchmark kernel: one Jacobi step of a 5-point stencil on a 50 x 35 grid, 2D dispatch of 4 x 3
groups of 16 x 16 (edge threads return), boundary copied. Values are multiples of 1/16 in
[-8, 8]: every sum and the quarter are exact.''', hlsl, [-(-W // 16), -(-H // 16)])
    t.buf('Grid', 'UInt32', [W, H, 0, 0], CB, 0)
    t.buf('In', 'Float32', [x for row in grid for x in row], SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.out('Delta', 'Float32', delta, RWSB, 1)
    t.write()


@kernel
def transpose_tiled():
    hlsl = r'''
// Matrix transpose through a groupshared tile. Each 16 x 16 group reads a tile of In with
// consecutive threads on consecutive addresses, and writes the transposed tile to Out the same
// way, reading the tile by columns. The tile has one padding column (TILE + 1) so that the
// column reads fall in different banks.

#define TILE 16

cbuffer Dims : register(b0) {
    uint g_width;     // of In; Out is g_height wide
    uint g_height;
};

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

groupshared float tile[TILE][TILE + 1];

[numthreads(TILE, TILE, 1)]
void main(uint3 groupId : SV_GroupID, uint3 tid : SV_GroupThreadID) {
    uint x = groupId.x * TILE + tid.x;
    uint y = groupId.y * TILE + tid.y;
    if (x < g_width && y < g_height) {
        tile[tid.y][tid.x] = In[y * g_width + x];
    }
    GroupMemoryBarrierWithGroupSync();

    uint outX = groupId.y * TILE + tid.x;    // a column of Out is a row of In
    uint outY = groupId.x * TILE + tid.y;
    if (outX < g_height && outY < g_width) {
        Out[outY * g_height + outX] = tile[tid.x][tid.y];
    }
}
'''
    W, H = 50, 37
    r = Rng(103)
    M = [[dyadic(r, -100, 100, 8) for _ in range(W)] for _ in range(H)]
    Tm = [[M[y][x] for y in range(H)] for x in range(W)]
    t = new('transpose_tiled', '''Benchmark kernel: transpose of a 37 x 50 matrix (rows x columns) through a padded 16 x 17
groupshared tile, 4 x 3 groups of 16 x 16; tiles at the edges are partial. Out is the last
buffer, so a store outside it faults.''', hlsl, [-(-W // 16), -(-H // 16)])
    t.buf('Dims', 'UInt32', [W, H, 0, 0], CB, 0)
    t.buf('In', 'Float32', [x for row in M for x in row], SB, 0)
    t.out('Out', 'Float32', [x for row in Tm for x in row], RWSB, 0)
    t.write()


@kernel
def fir_filter():
    hlsl = r'''
// Causal FIR filter y[i] = sum over t of h[t] * x[i - t] with 16 taps from a cbuffer
// (four to a float4 row, as cbuffer arrays of floats would take a 16-byte row each). Each group
// of 128 threads stages its 128 samples plus the 15 before them in groupshared memory; samples
// before the start or past the end of the signal read as zero.

#define GROUP_SIZE 128
#define TAPS 16

cbuffer Filter : register(b0) {
    float4 g_taps[TAPS / 4];
    uint g_count;
};

StructuredBuffer<float> Signal : register(t0);
RWStructuredBuffer<float> Filtered : register(u0);

groupshared float s_x[GROUP_SIZE + TAPS - 1];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint gi : SV_GroupIndex) {
    // s_x[j] holds x[first + j]
    int first = int(groupId.x * GROUP_SIZE) - (TAPS - 1);
    for (uint j = gi; j < GROUP_SIZE + TAPS - 1; j += GROUP_SIZE) {
        int s = first + int(j);
        s_x[j] = (s >= 0 && s < int(g_count)) ? Signal[s] : 0.0f;
    }
    GroupMemoryBarrierWithGroupSync();

    uint i = groupId.x * GROUP_SIZE + gi;
    if (i >= g_count) {
        return;
    }
    float acc = 0.0f;
    [unroll]
    for (uint t = 0; t < TAPS; ++t) {
        acc += g_taps[t / 4][t % 4] * s_x[gi + TAPS - 1 - t];
    }
    Filtered[i] = acc;
}
'''
    n, G, taps = 1000, 128, 16
    r = Rng(104)
    h = [dyadic(r, -1, 1, 32) for _ in range(taps)]
    x = [dyadic(r, -4, 4, 64) for _ in range(n)]
    y = [exact_dot(h, [x[i - t] if i - t >= 0 else 0.0 for t in range(taps)]) for i in range(n)]
    fields = [('g_taps', ('arr', vec('float', 4), taps // 4)), ('g_count', scalar('uint'))]
    assert cb_offsets(fields) == {'g_taps': 0, 'g_count': 64}
    cbuf = words(cb_pack(fields, {'g_taps': [h[i:i + 4] for i in range(0, taps, 4)], 'g_count': n}))
    groups = -(-n // G)
    t = new('fir_filter', '''Benchmark kernel: 16-tap causal FIR filter, taps in a cbuffer as float4[4], samples staged in
groupshared memory with a 15-sample halo; 1000 samples in 8 groups of 128 (the last partly
idle). Taps are multiples of 1/32, samples of 1/64: every sum is exact.''', hlsl, [groups])
    t.buf('Filter', 'Hex32', cbuf, CB, 0)
    t.out('Filtered', 'Float32', y, RWSB, 0)
    t.buf('Signal', 'Float32', x, SB, 0)     # last: a read past g_count faults
    t.write()


@kernel
def matmul_microtile():
    hlsl = r'''
// C = A * B with register blocking: each thread computes a 6 x 4 block of C (TM rows, one
// float4 of columns), so every element of B it loads is used six times and every element of A
// four times. The 24 accumulators, the float4 of B and the six values of A are live across the
// K loop: more than the 32 registers of WAVE 0.1.2 and than the budget of moderate occupancy
// targets, so the allocator has to spill. A is M x K (scalars), B is K x N read as float4
// (N a multiple of 4), C is M x N written as float4. Rows of A past M are clamped (read but
// never stored).

#define TM 6

cbuffer Dims : register(b0) {
    uint M;
    uint N;
    uint K;
};

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float4> B : register(t1);
RWStructuredBuffer<float4> C : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint quads = N / 4;
    uint col4 = id.x;               // which float4 of columns
    uint row0 = id.y * TM;
    if (col4 >= quads || row0 >= M) {
        return;
    }

    uint rowA[TM];
    [unroll]
    for (uint r = 0; r < TM; ++r) {
        rowA[r] = min(row0 + r, M - 1) * K;
    }

    float4 acc[TM];
    [unroll]
    for (uint r2 = 0; r2 < TM; ++r2) {
        acc[r2] = float4(0.0f, 0.0f, 0.0f, 0.0f);
    }

    for (uint k = 0; k < K; ++k) {
        float4 b = B[k * quads + col4];
        [unroll]
        for (uint r3 = 0; r3 < TM; ++r3) {
            acc[r3] += A[rowA[r3] + k] * b;
        }
    }

    [unroll]
    for (uint r4 = 0; r4 < TM; ++r4) {
        if (row0 + r4 < M) {
            C[(row0 + r4) * quads + col4] = acc[r4];
        }
    }
}
'''
    M, N, K, TM = 40, 64, 24, 6
    r = Rng(105)
    A = [[dyadic(r, -2, 2, 4) for _ in range(K)] for _ in range(M)]
    B = [[dyadic(r, -4, 4, 2) for _ in range(N)] for _ in range(K)]
    Cm = [[exact_dot(A[i], [B[k][j] for k in range(K)]) for j in range(N)] for i in range(M)]
    gx, gy = -(-(N // 4) // 8), -(-(-(-M // TM)) // 8)
    t = new('matmul_microtile', '''Benchmark kernel (register-hungry): matrix multiply with a 6 x 4 register block of C per
thread (24 float accumulators live across the K loop); M = 40 (not a multiple of 6: the last
block clamps its rows of A and stores only rows < M), N = 64, K = 24, on 2 x 1 groups of 8 x 8.
Entries are multiples of 1/4 and 1/2: C is exact in any order, fused or not.''', hlsl, [gx, gy])
    t.buf('Dims', 'UInt32', [M, N, K, 0], CB, 0)
    t.buf('A', 'Float32', [x for row in A for x in row], SB, 0)
    t.buf('B', 'Float32', [x for row in B for x in row], SB, 1)
    t.out('C', 'Float32', [x for row in Cm for x in row], RWSB, 0)
    t.write()


@kernel
def gemm_microtile8x8():
    hlsl = r"""
// C = A * B, a 64 x 64 tile of C per group of 8 x 8 threads: each thread accumulates an 8 x 8
// micro-tile of C in a local array (64 accumulators), and each step of k reads 8 values of A and
// 8 of B from groupshared slices into local arrays. Every loop over the micro-tile is [unroll]ed,
// so its indices are constants once unrolled. A is M x K, B is K x N, C is M x N (M and N
// multiples of 64, K a multiple of 8), all row-major.

#define TILE 64
#define TK 8
#define TM 8
#define TN 8

cbuffer Dims : register(b0) {
    uint M;
    uint N;
    uint K;
};

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> C : register(u0);

groupshared float As[TK][TILE];     // As[k][m]: A's 64 x 8 slice, transposed
groupshared float Bs[TK][TILE];     // Bs[k][n]: B's 8 x 64 slice

[numthreads(8, 8, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_GroupThreadID, uint gi : SV_GroupIndex) {
    uint row0 = gid.y * TILE;
    uint col0 = gid.x * TILE;

    float acc[TM][TN];
    [unroll]
    for (uint i = 0; i < TM; ++i) {
        [unroll]
        for (uint j = 0; j < TN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    float a[TM];
    float b[TN];
    for (uint k0 = 0; k0 < K; k0 += TK) {
        // The group's 64 threads load both 512-element slices, 8 elements each.
        [unroll]
        for (uint l = 0; l < TILE * TK / 64; ++l) {
            uint e = gi + l * 64;
            uint am = e / TK;
            uint ak = e % TK;
            As[ak][am] = A[(row0 + am) * K + k0 + ak];
            uint bk = e / TILE;
            uint bn = e % TILE;
            Bs[bk][bn] = B[(k0 + bk) * N + col0 + bn];
        }
        GroupMemoryBarrierWithGroupSync();

        [unroll]
        for (uint kk = 0; kk < TK; ++kk) {
            [unroll]
            for (uint i2 = 0; i2 < TM; ++i2) {
                a[i2] = As[kk][tid.y * TM + i2];
            }
            [unroll]
            for (uint j2 = 0; j2 < TN; ++j2) {
                b[j2] = Bs[kk][tid.x * TN + j2];
            }
            [unroll]
            for (uint i3 = 0; i3 < TM; ++i3) {
                [unroll]
                for (uint j3 = 0; j3 < TN; ++j3) {
                    acc[i3][j3] = mad(a[i3], b[j3], acc[i3][j3]);
                }
            }
        }
        GroupMemoryBarrierWithGroupSync();
    }

    [unroll]
    for (uint i4 = 0; i4 < TM; ++i4) {
        [unroll]
        for (uint j4 = 0; j4 < TN; ++j4) {
            C[(row0 + tid.y * TM + i4) * N + col0 + tid.x * TN + j4] = acc[i4][j4];
        }
    }
}
"""
    M, N, K = 64, 128, 16
    r = Rng(108)
    A = [[dyadic(r, -2, 2, 4) for _ in range(K)] for _ in range(M)]
    B = [[dyadic(r, -2, 2, 4) for _ in range(N)] for _ in range(K)]
    Cm = [[exact_dot(A[i], [B[k][j] for k in range(K)]) for j in range(N)] for i in range(M)]
    t = new('gemm_microtile8x8', """Benchmark kernel (compile time and registers): GEMM with an 8 x 8 micro-tile of C per thread
in a local array (64 accumulators), 8 values of A and 8 of B per step of k in local arrays read
from groupshared slices, every loop over them [unroll]ed; M = 64, N = 128, K = 16, on 2 x 1 groups
of 8 x 8 threads. Entries are multiples of 1/4: C is exact in any order, fused or not.""", hlsl, [N // 64, M // 64])
    t.buf('Dims', 'UInt32', [M, N, K, 0], CB, 0)
    t.buf('A', 'Float32', [x for row in A for x in row], SB, 0)
    t.buf('B', 'Float32', [x for row in B for x in row], SB, 1)
    t.out('C', 'Float32', [x for row in Cm for x in row], RWSB, 0)
    t.write()


@kernel
def conv_rgba_8tap():
    hlsl = r'''
// Horizontal pass of a separable 8-tap filter on an RGBA float image, weights per tap and
// channel from a cbuffer, edges clamped. Each thread produces OUTS = 4 consecutive pixels of a
// row: it loads the 11 source pixels they need once into registers and keeps four float4
// accumulators (the classic trade of loads for registers, 60 floats live at the peak).

#define TAPS 8
#define OUTS 4
#define HALF_TAPS 3     // taps cover x - 3 .. x + 4

cbuffer Params : register(b0) {
    float4 g_weights[TAPS];
    uint g_width;
    uint g_height;
};

StructuredBuffer<float4> Src : register(t0);
RWStructuredBuffer<float4> Dst : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint blocksPerRow = (g_width + OUTS - 1) / OUTS;
    uint row = id.x / blocksPerRow;
    uint x0 = (id.x % blocksPerRow) * OUTS;
    if (row >= g_height) {
        return;
    }
    uint rowStart = row * g_width;

    float4 px[OUTS + TAPS - 1];
    [unroll]
    for (int j = 0; j < OUTS + TAPS - 1; ++j) {
        int x = clamp(int(x0) + j - HALF_TAPS, 0, int(g_width) - 1);
        px[j] = Src[rowStart + x];
    }

    float4 acc[OUTS];
    [unroll]
    for (uint o = 0; o < OUTS; ++o) {
        acc[o] = 0.0f;
        [unroll]
        for (uint t = 0; t < TAPS; ++t) {
            acc[o] += g_weights[t] * px[o + t];
        }
    }

    [unroll]
    for (uint o2 = 0; o2 < OUTS; ++o2) {
        if (x0 + o2 < g_width) {
            Dst[rowStart + x0 + o2] = acc[o2];
        }
    }
}
'''
    W, H, taps, outs = 37, 9, 8, 4
    r = Rng(106)
    wts = [[dyadic(r, -0.5, 0.5, 16) for _ in range(4)] for _ in range(taps)]
    img = [[[dyadic(r, 0, 4, 8) for _ in range(4)] for _ in range(W)] for _ in range(H)]
    dst = []
    for y in range(H):
        for x in range(W):
            src = [img[y][min(max(x + t - 3, 0), W - 1)] for t in range(taps)]
            dst.append([exact_dot([wts[t][c] for t in range(taps)], [src[t][c] for t in range(taps)])
                        for c in range(4)])
    fields = [('g_weights', ('arr', vec('float', 4), taps)), ('g_width', scalar('uint')), ('g_height', scalar('uint'))]
    assert cb_offsets(fields) == {'g_weights': 0, 'g_width': 128, 'g_height': 132}
    cbuf = words(cb_pack(fields, {'g_weights': wts, 'g_width': W, 'g_height': H}))
    threads = H * -(-W // outs)
    t = new('conv_rgba_8tap', '''Benchmark kernel (register-hungry): horizontal 8-tap RGBA filter, 4 output pixels per thread
from 11 source pixels kept in registers, float4 weights from a cbuffer, clamped edges; a 37 x 9
image (the last block of each row is partial), 90 threads in 2 groups of 64. Weights are
multiples of 1/16, pixels of 1/8: every sum is exact.''', hlsl, [-(-threads // 64)])
    t.buf('Params', 'Hex32', cbuf, CB, 0)
    t.buf('Src', 'Float32', [c for row in img for p in row for c in p], SB, 0)
    t.out('Dst', 'Float32', [c for p in dst for c in p], RWSB, 0)
    t.write()


@kernel
def spmv_csr():
    hlsl = r'''
// y = alpha * A * x + beta * y for a sparse matrix A in CSR form (row pointers, column indices,
// values), one thread per row: the "scalar" CSR kernel. Rows have 0 to 12 non-zeros, one has
// 40, so lanes of a wave loop for different counts.

cbuffer Params : register(b0) {
    uint g_rows;
    float g_alpha;
    float g_beta;
};

StructuredBuffer<uint> RowPtr : register(t0);     // g_rows + 1 entries
StructuredBuffer<uint> ColIdx : register(t1);
StructuredBuffer<float> Values : register(t2);
StructuredBuffer<float> X : register(t3);
RWStructuredBuffer<float> Y : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint row = id.x;
    if (row >= g_rows) {
        return;
    }
    uint start = RowPtr[row];
    uint end = RowPtr[row + 1];
    float sum = 0.0f;
    for (uint j = start; j < end; ++j) {
        sum += Values[j] * X[ColIdx[j]];
    }
    Y[row] = g_alpha * sum + g_beta * Y[row];
}
'''
    rows, cols = 300, 256
    alpha, beta = 1.5, -0.5
    r = Rng(107)
    ptr, idx, vals = [0], [], []
    for row in range(rows):
        nnz = 40 if row == 77 else r.int(0, 12)
        cs = sorted({r.int(0, cols - 1) for _ in range(nnz)})
        idx += cs
        vals += [dyadic(r, -4, 4, 8) for _ in cs]
        ptr.append(len(idx))
    x = [dyadic(r, -2, 2, 16) for _ in range(cols)]
    y0 = [dyadic(r, -8, 8, 4) for _ in range(rows)]
    y = []
    for row in range(rows):
        s = exact_dot(vals[ptr[row]:ptr[row + 1]], [x[c] for c in idx[ptr[row]:ptr[row + 1]]])
        y.append(xadd(xmul(alpha, s), xmul(beta, y0[row])))
    assert any(ptr[k] == ptr[k + 1] for k in range(rows))
    t = new('spmv_csr', '''Benchmark kernel: sparse matrix-vector product in CSR form, one thread per row (300 rows of 0
to 12 non-zeros, row 77 has 40; some rows are empty), y = 1.5 A x - 0.5 y, 5 groups of 64.
Values are multiples of 1/8, x of 1/16: every sum is exact.''', hlsl, [-(-rows // 64)])
    t.buf('Params', 'Hex32', [rows, f32_bits(alpha), f32_bits(beta), 0], CB, 0)
    t.buf('RowPtr', 'UInt32', ptr, SB, 0)
    t.buf('ColIdx', 'UInt32', idx, SB, 1)
    t.buf('Values', 'Float32', vals, SB, 2)
    t.buf('X', 'Float32', x, SB, 3)
    t.out('Y', 'Float32', y, RWSB, 0, init=y0)
    t.write()


@kernel
def scan_wave():
    hlsl = r'''
// Inclusive prefix sum of 1024 uints per group: 256 threads, each loads four consecutive
// elements (a uint4) and scans them in registers; WavePrefixSum of the threads' totals gives
// what the earlier lanes of the wave add; the last lane of each wave leaves the wave's total in
// groupshared memory, the first wave scans those totals with WavePrefixSum, and each thread
// adds the three parts. The group's total goes to GroupSums for the next level of the scan.
// Independent of the wave width, as long as a group holds at most as many waves as a wave has
// lanes (GROUP_SIZE <= W * W) and the lanes of a wave are consecutive SV_GroupIndex values.

#define GROUP_SIZE 256
#define MAX_WAVES (GROUP_SIZE / 4)      // D3D waves have at least 4 lanes

cbuffer Params : register(b0) {
    uint g_vecCount;     // number of uint4 in Input
};

StructuredBuffer<uint4> Input : register(t0);
RWStructuredBuffer<uint4> Output : register(u0);
RWStructuredBuffer<uint> GroupSums : register(u1);

groupshared uint s_waveTotals[MAX_WAVES];
groupshared uint s_waveOffsets[MAX_WAVES];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint3 dispatchId : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    uint laneCount = WaveGetLaneCount();
    uint waveIndex = gi / laneCount;
    uint numWaves = (GROUP_SIZE + laneCount - 1) / laneCount;
    bool valid = dispatchId.x < g_vecCount;

    uint4 v = valid ? Input[dispatchId.x] : uint4(0, 0, 0, 0);
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;

    uint lanePrefix = WavePrefixSum(v.w);
    if (WaveGetLaneIndex() == laneCount - 1) {
        s_waveTotals[waveIndex] = lanePrefix + v.w;
    }
    GroupMemoryBarrierWithGroupSync();

    if (waveIndex == 0) {
        uint total = gi < numWaves ? s_waveTotals[gi] : 0;
        uint before = WavePrefixSum(total);
        if (gi < numWaves) {
            s_waveOffsets[gi] = before;
        }
        if (gi == numWaves - 1) {
            GroupSums[groupId.x] = before + total;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    if (valid) {
        Output[dispatchId.x] = v + (s_waveOffsets[waveIndex] + lanePrefix);
    }
}
'''
    G, groups, n = 256, 4, 900
    r = Rng(108)
    data = [[r.int(0, 100000) for _ in range(4)] for _ in range(n)]
    out, sums = [], []
    for g in range(groups):
        flat = []
        for k in range(g * G, (g + 1) * G):
            flat += data[k] if k < n else [0, 0, 0, 0]
        acc, scan = 0, []
        for v in flat:
            acc = u32(acc + v)
            scan.append(acc)
        valid = max(0, min(G, n - g * G))
        out += scan[:4 * valid]
        sums.append(acc)
    # the kernel's own algorithm at several wave widths gives the same buffers
    for W in (16, 32, 64):
        o2, s2 = [], []
        for g in range(groups):
            vs = []
            for k in range(g * G, (g + 1) * G):
                v = data[k] if k < n else [0, 0, 0, 0]
                vs.append([v[0], u32(v[0] + v[1]), u32(v[0] + v[1] + v[2]), u32(sum(v))])
            waves = waves_of(G, W)
            tot = [u32(sum(vs[k][3] for k in w)) for w in waves]
            offs = [u32(sum(tot[:i])) for i in range(len(waves))]
            for wi, w in enumerate(waves):
                for lane, k in enumerate(w):
                    pre = u32(sum(vs[k2][3] for k2 in w[:lane]))
                    if g * G + k < n:
                        o2 += [u32(c + offs[wi] + pre) for c in vs[k]]
            s2.append(u32(sum(tot)))
        assert o2 == out and s2 == sums, W
    t = new('scan_wave', '''Benchmark kernel: group-wide inclusive scan of 1024 uints per group (a uint4 per thread) with
WavePrefixSum within waves and groupshared wave totals scanned by the first wave; 900 uint4 in
4 groups of 256 (the last partly idle). The generator checks the kernel's algorithm at wave
widths 16, 32 and 64 against a plain scan, so the test serves every target.''', hlsl, [groups])
    t.buf('Params', 'UInt32', [n, 0, 0, 0], CB, 0)
    t.buf('Input', 'UInt32', [x for v in data for x in v], SB, 0, Stride=16)
    t.out('GroupSums', 'UInt32', sums, RWSB, 1)
    t.out('Output', 'UInt32', out, RWSB, 0, Stride=16)
    t.write()


@kernel
def radix_count():
    hlsl = r'''
// Counting pass of a least-significant-digit radix sort with 4-bit digits. Each group of 256
// threads takes 256 keys. For each of the 16 digits, WaveActiveCountBits counts the lanes of
// the wave holding it (the first lane writes the count to groupshared memory) and
// WavePrefixCountBits ranks each key among the earlier lanes with the same digit; after a
// barrier, each key's rank in the group adds the counts of the earlier waves. The group's
// digit counts go out digit-major (GroupCounts[digit * groups + group], the layout the scan
// pass wants) and are added to global totals with InterlockedAdd. Keys past the end have no
// digit. Independent of the wave width.

#define GROUP_SIZE 256
#define RADIX 16
#define MAX_WAVES (GROUP_SIZE / 4)

cbuffer SortParams : register(b0) {
    uint g_shift;         // the digit is bits [g_shift, g_shift + 4) of the key
    uint g_keyCount;
    uint g_groupCount;
};

StructuredBuffer<uint> Keys : register(t0);
RWStructuredBuffer<uint> GroupCounts : register(u0);
RWStructuredBuffer<uint> LocalRank : register(u1);
RWStructuredBuffer<uint> DigitTotals : register(u2);

groupshared uint s_waveCounts[MAX_WAVES * RADIX];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint3 dispatchId : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    uint laneCount = WaveGetLaneCount();
    uint waveIndex = gi / laneCount;
    uint numWaves = (GROUP_SIZE + laneCount - 1) / laneCount;

    bool valid = dispatchId.x < g_keyCount;
    uint digit = valid ? (Keys[dispatchId.x] >> g_shift) & (RADIX - 1) : RADIX;

    uint rankInWave = 0;
    [unroll]
    for (uint d = 0; d < RADIX; ++d) {
        bool mine = digit == d;
        uint below = WavePrefixCountBits(mine);
        uint count = WaveActiveCountBits(mine);
        if (mine) {
            rankInWave = below;
        }
        if (WaveIsFirstLane()) {
            s_waveCounts[waveIndex * RADIX + d] = count;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    if (valid) {
        uint before = 0;
        for (uint w = 0; w < waveIndex; ++w) {
            before += s_waveCounts[w * RADIX + digit];
        }
        LocalRank[dispatchId.x] = before + rankInWave;
    }
    if (gi < RADIX) {
        uint total = 0;
        for (uint w2 = 0; w2 < numWaves; ++w2) {
            total += s_waveCounts[w2 * RADIX + gi];
        }
        GroupCounts[gi * g_groupCount + groupId.x] = total;
        InterlockedAdd(DigitTotals[gi], total);
    }
}
'''
    G, groups, n, shift = 256, 4, 1000, 4
    r = Rng(109)
    # skewed digits, as real keys have: many small values, some large
    keys = [r.int(0, 255) if r.int(0, 3) else r.int(0, 0xFFFFFFFF) for _ in range(n)]
    digits = [(k >> shift) & 15 for k in keys]
    counts = [[0] * 16 for _ in range(groups)]
    rank = []
    for i, d in enumerate(digits):
        g = i // G
        rank.append(counts[g][d])
        counts[g][d] += 1
    group_counts = [counts[g][d] for d in range(16) for g in range(groups)]
    totals = [sum(counts[g][d] for g in range(groups)) for d in range(16)]
    # the kernel's algorithm (per-wave counts, then earlier waves) at several widths
    for W in (16, 32, 64):
        rk = []
        for g in range(groups):
            ds = [digits[g * G + k] if g * G + k < n else 16 for k in range(G)]
            waves = waves_of(G, W)
            wc = [[sum(1 for k in w if ds[k] == d) for d in range(16)] for w in waves]
            for wi, w in enumerate(waves):
                for lane, k in enumerate(w):
                    if ds[k] < 16:
                        rk.append(sum(wc[w2][ds[k]] for w2 in range(wi)) +
                                  sum(1 for k2 in w[:lane] if ds[k2] == ds[k]))
        assert rk == rank, W
    t = new('radix_count', '''Benchmark kernel: counting pass of a 4-bit radix sort (digit 1, bits 4..7) over 1000 keys in 4
groups of 256 (the last partly idle): 16 unrolled rounds of WavePrefixCountBits and
WaveActiveCountBits, per-wave counts in groupshared memory, digit-major group counts and
InterlockedAdd totals. The generator checks the kernel's algorithm at wave widths 16, 32 and 64
against a plain stable count, so the test serves every target.''', hlsl, [groups])
    t.buf('SortParams', 'UInt32', [shift, n, groups, 0], CB, 0)
    t.out('GroupCounts', 'UInt32', group_counts, RWSB, 0)
    t.out('LocalRank', 'UInt32', rank, RWSB, 1)
    t.out('DigitTotals', 'UInt32', totals, RWSB, 2)
    t.buf('Keys', 'Hex32', keys, SB, 0)
    t.write()


@kernel
def bool_flags():
    hlsl = r'''
// Particle classification: twelve flags are computed up front from the loaded values and
// the cbuffer (box containment per axis, speed classes, direction, mass, tag bits, id parity),
// stay live across a few integration sub-steps that keep many floats live, and are used after
// them: as branch conditions, in selects, packed into a bit mask, and counted per flag (wave
// counts added into groupshared counters, then into the global counters). Particles that
// start outside the box keep their position; pinned ones do not move.

#define GROUP_SIZE 64
#define NUM_FLAGS 12

cbuffer Params : register(b0) {
    float4 g_boxMin;          // xyz
    float4 g_boxMax;          // xyz
    float4 g_gravity;         // xyz; w: time step
    float g_slowSpeedSq;
    float g_fastSpeedSq;
    float g_heavyMass;
    uint g_count;
    uint g_steps;
};

StructuredBuffer<float4> Positions : register(t0);    // xyz; w: mass
StructuredBuffer<float4> Velocities : register(t1);   // xyz
StructuredBuffer<uint> Tags : register(t2);           // bit 0 pinned, bit 1 tracked, 8..15 priority
RWStructuredBuffer<float4> Out : register(u0);        // xyz: position; w: score
RWStructuredBuffer<uint> FlagBits : register(u1);
RWStructuredBuffer<uint> FlagCounts : register(u2);

groupshared uint s_counts[NUM_FLAGS];

void countFlag(uint k, bool flag) {
    uint n = WaveActiveCountBits(flag);
    if (WaveIsFirstLane() && n != 0) {
        InterlockedAdd(s_counts[k], n);
    }
}

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    if (gi < NUM_FLAGS) {
        s_counts[gi] = 0;
    }
    GroupMemoryBarrierWithGroupSync();

    uint i = dispatchId.x;
    bool valid = i < g_count;
    uint j = min(i, g_count - 1);
    float4 p = Positions[j];
    float4 v = Velocities[j];
    uint tag = Tags[j];

    bool inX = p.x >= g_boxMin.x && p.x <= g_boxMax.x;
    bool inY = p.y >= g_boxMin.y && p.y <= g_boxMax.y;
    bool inZ = p.z >= g_boxMin.z && p.z <= g_boxMax.z;
    float speedSq = dot(v.xyz, v.xyz);
    bool slow = speedSq < g_slowSpeedSq;
    bool fast = speedSq > g_fastSpeedSq;
    bool rising = v.y > 0.0f;
    bool heavy = p.w >= g_heavyMass;
    bool pinned = (tag & 1) != 0;
    bool tracked = (tag & 2) != 0;
    bool urgent = ((tag >> 8) & 0xFF) > 100;
    bool leftHalf = p.x < 0.5f * (g_boxMin.x + g_boxMax.x);
    bool evenId = (i & 1) == 0;

    float3 pos = p.xyz;
    float3 vel = v.xyz;
    float3 travelled = float3(0.0f, 0.0f, 0.0f);
    float bounces = 0.0f;
    float dt = g_gravity.w;
    for (uint s = 0; s < g_steps; ++s) {
        if (!pinned) {
            vel += g_gravity.xyz * dt;
            float3 next = pos + vel * dt;
            travelled += abs(next - pos);
            if (next.y < g_boxMin.y) {
                next.y = g_boxMin.y;
                vel.y = -0.5f * vel.y;
                bounces += 1.0f;
            }
            pos = next;
        }
    }

    bool inside = inX && inY && inZ;
    float3 finalPos = inside ? pos : p.xyz;
    float score = (rising ? 1.0f : 0.0f) + (tracked ? 2.0f : 0.0f) + (urgent ? 4.0f : 0.0f);
    score += heavy ? travelled.x + travelled.y + travelled.z : bounces;
    if (fast && !slow) {
        score *= 2.0f;
    } else if (slow) {
        score = -score;
    }
    score = leftHalf ? score + 0.25f : score;
    score = evenId ? score : score - 0.125f;

    uint bits = (inX ? 1u : 0u) | (inY ? 2u : 0u) | (inZ ? 4u : 0u) | (slow ? 8u : 0u)
              | (fast ? 16u : 0u) | (rising ? 32u : 0u) | (heavy ? 64u : 0u) | (pinned ? 128u : 0u)
              | (tracked ? 256u : 0u) | (urgent ? 512u : 0u) | (leftHalf ? 1024u : 0u) | (evenId ? 2048u : 0u);
    if (valid) {
        Out[i] = float4(finalPos, score);
        FlagBits[i] = bits;
    }

    countFlag(0, valid && inX);
    countFlag(1, valid && inY);
    countFlag(2, valid && inZ);
    countFlag(3, valid && slow);
    countFlag(4, valid && fast);
    countFlag(5, valid && rising);
    countFlag(6, valid && heavy);
    countFlag(7, valid && pinned);
    countFlag(8, valid && tracked);
    countFlag(9, valid && urgent);
    countFlag(10, valid && leftHalf);
    countFlag(11, valid && evenId);
    GroupMemoryBarrierWithGroupSync();
    if (gi < NUM_FLAGS) {
        InterlockedAdd(FlagCounts[gi], s_counts[gi]);
    }
}
'''
    n, G, steps = 200, 64, 4
    box_min, box_max = [-6.0, -4.0, -6.0], [6.0, 8.0, 6.0]
    grav, dt = [0.0, -8.0, 0.0], 0.0625
    slow_sq, fast_sq, heavy_mass = 1.0, 9.0, 2.0
    r = Rng(110)
    pos = [[dyadic(r, -8, 8, 16), dyadic(r, -5, 9, 16), dyadic(r, -8, 8, 16), r.pick([0.5, 1.0, 2.0, 4.0])]
           for _ in range(n)]
    vel = [[dyadic(r, -3, 3, 8) for _ in range(3)] + [0.0] for _ in range(n)]
    tags = [r.int(0, 3) | (r.int(0, 255) << 8) | (r.int(0, 0xFFFF) << 16) for _ in range(n)]
    out, bits_out, counts = [], [], [0] * 12
    centre_x = xmul(0.5, xadd(box_min[0], box_max[0]))
    for i in range(n):
        p, v, tag = pos[i], vel[i], tags[i]
        inx = box_min[0] <= p[0] <= box_max[0]
        iny = box_min[1] <= p[1] <= box_max[1]
        inz = box_min[2] <= p[2] <= box_max[2]
        sp = exact_dot(v[:3], v[:3])
        flags = [inx, iny, inz, sp < slow_sq, sp > fast_sq, v[1] > 0, p[3] >= heavy_mass, bool(tag & 1),
                 bool(tag & 2), ((tag >> 8) & 0xFF) > 100, p[0] < centre_x, i % 2 == 0]
        slow, fast, rising, heavy, pinned, tracked, urgent, left, even = flags[3:]
        ps, vs = list(p[:3]), list(v[:3])
        trav, bounces = [0.0, 0.0, 0.0], 0.0
        for _ in range(steps):
            if not pinned:
                vs = [xadd(vs[k], xmul(grav[k], dt)) for k in range(3)]
                nxt = [xadd(ps[k], xmul(vs[k], dt)) for k in range(3)]
                trav = [xadd(trav[k], abs(xsub(nxt[k], ps[k]))) for k in range(3)]
                if nxt[1] < box_min[1]:
                    nxt[1] = box_min[1]
                    vs[1] = xmul(-0.5, vs[1])
                    bounces += 1.0
                ps = nxt
        final = ps if (inx and iny and inz) else p[:3]
        score = (1.0 if rising else 0.0) + (2.0 if tracked else 0.0) + (4.0 if urgent else 0.0)
        score = xadd(score, exact_sum(trav) if heavy else bounces)
        if fast and not slow:
            score = xmul(score, 2.0)
        elif slow:
            score = -score
        score = xadd(score, 0.25) if left else score
        score = score if even else xsub(score, 0.125)
        out += final + [score]
        bits_out.append(sum(1 << k for k, f in enumerate(flags) if f))
        counts = [c + f for c, f in zip(counts, flags)]
    assert all(0 < c < n for c in counts), counts
    fields = [('g_boxMin', vec('float', 4)), ('g_boxMax', vec('float', 4)), ('g_gravity', vec('float', 4)),
              ('g_slowSpeedSq', scalar('float')), ('g_fastSpeedSq', scalar('float')), ('g_heavyMass', scalar('float')),
              ('g_count', scalar('uint')), ('g_steps', scalar('uint'))]
    assert cb_offsets(fields)['g_count'] == 60 and cb_offsets(fields)['g_steps'] == 64
    cbuf = words(cb_pack(fields, {'g_boxMin': box_min + [0.0], 'g_boxMax': box_max + [0.0], 'g_gravity': grav + [dt],
                                  'g_slowSpeedSq': slow_sq, 'g_fastSpeedSq': fast_sq, 'g_heavyMass': heavy_mass,
                                  'g_count': n, 'g_steps': steps}))
    t = new('bool_flags', '''Benchmark kernel (bool-heavy): twelve boolean flags computed from loaded values and the cbuffer
stay live across a 4-step integration loop and are used after it in branches, selects, a
packed bit mask and per-flag wave counts (WaveActiveCountBits into groupshared counters, then
InterlockedAdd). 200 particles in 4 groups of 64 (the last partly idle). Dyadic values
(dt = 1/16): every operation is exact.''', hlsl, [-(-n // G)])
    t.buf('Params', 'Hex32', cbuf, CB, 0)
    t.buf('Positions', 'Float32', [x for p in pos for x in p], SB, 0)
    t.buf('Velocities', 'Float32', [x for v in vel for x in v], SB, 1)
    t.buf('Tags', 'Hex32', tags, SB, 2)
    t.out('FlagBits', 'Hex32', bits_out, RWSB, 1)
    t.out('FlagCounts', 'UInt32', counts, RWSB, 2)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@kernel
def half_grade():
    hlsl = r'''
// Color grading in half precision: exposure and tint, contrast around mid-grey, saturation
// (lerp from the Rec. 709 luminance), an overlay blended by its alpha, then saturate. Pixels
// and results are half4; the luminance and the blended alpha also go out as a half2.
// Parameters arrive as floats in the cbuffer and are converted to half once.

cbuffer Grade : register(b0) {
    float4 g_tint;            // rgb; a unused
    float g_exposure;
    float g_contrast;
    float g_saturation;
    float g_overlayOpacity;
    uint g_pixelCount;
};

StructuredBuffer<half4> Base : register(t0);
StructuredBuffer<half4> Overlay : register(t1);
RWStructuredBuffer<half4> Graded : register(u0);
RWStructuredBuffer<half2> LumaAlpha : register(u1);

static const half3 LUMA = half3(0.2126h, 0.7152h, 0.0722h);

[numthreads(128, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    if (i >= g_pixelCount) {
        return;
    }
    half4 base = Base[i];
    half4 over = Overlay[i];
    half3 tint = (half3)g_tint.rgb;
    half exposure = (half)g_exposure;
    half contrast = (half)g_contrast;
    half saturation = (half)g_saturation;
    half opacity = (half)g_overlayOpacity;

    half3 c = base.rgb * exposure * tint;
    c = (c - 0.5h) * contrast + 0.5h;
    half luma = dot(c, LUMA);
    c = lerp(half3(luma, luma, luma), c, saturation);
    half a = over.a * opacity;
    c = lerp(c, over.rgb, a);
    c = saturate(c);
    half alpha = a + base.a * (1.0h - a);

    Graded[i] = half4(c, alpha);
    LumaAlpha[i] = half2(luma, alpha);
}
'''
    n, G = 300, 128
    tint, exposure, contrast, saturation, opacity = [1.0, 0.9, 0.75], 1.25, 1.2, 0.8, 0.6
    r = Rng(111)
    base = [[f16(r.int(0, 384) / 256) for _ in range(3)] + [f16(r.int(0, 256) / 256)] for _ in range(n)]
    over = [[f16(r.int(0, 256) / 256) for _ in range(4)] for _ in range(n)]
    H = [f16(x) for x in tint]
    he, hc, hs, ho = f16(exposure), f16(contrast), f16(saturation), f16(opacity)
    L = [f16(0.2126), f16(0.7152), f16(0.0722)]

    def lerp(a, b, s):       # a + s * (b - a), each step rounded to half
        return f16(a + f16(s * f16(b - a)))
    graded, la = [], []
    for b, o in zip(base, over):
        c = [f16(f16(b[k] * he) * H[k]) for k in range(3)]
        c = [f16(f16(f16(x - 0.5) * hc) + 0.5) for x in c]
        luma = f16(f16(f16(c[0] * L[0]) + f16(c[1] * L[1])) + f16(c[2] * L[2]))
        c = [lerp(luma, x, hs) for x in c]
        a = f16(o[3] * ho)
        c = [lerp(c[k], o[k], a) for k in range(3)]
        c = [min(max(x, 0.0), 1.0) for x in c]
        alpha = f16(a + f16(b[3] * f16(1.0 - a)))
        graded += c + [alpha]
        la += [luma, alpha]
    assert any(x == 1.0 for x in graded) and any(x == 0.0 for x in graded)
    fields = [('g_tint', vec('float', 4)), ('g_exposure', scalar('float')), ('g_contrast', scalar('float')),
              ('g_saturation', scalar('float')), ('g_overlayOpacity', scalar('float')), ('g_pixelCount', scalar('uint'))]
    assert cb_offsets(fields) == {'g_tint': 0, 'g_exposure': 16, 'g_contrast': 20, 'g_saturation': 24,
                                  'g_overlayOpacity': 28, 'g_pixelCount': 32}
    cbuf = words(cb_pack(fields, {'g_tint': tint + [1.0], 'g_exposure': exposure, 'g_contrast': contrast,
                                  'g_saturation': saturation, 'g_overlayOpacity': opacity, 'g_pixelCount': n}))
    t = new('half_grade', '''Benchmark kernel (half-heavy): color grading on half4 pixels with -enable-16bit-types:
multiply chains, contrast, a dot with half weights, two lerps, saturate, an alpha blend; half4
and half2 results. 300 pixels in 3 groups of 128 (the last partly idle). The model rounds to
half after every operation (docs/language.md: 16-bit arithmetic computes in 32 bits and
rounds, so results equal native half operations), so the comparison is exact.''', hlsl, [-(-n // G)],
              run='-enable-16bit-types -T cs_6_2')
    t.buf('Grade', 'Hex32', cbuf, CB, 0)
    t.buf('Base', 'Float16', [x for p in base for x in p], SB, 0, Stride=8)
    t.buf('Overlay', 'Float16', [x for p in over for x in p], SB, 1, Stride=8)
    t.out('LumaAlpha', 'Float16', la, RWSB, 1, Stride=4)
    t.out('Graded', 'Float16', graded, RWSB, 0, Stride=8)
    t.write()


@kernel
def softmax_rows():
    hlsl = r'''
// Row-wise softmax: one group of 64 threads per row of g_cols logits. The threads stride over
// the row for its maximum, reduce the maxima in groupshared memory, write exp(x - max) and
// reduce their sum the same way, then scale the row by 1 / sum.

#define GROUP_SIZE 64

cbuffer Shape : register(b0) {
    uint g_rows;
    uint g_cols;
};

StructuredBuffer<float> Logits : register(t0);
RWStructuredBuffer<float> Probs : register(u0);

groupshared float s_red[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint gi : SV_GroupIndex) {
    uint base = groupId.x * g_cols;

    float m = -3.402823466e+38f;
    for (uint c = gi; c < g_cols; c += GROUP_SIZE) {
        m = max(m, Logits[base + c]);
    }
    s_red[gi] = m;
    GroupMemoryBarrierWithGroupSync();
    [unroll]
    for (uint s = GROUP_SIZE / 2; s > 0; s >>= 1) {
        if (gi < s) {
            s_red[gi] = max(s_red[gi], s_red[gi + s]);
        }
        GroupMemoryBarrierWithGroupSync();
    }
    float rowMax = s_red[0];
    GroupMemoryBarrierWithGroupSync();

    float sum = 0.0f;
    for (uint c2 = gi; c2 < g_cols; c2 += GROUP_SIZE) {
        float e = exp(Logits[base + c2] - rowMax);
        Probs[base + c2] = e;
        sum += e;
    }
    s_red[gi] = sum;
    GroupMemoryBarrierWithGroupSync();
    [unroll]
    for (uint s2 = GROUP_SIZE / 2; s2 > 0; s2 >>= 1) {
        if (gi < s2) {
            s_red[gi] += s_red[gi + s2];
        }
        GroupMemoryBarrierWithGroupSync();
    }
    float inv = 1.0f / s_red[0];

    for (uint c3 = gi; c3 < g_cols; c3 += GROUP_SIZE) {
        Probs[base + c3] *= inv;
    }
}
'''
    rows, cols, G = 6, 200, 64
    r = Rng(112)
    logits = [[dyadic(r, -6, 6, 64) for _ in range(cols)] for _ in range(rows)]
    log2e = f32(1 / math.log(2))

    def model(exp2, recip):
        """The kernel in f32: exp(x) as exp2(x * log2 e) (docs/language.md), the thread sums
        and the tree in the kernel's order."""
        out = []
        for row in logits:
            mx = max(row)
            es = [exp2(fmul(fsub(x, mx), log2e)) for x in row]
            part = [0.0] * G
            for c in range(cols):
                part[c % G] = fadd(part[c % G], es[c])
            s = G // 2
            while s:
                for k in range(s):
                    part[k] = fadd(part[k], part[k + s])
                s //= 2
            inv = recip(part[0])
            out += [fmul(e, inv) for e in es]
        return out
    expected = model(lambda y: f32(2.0 ** y), lambda s: fdiv(1.0, s))
    # The same in exact arithmetic: the expected values are within a few ulps of the true softmax.
    true = []
    for row in logits:
        mx = max(row)
        es = [math.exp(x - mx) for x in row]
        tot = sum(es)
        true += [e / tot for e in es]
    err_true = max(ulp_dist(a, f32(b)) for a, b in zip(expected, true))
    # A less accurate implementation: exp2 and the reciprocal off by up to 2 ulps.
    noisy = Rng(113)
    rough = model(lambda y: nudge(noisy, f32(2.0 ** y), 2), lambda s: nudge(noisy, fdiv(1.0, s), 2))
    drift = max(ulp_dist(a, b) for a, b in zip(expected, rough))
    ulpt = 4 * max(drift, 2)
    assert err_true < ulpt and ulpt <= 32, (err_true, drift, ulpt)
    assert min(expected) > 2.0 ** -100    # far from denormals: -denorm ftz cannot matter
    t = new('softmax_rows', '''Benchmark kernel: row-wise softmax of 6 rows of 200 logits (multiples of 1/64 in [-6, 6]), one
group of 64 per row: groupshared max and sum tree reductions, exp, scaling by 1 / sum.
Expected values come from an f32 model of the kernel (exp as exp2(x * log2 e) correctly
rounded, the kernel's summation order); the tolerance (BufferFloatULP) is four times the drift
of the same model with exp2 and 1 / sum off by up to 2 ulps, and also covers the distance to
the exact softmax.''', hlsl, [rows], notes=('ulp drift %d, distance to exact softmax %d ulp' % (drift, err_true),))
    t.buf('Shape', 'UInt32', [rows, cols, 0, 0], CB, 0)
    t.buf('Logits', 'Float32', [x for row in logits for x in row], SB, 0)
    t.out('Probs', 'Float32', expected, RWSB, 0, ulp=ulpt)
    t.write()


@kernel
def luminance_reduce():
    hlsl = r'''
// First pass of automatic exposure (tone mapping): each thread converts up to four HDR pixels
// to luminance (Rec. 709 weights), accumulates log2(luminance + delta) and the maximum; the
// group reduces both in groupshared memory, writes its partial log sum, and folds its maximum
// into a global one with InterlockedMax on the float's bits (for non-negative floats the
// unsigned order of the bits is the float order).

#define GROUP_SIZE 128
#define PIXELS_PER_THREAD 4

cbuffer Params : register(b0) {
    uint g_pixelCount;
    float g_delta;            // keeps log2 finite for black pixels
};

StructuredBuffer<float4> Hdr : register(t0);
RWStructuredBuffer<float> PartialLogSum : register(u0);
RWStructuredBuffer<uint> MaxLuminance : register(u1);

groupshared float s_log[GROUP_SIZE];
groupshared float s_max[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint gi : SV_GroupIndex) {
    float logSum = 0.0f;
    float maxLum = 0.0f;
    [unroll]
    for (uint k = 0; k < PIXELS_PER_THREAD; ++k) {
        uint p = (groupId.x * PIXELS_PER_THREAD + k) * GROUP_SIZE + gi;
        if (p < g_pixelCount) {
            float lum = dot(Hdr[p].rgb, float3(0.2126f, 0.7152f, 0.0722f));
            logSum += log2(lum + g_delta);
            maxLum = max(maxLum, lum);
        }
    }
    s_log[gi] = logSum;
    s_max[gi] = maxLum;
    GroupMemoryBarrierWithGroupSync();
    [unroll]
    for (uint s = GROUP_SIZE / 2; s > 0; s >>= 1) {
        if (gi < s) {
            s_log[gi] += s_log[gi + s];
            s_max[gi] = max(s_max[gi], s_max[gi + s]);
        }
        GroupMemoryBarrierWithGroupSync();
    }
    if (gi == 0) {
        PartialLogSum[groupId.x] = s_log[0];
        InterlockedMax(MaxLuminance[0], asuint(s_max[0]));
    }
}
'''
    n, G, per = 1500, 128, 4
    groups = -(-n // (G * per))
    delta = f32(1e-4)
    r = Rng(114)
    hdr = []
    for k in range(n):
        scale = r.pick([1 / 64, 1 / 8, 1.0, 4.0, 32.0])
        hdr.append([f32(r.int(0, 1024) / 1024 * scale) for _ in range(3)] + [1.0])
    wts = [f32(0.2126), f32(0.7152), f32(0.0722)]
    # dot is a chain of multiply-adds in order, each rounded once (docs/language.md:
    # contraction), so luminance is exact
    lum = [ffma(p[2], wts[2], ffma(p[1], wts[1], fmul(p[0], wts[0]))) for p in hdr]

    def model(log2):
        sums, mx = [], 0.0
        for g in range(groups):
            ls, ms = [0.0] * G, [0.0] * G
            for gi in range(G):
                for k in range(per):
                    p = (g * per + k) * G + gi
                    if p < n:
                        ls[gi] = fadd(ls[gi], log2(fadd(lum[p], delta)))
                        ms[gi] = max(ms[gi], lum[p])
            s = G // 2
            while s:
                for k in range(s):
                    ls[k] = fadd(ls[k], ls[k + s])
                    ms[k] = max(ms[k], ms[k + s])
                s //= 2
            sums.append(ls[0])
            mx = max(mx, ms[0])
        return sums, mx
    sums, mx = model(lambda x: f32(math.log2(x)))
    noisy = Rng(115)
    rough, mx2 = model(lambda x: nudge(noisy, f32(math.log2(x)), 2))
    assert mx2 == mx
    drift = max(abs(a - b) for a, b in zip(sums, rough))
    # the sums are large (hundreds), so the drift is mostly rounded away: at least 4 ulps of them
    big = max(abs(x) for x in sums)
    ulp = 2.0 ** (math.frexp(big)[1] - 24)
    eps = round_up(max(20 * drift, 4 * ulp))
    assert eps >= 20 * drift and eps >= 4 * ulp and eps < 0.01, (eps, drift)
    t = new('luminance_reduce', '''Benchmark kernel: log-average and maximum luminance (tone-mapping exposure) of 1500 HDR pixels
in 3 groups of 128 threads, four pixels per thread: dot with Rec. 709 weights, log2, groupshared
sum and max reductions, InterlockedMax on the float bits. Expected values come from an f32 model
with a correctly rounded log2 (the dot a chain of multiply-adds in order, each rounded once, as
docs/language.md specifies, so the maximum is exact); the partial sums' tolerance
(BufferFloatEpsilon) is the larger of 20 times the drift of the model with log2 off by up to 2
ulps and 4 ulps of the largest sum.''', hlsl, [groups],
              notes=('drift of the partial log sums: %.3g; epsilon %g' % (drift, eps),))
    t.buf('Params', 'Hex32', [n, f32_bits(delta), 0, 0], CB, 0)
    t.buf('Hdr', 'Float32', [x for p in hdr for x in p], SB, 0)
    t.out('PartialLogSum', 'Float32', sums, RWSB, 0, eps=eps)
    t.out('MaxLuminance', 'Hex32', [f32_bits(mx)], RWSB, 1)
    t.write()


# ---------------------------------------------------------------------------
# The GPUOpen article's "Optimize VGPR usage" examples: a wave-invariant 4x4 matrix
# ("zero VGPRs wasted") and booleans ("zero VGPR cost"), behind the `if (i >= n) return;`
# that nearly every real kernel starts with.

def _points_and_matrix(seed, n):
    r = Rng(seed)
    pts = [[dyadic(r, -4, 4, 4) for _ in range(3)] + [1.0] for _ in range(n)]
    # Entries are multiples of 1/4 in [-1, 1]: three products of such matrices with such
    # points stay exact (quanta of 1/256, magnitudes far below 2^24 quanta).
    m = [[dyadic(r, -1, 1, 4) for _ in range(4)] for _ in range(4)]
    return pts, m


def _transform(p, m, iters):
    """`p = mul(p, M)` `iters` times (row vector times a row-major matrix), exactly."""
    for _ in range(iters):
        p = [exact_dot(p, [m[k][j] for k in range(4)]) for j in range(4)]
    return p


@kernel
def point_transform_cb():
    hlsl = r'''
// Points transformed by a wave-invariant 4x4 matrix from a cbuffer, several times in a loop
// (the GPUOpen article's example: the matrix belongs in scalar registers, "zero VGPRs wasted").
// Threads past the point count return first.

cbuffer Transform : register(b0) {
    row_major float4x4 g_matrix;
    uint g_count;
    uint g_iterations;
};

RWStructuredBuffer<float4> Points : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    if (i >= g_count) {
        return;
    }
    float4 p = Points[i];
    for (uint k = 0; k < g_iterations; ++k) {
        p = mul(p, g_matrix);
    }
    Points[i] = p;
}
'''
    n, iters = 200, 3
    pts, m = _points_and_matrix(131, n)
    out = [_transform(p, m, iters) for p in pts]
    t = new('point_transform_cb', '''Benchmark kernel: 200 points multiplied by a row-major 4x4 matrix from a cbuffer three
times in a loop (a row vector times the matrix, mul(p, M)), 4 groups of 64 threads, the last
partly past the count (they return first). Coordinates are multiples of 1/4 in [-4, 4] and
matrix entries multiples of 1/4 in [-1, 1], so every result is exact in any summation order,
fused or not.''', hlsl, [-(-n // 64)])
    # row_major float4x4: the rows in order, then the two counts.
    t.buf('Transform', 'Hex32', [f32_bits(x) for row in m for x in row] + [n, iters, 0, 0], CB, 0)
    t.out('Points', 'Float32', [x for p in out for x in p], RWSB, 0, init=[x for p in pts for x in p])
    t.write()


@kernel
def point_transform_sb():
    hlsl = r'''
// Points transformed by a matrix that is the same for the whole group, read from a
// StructuredBuffer<float4x4> at an index derived from the group id: a uniform load, four rows
// of four words (the GPUOpen article: load it with wide loads at a uniform address).

cbuffer Params : register(b0) {
    uint g_count;
    uint g_matrices;
};

StructuredBuffer<float4x4> Matrices : register(t0);
StructuredBuffer<float4> In : register(t1);
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID) {
    uint i = id.x;
    if (i >= g_count) {
        return;
    }
    float4x4 m = Matrices[group.x % g_matrices];
    Out[i] = mul(m, In[i]);
}
'''
    n, nm = 300, 3
    r = Rng(137)
    mats = []
    for _ in range(nm):
        mats.append([[dyadic(r, -1, 1, 4) for _ in range(4)] for _ in range(4)])
    pts = [[dyadic(r, -4, 4, 4) for _ in range(3)] + [1.0] for _ in range(n)]
    groups = -(-n // 64)
    out = []
    for i, p in enumerate(pts):
        m = mats[(i // 64) % nm]
        # mul(M, v): column vector, M's rows dotted with v; a float4x4 in a structured
        # buffer is column-major by default, so row k of M is column k in memory.
        out.append([exact_dot(m[k], p) for k in range(4)])
    t = new('point_transform_sb', '''Benchmark kernel: 300 points, each multiplied by one of three 4x4 matrices chosen per group
(group id modulo the matrix count, a uniform index) from a StructuredBuffer<float4x4>, 5 groups
of 64 threads (the last partly past the count). Entries are multiples of 1/4, so results are
exact in any order, fused or not.''', hlsl, [groups])
    t.buf('Params', 'UInt32', [n, nm, 0, 0], CB, 0)
    # Column-major storage (HLSL's default packing for structured buffers too).
    t.buf('Matrices', 'Float32', [m[k][c] for m in mats for c in range(4) for k in range(4)], SB, 0)
    t.buf('In', 'Float32', [x for p in pts for x in p], SB, 1)
    t.out('Out', 'Float32', [x for p in out for x in p], RWSB, 0)
    t.write()


@kernel
def bool_classify():
    hlsl = r'''
// Per-element flags combined into a bit code, after the usual early return: booleans that the
// GPUOpen article says should cost no VGPRs (lane masks), here as predicates and bits.

cbuffer Params : register(b0) {
    uint g_count;
    float g_lo;
    float g_hi;
    float g_threshold;
};

StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<uint> Codes : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    if (i >= g_count) {
        return;
    }
    float4 v = In[i];
    bool inRange = v.x >= g_lo && v.x <= g_hi;
    bool bright = v.y > g_threshold;
    bool opaque = v.w >= 1.0f;
    bool negative = v.z < 0.0f;
    uint code = 0;
    if (inRange) code |= 1;
    if (bright) code |= 2;
    if (opaque) code |= 4;
    if (negative) code |= 8;
    if (inRange && bright && !negative) code |= 16;
    if (opaque || negative) code |= 32;
    if (!(v.x < v.y) || inRange == bright) code |= 64;
    Codes[i] = code;
}
'''
    n = 250
    lo, hi, thr = -1.0, 2.5, 0.5
    r = Rng(139)
    nan = float('nan')
    vals = []
    for k in range(n):
        v = [dyadic(r, -4, 4, 8) for _ in range(4)]
        if k % 17 == 3:
            v[r.int(0, 3)] = nan
        if k % 11 == 5:
            v[3] = 1.0
        vals.append(v)

    def code(v):
        x, y, z, w = v
        in_range = x >= lo and x <= hi
        bright = y > thr
        opaque = w >= 1.0
        negative = z < 0.0
        c = 0
        c |= 1 if in_range else 0
        c |= 2 if bright else 0
        c |= 4 if opaque else 0
        c |= 8 if negative else 0
        c |= 16 if (in_range and bright and not negative) else 0
        c |= 32 if (opaque or negative) else 0
        c |= 64 if ((not (x < y)) or in_range == bright) else 0
        return c
    t = new('bool_classify', '''Benchmark kernel: seven flags of 250 float4 values (range, threshold and sign tests
combined with &&, ||, ! and ==) packed into a bit code, behind the early return of the threads
past the count; 4 groups of 64 threads. Some values are NaN (ordered compares false, their
negations true).''', hlsl, [-(-n // 64)])
    t.buf('Params', 'Hex32', [n, f32_bits(lo), f32_bits(hi), f32_bits(thr)], CB, 0)
    t.buf('In', 'Hex32', [f32_bits(x) for v in vals for x in v], SB, 0)
    t.out('Codes', 'UInt32', [code(v) for v in vals], RWSB, 0)
    t.write()


def main(argv):
    check = '--check' in argv
    names = [a for a in argv if not a.startswith('--')]
    count = 0
    for fn in KERNELS:
        if names and not any(n in fn.__name__ for n in names):
            continue
        fn()
        count += 1
    for p in lib.WRITTEN:
        print('wrote', os.path.relpath(p, ROOT))
    print('%d kernels' % count)
    if check:
        import validate
        return validate.main([p for p in lib.WRITTEN if p.endswith('.test')])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
