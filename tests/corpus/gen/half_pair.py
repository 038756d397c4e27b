#!/usr/bin/env python3
"""Writes tests/corpus/half_pair.test: half4/half2 arithmetic whose components pair
into hadd2/hmul2/hma2 (pair16), with expected buffers from Python's half rounding
(struct "e") after every operation; `mad` rounds once (the exact a*b+c, as WAVE's hma).
Run from the repository root: python3 tests/corpus/gen/half_pair.py tests/corpus/half_pair.test"""
import random, sys
from common import f16 as h, f32_bits, write_pipeline_test
random.seed(216)
N = 64
SCALE, BIAS = 1.5, -0.75
A = [h(random.uniform(-4.0, 4.0)) for _ in range(N * 4)]
B = [h(random.uniform(-4.0, 4.0)) for _ in range(N * 4)]
# a subnormal, the largest half and a signed zero among the inputs
A[0:4] = [h(2.0 ** -24), 65504.0, -0.0, h(1.0 / 3.0)]
B[0:4] = [0.5, 0.5, 0.0, 3.0]
K = [0.5, 0.25, -1.0, 2.0]
s, t = h(SCALE), h(BIAS)
out, side = [], []
for i in range(N):
    a, b = A[i*4:i*4+4], B[i*4:i*4+4]
    p = [h(a[k] * b[k]) for k in range(4)]
    q = [h(h(p[k] * s) + K[k]) for k in range(4)]
    r = [h(a[k] * b[k] + q[k]) for k in range(4)]
    d = [h(a[0] - 0.5), h(a[1] - 0.5)]
    e = [h(h(d[0] * b[2]) + t), h(h(d[1] * b[3]) + t)]
    out += [h(r[k] - h(q[k] * 0.125)) for k in range(4)]
    side += [h(e[0] * e[1]), h(e[1] - d[0])]
src = r'''// pair16: half4 and half2 arithmetic. Each vector operation is two or four
// independent half operations of one kind, which pair into hmul2/hadd2/hma2 on
// packed halves: loaded pairs, a broadcast scalar, constant vectors, `mad`,
// a subtraction of a constant (an addition of its negation), and components
// used alone afterwards.
cbuffer Params : register(b0) {
    float g_scale;
    float g_bias;
};
StructuredBuffer<half4> A : register(t0);
StructuredBuffer<half4> B : register(t1);
RWStructuredBuffer<half4> Out : register(u0);
RWStructuredBuffer<half2> Side : register(u1);

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    half4 a = A[i];
    half4 b = B[i];
    half s = (half)g_scale;
    half t = (half)g_bias;
    half4 p = a * b;
    half4 q = p * s + half4(0.5h, 0.25h, -1.0h, 2.0h);
    half4 r = mad(a, b, q);
    half2 d = a.xy - 0.5h;
    half2 e = d * b.zw + t;
    Out[i] = r - q * 0.125h;
    Side[i] = half2(e.x * e.y, e.y - d.x);
}
'''
write_pipeline_test(
    sys.argv[1],
    """pair16: half4/half2 arithmetic whose components pair into hadd2/hmul2/hma2 on
packed halves (`wave`), bit-identical to the single half operations (Python's half
rounding after every operation).""",
    src,
    (2, 1, 1),
    [
        ('Params', 'Hex32', [f32_bits(SCALE), f32_bits(BIAS), 0, 0]),
        ('A', 'Float16', A, {'Stride': 8}),
        ('B', 'Float16', B, {'Stride': 8}),
        ('Out', 'Float16', ('fill', N * 8, None), {'Stride': 8}),
        ('ExpectedOut', 'Float16', out, {'Stride': 8}),
        ('Side', 'Float16', ('fill', N * 4, None), {'Stride': 4}),
        ('ExpectedSide', 'Float16', side, {'Stride': 4}),
    ],
    [
        ('Params', 'ConstantBuffer', 0, 0),
        ('A', 'StructuredBuffer', 0, 0),
        ('B', 'StructuredBuffer', 1, 0),
        ('Out', 'RWStructuredBuffer', 0, 0),
        ('Side', 'RWStructuredBuffer', 1, 0),
    ],
    [('Out', 'BufferExact', 'Out', 'ExpectedOut', {}), ('Side', 'BufferExact', 'Side', 'ExpectedSide', {})],
    run='-enable-16bit-types -T cs_6_2',
    generator='tests/corpus/gen/half_pair.py',
)
