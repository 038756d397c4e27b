"""Item 6 of the language issue: resources and their layouts and bindings."""
import textwrap

from lib import (T, SB, RWSB, BAB, RWBAB, CB, TB, RWTB, f32, i32, u32, f32_bits, f32_from_bits, fadd, fmul,
                 fsub, cb_pack, cb_offsets, sb_pack, words, vec, mat, arr, struct, scalar, Rng)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def res_structured_scalars_vectors():
    hlsl = r'''
// Structured buffers of scalars and vectors: float3 elements are 12 bytes (no padding), bool
// elements 4 bytes; a float3 store writes 12 bytes and a component store 4, leaving the
// neighbours alone.
StructuredBuffer<float3> P : register(t0);
StructuredBuffer<int2> Q : register(t1);
StructuredBuffer<uint> R : register(t2);
StructuredBuffer<bool> Flags : register(t3);
RWStructuredBuffer<float3> OutP : register(u0);
RWStructuredBuffer<uint4> Out4 : register(u1);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float3 p = P[i];
  int2 q = Q[i];
  uint r = R[i];
  if ((i & 1) == 0)
    OutP[i] = p * 2 + float3(q, r);
  else
    OutP[i].z = -p.z;
  Out4[i] = uint4(r, asuint(p.x), (uint)q.y, Flags[i] ? 7u : 3u);
}
'''
    r = Rng(1)
    n = 8
    P = [[f32(r.int(-80, 80) / 8) for _ in range(3)] for _ in range(n)]
    Q = [[r.int(-50, 50) for _ in range(2)] for _ in range(n)]
    R = [r.int(0, 1000) for _ in range(n)]
    F = [1, 0, 0, 1, 1, 1, 0, 0]
    init = [[f32(100 + 3 * i + k) for k in range(3)] for i in range(n)]
    outp = []
    for i in range(n):
        if i % 2 == 0:
            outp += [fadd(fmul(P[i][0], 2), Q[i][0]), fadd(fmul(P[i][1], 2), Q[i][1]), fadd(fmul(P[i][2], 2), R[i])]
        else:
            outp += [init[i][0], init[i][1], -P[i][2]]
    out4 = []
    for i in range(n):
        out4 += [R[i], f32_bits(P[i][0]), u32(Q[i][1]), 7 if F[i] else 3]
    t = T('res_structured_scalars_vectors', '''Resources: StructuredBuffer<float3> (12-byte stride), <int2>, <uint>, <bool> (4 bytes, 0/1), and a
RWStructuredBuffer<float3> written whole at even indices and through .z at odd ones (the other
components keep their initial values), uint4 stores.''', hlsl)
    t.buf('P', 'Float32', [x for p in P for x in p], SB, 0, Stride=12)
    t.buf('Q', 'Int32', [x for q in Q for x in q], SB, 1, Stride=8)
    t.buf('R', 'UInt32', R, SB, 2)
    t.buf('Flags', 'UInt32', F, SB, 3)
    t.out('OutP', 'Float32', outp, RWSB, 0, init=[x for p in init for x in p], Stride=12)
    t.out('Out4', 'Hex32', out4, RWSB, 1, Stride=16)
    t.write()


@test
def res_structured_matrix():
    hlsl = r'''
// Matrices in structured buffers keep their orientation: StructuredBuffer<float2x3> holds each
// matrix column by column (column_major is the default), a row_major struct member row by row.
struct Xform {
  row_major float2x3 r;     // 6 floats, row by row
  float2x3 c;               // 6 floats, column by column
  float s;
};                          // 52 bytes

StructuredBuffer<float2x3> M : register(t0);
StructuredBuffer<Xform> X : register(t1);
RWStructuredBuffer<float> Out : register(u0);
RWStructuredBuffer<float2x3> OutM : register(u1);
RWStructuredBuffer<Xform> OutX : register(u2);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float2x3 m = M[i];
  Xform x = X[i];
  uint o = i * 19;
  [unroll]
  for (uint r = 0; r < 2; ++r) {
    [unroll]
    for (uint c = 0; c < 3; ++c) {
      Out[o + r * 3 + c] = m[r][c];
      Out[o + 6 + r * 3 + c] = x.r[r][c];
      Out[o + 12 + r * 3 + c] = x.c[r][c];
    }
  }
  Out[o + 18] = x.s + X[i].c._m12;
  OutM[i] = m * 2 + x.r;
  Xform y;
  y.r = x.c;
  y.c = x.r;
  y.s = m._m01;
  OutX[i] = y;
}
'''
    r = Rng(2)
    n = 4
    Ms = [[[float(r.int(-20, 20)) for _ in range(3)] for _ in range(2)] for _ in range(n)]
    Xs = [{'r': [[float(r.int(-20, 20)) for _ in range(3)] for _ in range(2)],
           'c': [[float(r.int(-20, 20)) for _ in range(3)] for _ in range(2)],
           's': float(r.int(-20, 20))} for _ in range(n)]
    tM = mat('float', 2, 3, 'col')
    tX = struct(('r', mat('float', 2, 3, 'row')), ('c', mat('float', 2, 3, 'col')), ('s', scalar('float')))
    out, outm, outx = [], [], []
    for m, x in zip(Ms, Xs):
        out += [v for row in m for v in row] + [v for row in x['r'] for v in row] + \
            [v for row in x['c'] for v in row] + [fadd(x['s'], x['c'][1][2])]
        outm.append([[fadd(fmul(m[a][b], 2), x['r'][a][b]) for b in range(3)] for a in range(2)])
        outx.append({'r': x['c'], 'c': x['r'], 's': m[0][1]})
    t = T('res_structured_matrix', '''Resources: StructuredBuffer<float2x3> (24 bytes, column by column: column_major default) and a
struct with a row_major float2x3 (row by row) and a default float2x3 (column by column); every
element read with m[r][c]; matrices and the struct stored back.''', hlsl)
    t.buf('M', 'Float32', [f32_from_bits(w) for w in words(sb_pack(tM, Ms))], SB, 0, Stride=24)
    t.buf('X', 'Float32', [f32_from_bits(w) for w in words(sb_pack(tX, Xs))], SB, 1, Stride=52)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.out('OutM', 'Float32', [f32_from_bits(w) for w in words(sb_pack(tM, outm))], RWSB, 1, Stride=24)
    t.out('OutX', 'Float32', [f32_from_bits(w) for w in words(sb_pack(tX, outx))], RWSB, 2, Stride=52)
    t.write()


@test
def res_byteaddress():
    hlsl = r'''
// (RW)ByteAddressBuffer: Load, Load2, Load3, Load4 at overlapping offsets, templated Load<T>
// of float, float3, int2 and a struct, a load at a computed address; Store, Store2, Store3,
// Store4 and templated Store<T> of float, float2, int2 and a struct.
struct Rec {
  float2 p;
  uint id;
};

ByteAddressBuffer Raw : register(t0);
RWByteAddressBuffer Dst : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint base = i * 32;
  uint a = Raw.Load(base);
  uint2 b = Raw.Load2(base + 4);
  uint3 c = Raw.Load3(base + 8);
  uint4 d = Raw.Load4(base + 16);
  float f = Raw.Load<float>(base + 12);
  float3 g = Raw.Load<float3>(base + 16);
  int2 h = Raw.Load<int2>(base + 24);
  Rec r = Raw.Load<Rec>(base + 4);
  uint o = i * 80;
  Dst.Store(o, a + b.x);
  Dst.Store2(o + 4, b.yx);
  Dst.Store3(o + 12, c * 2);
  Dst.Store4(o + 24, d ^ 0xFFFF);
  Dst.Store<float>(o + 40, f * 2);
  Dst.Store<float2>(o + 44, g.xz);
  Dst.Store<int2>(o + 52, h - 1);
  Rec r2 = r;
  r2.id += 1;
  r2.p.y = g.y;
  Dst.Store<Rec>(o + 60, r2);
  Dst.Store(o + 72, Raw.Load(base + ((a & 7) << 2)));
  Dst.Store(o + 76, Raw.Load(4 * (i ^ 7)));
}
'''
    r = Rng(3)
    n = 8
    raw = [f32_bits(f32(r.int(-2000, 2000) / 16)) for _ in range(n * 8)]
    F = f32_from_bits
    dst0 = [0xDEADBEEF] * (n * 20)
    dst = []
    for i in range(n):
        w = raw[i * 8:i * 8 + 8]
        a = w[0]
        b = w[1:3]
        c = w[2:5]
        d = w[4:8]
        f = F(w[3])
        g = [F(x) for x in w[4:7]]
        h = [i32(x) for x in w[6:8]]
        rp, rid = [F(w[1]), F(w[2])], w[3]
        o = [u32(a + b[0]), b[1], b[0]] + [u32(x * 2) for x in c] + [x ^ 0xFFFF for x in d]
        o += [f32_bits(fmul(f, 2)), f32_bits(g[0]), f32_bits(g[2])] + [u32(x - 1) for x in h]
        o += [f32_bits(rp[0]), f32_bits(g[1]), u32(rid + 1)]
        o += [w[a & 7], raw[i ^ 7]]
        assert len(o) == 20
        dst += o
    t = T('res_byteaddress', '''Resources: ByteAddressBuffer Load/Load2/Load3/Load4 at overlapping offsets, Load<float>,
Load<float3>, Load<int2>, Load<Rec> (a struct), a load at a data-dependent address; RWByteAddressBuffer
Store/Store2/Store3/Store4 and Store<float>/<float2>/<int2>/<Rec>. Words hold float bits, read
both as integers and as floats.''', hlsl)
    t.buf('Raw', 'Hex32', raw, BAB, 0)
    t.out('Dst', 'Hex32', dst, RWBAB, 0, init=dst0)
    t.write()


@test
def res_typed_buffers():
    hlsl = r'''
// Typed buffers: Buffer<T> and RWBuffer<T> of scalars and vectors (the element format comes
// from the pipeline: Format and Channels).
Buffer<float> Bf : register(t0);
Buffer<float4> Bv : register(t1);
Buffer<int2> Bi : register(t2);
Buffer<uint> Bu : register(t3);
RWBuffer<uint> Ru : register(u0);
RWBuffer<float2> Rf : register(u1);
RWBuffer<int4> Ri : register(u2);
RWBuffer<float> Rs : register(u3);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float f = Bf[i];
  float4 v = Bv[i];
  int2 n = Bi[i];
  uint u = Bu[i];
  Ru[i] = Ru[i] * 3 + u;
  Rf[i] = v.xy * f + v.zw;
  Ri[i] = int4(n, n.x * n.y, (int)u);
  Rs[i] += f;
}
'''
    r = Rng(4)
    n = 8
    Bf = [f32(r.int(-40, 40) / 4) for _ in range(n)]
    Bv = [[f32(r.int(-40, 40) / 2) for _ in range(4)] for _ in range(n)]
    Bi = [[r.int(-300, 300) for _ in range(2)] for _ in range(n)]
    Bu = [r.int(0, 99999) for _ in range(n)]
    Ru0 = [r.int(0, 1000) for _ in range(n)]
    Rs0 = [f32(r.int(-40, 40) / 8) for _ in range(n)]
    Ru = [u32(x * 3 + u) for x, u in zip(Ru0, Bu)]
    Rf = []
    for f, v in zip(Bf, Bv):
        Rf += [fadd(fmul(v[0], f), v[2]), fadd(fmul(v[1], f), v[3])]
    Ri = []
    for nn, u in zip(Bi, Bu):
        Ri += [nn[0], nn[1], i32(nn[0] * nn[1]), u]
    Rs = [fadd(x, f) for x, f in zip(Rs0, Bf)]
    t = T('res_typed_buffers', '''Resources: Buffer<float>, Buffer<float4>, Buffer<int2>, Buffer<uint> reads; RWBuffer<uint> and
RWBuffer<float> read-modify-write; RWBuffer<float2> and RWBuffer<int4> writes. Buffers say their
element layout with Format and Channels (as the offload test suite does).''', hlsl)
    t.buf('Bf', 'Float32', Bf, TB, 0, Channels=1)
    t.buf('Bv', 'Float32', [x for v in Bv for x in v], TB, 1, Channels=4)
    t.buf('Bi', 'Int32', [x for v in Bi for x in v], TB, 2, Channels=2)
    t.buf('Bu', 'UInt32', Bu, TB, 3, Channels=1)
    t.out('Ru', 'UInt32', Ru, RWTB, 0, init=Ru0, Channels=1)
    t.out('Rf', 'Float32', Rf, RWTB, 1, Channels=2)
    t.out('Ri', 'Int32', Ri, RWTB, 2, Channels=4)
    t.out('Rs', 'Float32', Rs, RWTB, 3, init=Rs0, Channels=1)
    t.write()


def flt(x):
    return x


@test
def res_cbuffer_packing():
    hlsl = r'''
// cbuffer packing of scalars and vectors: a vector packs behind earlier data in its 16-byte row
// unless it would cross into the next row, then it starts that row. half is 32-bit without
// -enable-16bit-types.
cbuffer Packed : register(b0) {
  float a;      // 0
  float3 b;     // 4: fits in row 0
  float2 c;     // 16
  float3 d;     // 32: would straddle rows 1 and 2 at 24
  float e;      // 44
  int2 f;       // 48
  uint g;       // 56
  bool h;       // 60
  float2 i2;    // 64
  float2 j;     // 72
  half k;       // 80
  float4 l;     // 96: a float4 never shares a row
  uint3 m;      // 112
  float n;      // 124
  int o;        // 128
};

RWStructuredBuffer<uint> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
  Out[0] = asuint(a);
  Out[1] = asuint(b.x); Out[2] = asuint(b.y); Out[3] = asuint(b.z);
  Out[4] = asuint(c.x); Out[5] = asuint(c.y);
  Out[6] = asuint(d.x); Out[7] = asuint(d.y); Out[8] = asuint(d.z);
  Out[9] = asuint(e);
  Out[10] = (uint)f.x; Out[11] = (uint)f.y;
  Out[12] = g;
  Out[13] = h ? 1 : 0;
  Out[14] = asuint(i2.x); Out[15] = asuint(i2.y);
  Out[16] = asuint(j.x); Out[17] = asuint(j.y);
  Out[18] = asuint((float)k);
  Out[19] = asuint(l.x); Out[20] = asuint(l.y); Out[21] = asuint(l.z); Out[22] = asuint(l.w);
  Out[23] = m.x; Out[24] = m.y; Out[25] = m.z;
  Out[26] = asuint(n);
  Out[27] = (uint)o;
}
'''
    F = lambda k: ('float',) if k == 1 else vec('float', k)  # noqa: E731
    fields = [('a', F(1)), ('b', F(3)), ('c', F(2)), ('d', F(3)), ('e', F(1)), ('f', vec('int', 2)),
              ('g', scalar('uint')), ('h', scalar('bool')), ('i2', F(2)), ('j', F(2)), ('k', F(1)), ('l', F(4)),
              ('m', vec('uint', 3)), ('n', F(1)), ('o', scalar('int'))]
    offs = cb_offsets(fields)
    assert offs == {'a': 0, 'b': 4, 'c': 16, 'd': 32, 'e': 44, 'f': 48, 'g': 56, 'h': 60, 'i2': 64, 'j': 72,
                    'k': 80, 'l': 96, 'm': 112, 'n': 124, 'o': 128}, offs
    vals = {'a': 1.5, 'b': [2.0, 3.0, 4.0], 'c': [5.0, 6.0], 'd': [7.0, 8.0, 9.0], 'e': 10.0, 'f': [-11, 12],
            'g': 13, 'h': True, 'i2': [14.0, 15.0], 'j': [16.0, 17.0], 'k': 0.1, 'l': [19.0, 20.0, 21.0, 22.0],
            'm': [23, 24, 25], 'n': 26.0, 'o': -27}
    vals['k'] = f32(0.1)   # not a half: 0.1f keeps all 24 bits
    data = words(cb_pack(fields, vals))
    fb = lambda x: f32_bits(x)  # noqa: E731
    out = [fb(1.5), fb(2), fb(3), fb(4), fb(5), fb(6), fb(7), fb(8), fb(9), fb(10), u32(-11), 12, 13, 1,
           fb(14), fb(15), fb(16), fb(17), fb(vals['k']), fb(19), fb(20), fb(21), fb(22), 23, 24, 25, fb(26), u32(-27)]
    t = T('res_cbuffer_packing', '''Resources: cbuffer packing of scalars and vectors (HLSL 16-byte rows): float3 after a float
shares row 0, a float3 that would straddle rows moves to the next, bool is 4 bytes, half is a
32-bit float without -enable-16bit-types, float4 starts a row. Offsets: a 0, b 4, c 16, d 32,
e 44, f 48, g 56, h 60, i2 64, j 72, k 80, l 96, m 112, n 124, o 128. Padding is 0xa5a5a5a5.''', hlsl)
    t.buf('Packed', 'Hex32', data, CB, 0)
    t.out('Out', 'Hex32', out, RWSB, 0)
    t.write()


@test
def res_cbuffer_arrays():
    hlsl = r'''
// Arrays in cbuffers: every element starts a 16-byte row; the last element is not padded, so a
// scalar after an array packs behind it. Dynamic indices.
cbuffer Arrays : register(b0) {
  float w[5];         // 0, 16, 32, 48, 64
  float after;        // 68: behind w[4]
  float2 uv[3];       // 80, 96, 112
  int4 quads[2];      // 128, 144
  float3 dirs[2];     // 160, 176
  uint tailv;         // 188: behind dirs[1]
  float2x2 mats[2];   // 192, 224 (column_major: 2 rows of 16 bytes each)
};

RWStructuredBuffer<float> Out : register(u0);

[numthreads(6, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint o = i * 10;
  Out[o + 0] = w[i % 5];
  Out[o + 1] = after + w[4 - i % 5];
  Out[o + 2] = uv[i % 3].x;
  Out[o + 3] = uv[i % 3].y;
  Out[o + 4] = (float)quads[i & 1][i % 4];
  Out[o + 5] = (float)quads[1].w;
  Out[o + 6] = dirs[i & 1].z - dirs[i & 1].x;
  Out[o + 7] = (float)tailv;
  Out[o + 8] = mats[i & 1][i % 2][(i / 2) % 2];
  Out[o + 9] = mats[1]._m01;
}
'''
    fields = [('w', arr(('float',), 5)), ('after', ('float',)), ('uv', arr(vec('float', 2), 3)),
              ('quads', arr(vec('int', 4), 2)), ('dirs', arr(vec('float', 3), 2)), ('tailv', ('uint',)),
              ('mats', arr(mat('float', 2, 2, 'col'), 2))]
    offs = cb_offsets(fields)
    assert offs == {'w': 0, 'after': 68, 'uv': 80, 'quads': 128, 'dirs': 160, 'tailv': 188, 'mats': 192}, offs
    v = {'w': [1.0, 2.0, 3.0, 4.0, 5.0], 'after': 0.5, 'uv': [[10.0, 11.0], [12.0, 13.0], [14.0, 15.0]],
         'quads': [[-1, -2, -3, -4], [5, 6, 7, 8]], 'dirs': [[1.0, 2.0, 4.0], [-8.0, 16.0, 32.0]], 'tailv': 99,
         'mats': [[[100.0, 101.0], [110.0, 111.0]], [[200.0, 201.0], [210.0, 211.0]]]}
    out = []
    for i in range(6):
        out += [v['w'][i % 5], fadd(v['after'], v['w'][4 - i % 5]), v['uv'][i % 3][0], v['uv'][i % 3][1],
                float(v['quads'][i & 1][i % 4]), 8.0, fsub(v['dirs'][i & 1][2], v['dirs'][i & 1][0]), 99.0,
                v['mats'][i & 1][i % 2][(i // 2) % 2], 201.0]
    t = T('res_cbuffer_arrays', '''Resources: arrays in a cbuffer: float[5] (elements 16 bytes apart), a float packed behind the
last element, float2[3], int4[2], float3[2] with a uint behind the last, float2x2[2]; dynamic
indices. Offsets: w 0, after 68, uv 80, quads 128, dirs 160, tailv 188, mats 192.''', hlsl)
    t.buf('Arrays', 'Hex32', words(cb_pack(fields, v)), CB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def res_cbuffer_structs():
    hlsl = r'''
// Structs in cbuffers: a struct starts a 16-byte row; inside it the same packing rules apply;
// its size is not rounded up, so a scalar after it packs into its last row; arrays of structs
// have 16-byte-aligned element strides.
struct Light {
  float3 dir;        // 0
  float intensity;   // 12
  float2 range;      // 16
};                   // 24 bytes

struct Material {
  float4 albedo;     // 0
  float rough;       // 16
  Light lights[2];   // 32, 64
};                   // 88 bytes

cbuffer Scene : register(b0) {
  float time;        // 0
  Light sun;         // 16
  float afterSun;    // 40: in the struct's last row
  Material mat;      // 48
  int count;         // 136: behind mat's last member
};

RWStructuredBuffer<float> Out : register(u0);

float lightValue(Light l) {
  return l.dir.x + l.dir.y * 2 + l.dir.z * 4 + l.intensity * 8 + l.range.x * 16 + l.range.y * 32;
}

[numthreads(2, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint o = i * 8;
  Out[o + 0] = time;
  Out[o + 1] = lightValue(sun);
  Out[o + 2] = afterSun;
  Out[o + 3] = mat.albedo.y + mat.rough;
  Light l = mat.lights[i];
  Out[o + 4] = lightValue(l);
  Out[o + 5] = mat.lights[1 - i].range.y;
  Out[o + 6] = (float)count;
  Out[o + 7] = mat.lights[i].intensity * sun.intensity;
}
'''
    Light = struct(('dir', vec('float', 3)), ('intensity', ('float',)), ('range', vec('float', 2)))
    Material = struct(('albedo', vec('float', 4)), ('rough', ('float',)), ('lights', arr(Light, 2)))
    fields = [('time', ('float',)), ('sun', Light), ('afterSun', ('float',)), ('mat', Material), ('count', ('int',))]
    assert cb_offsets(Light[1]) == {'dir': 0, 'intensity': 12, 'range': 16}
    assert cb_offsets(Material[1]) == {'albedo': 0, 'rough': 16, 'lights': 32}
    offs = cb_offsets(fields)
    assert offs == {'time': 0, 'sun': 16, 'afterSun': 40, 'mat': 48, 'count': 136}, offs
    L = lambda d, it, rg: {'dir': d, 'intensity': it, 'range': rg}  # noqa: E731
    v = {'time': 0.25, 'sun': L([1.0, 2.0, 3.0], 4.0, [5.0, 6.0]), 'afterSun': 7.5,
         'mat': {'albedo': [0.5, 0.75, 1.0, 1.25], 'rough': 8.0,
                 'lights': [L([-1.0, -2.0, -3.0], 0.5, [9.0, 10.0]), L([0.25, 0.5, 1.0], 2.0, [11.0, 12.0])]},
         'count': -3}

    def lv(l):
        acc = l['dir'][0]
        for x, m in [(l['dir'][1], 2), (l['dir'][2], 4), (l['intensity'], 8), (l['range'][0], 16), (l['range'][1], 32)]:
            acc = fadd(acc, fmul(x, m))
        return acc
    out = []
    for i in range(2):
        lt = v['mat']['lights']
        out += [0.25, lv(v['sun']), 7.5, fadd(0.75, 8.0), lv(lt[i]), lt[1 - i]['range'][1], -3.0,
                fmul(lt[i]['intensity'], 4.0)]
    t = T('res_cbuffer_structs', '''Resources: structs in a cbuffer: Light (24 bytes) starts a row; a float after it packs into its
last row (offset 40, as DXC computes a struct's cbuffer size: the end of its last member);
Material with a Light[2] member (stride 32); a struct passed to a function; an int after the
nested struct. Offsets: time 0, sun 16, afterSun 40, mat 48 (lights at 80 and 112), count 136.''',
          hlsl)
    t.buf('Scene', 'Hex32', words(cb_pack(fields, v)), CB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def res_constantbuffer_t():
    hlsl = r'''
// ConstantBuffer<T>: members through the buffer's name, two buffers of one struct type, a
// nested struct with an array, the same 16-byte packing as cbuffer.
struct Params {
  float4 scale;
  uint count;
  float bias;
  int2 offs;      // 24: fits behind bias
};

struct Inner {
  float a;
  float3 b;       // 4
};

struct Nested {
  Inner items[2]; // 0, 16
  float4 last;    // 32
};

ConstantBuffer<Params> P : register(b0);
ConstantBuffer<Params> Q : register(b1);
ConstantBuffer<Nested> N : register(b2);

RWStructuredBuffer<float4> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  float4 v = P.scale * (float)i + Q.bias;
  if (i < P.count)
    v.w = (float)(P.offs.x * 10 + Q.offs.y);
  Inner it = N.items[i & 1];
  Out[i * 2] = v;
  Out[i * 2 + 1] = float4(it.b * it.a, N.last[i]);
}
'''
    Params = [('scale', vec('float', 4)), ('count', ('uint',)), ('bias', ('float',)), ('offs', vec('int', 2))]
    assert cb_offsets(Params) == {'scale': 0, 'count': 16, 'bias': 20, 'offs': 24}
    Inner = struct(('a', ('float',)), ('b', vec('float', 3)))
    Nested = [('items', arr(Inner, 2)), ('last', vec('float', 4))]
    assert cb_offsets(Nested) == {'items': 0, 'last': 32}
    p = {'scale': [1.0, -2.0, 0.5, 4.0], 'count': 3, 'bias': 0.25, 'offs': [7, -8]}
    q = {'scale': [9.0, 9.0, 9.0, 9.0], 'count': 0, 'bias': -1.5, 'offs': [100, 200]}
    nv = {'items': [{'a': 2.0, 'b': [1.0, 2.0, 3.0]}, {'a': -0.5, 'b': [4.0, 8.0, 16.0]}], 'last': [10.0, 20.0, 30.0, 40.0]}
    out = []
    for i in range(4):
        vv = [fadd(fmul(s, float(i)), q['bias']) for s in p['scale']]
        if i < p['count']:
            vv[3] = float(p['offs'][0] * 10 + q['offs'][1])
        it = nv['items'][i & 1]
        out += vv + [fmul(b, it['a']) for b in it['b']] + [nv['last'][i]]
    t = T('res_constantbuffer_t', '''Resources: ConstantBuffer<Params> twice (b0, b1) and ConstantBuffer<Nested> (an array of
Inner {float a; float3 b}, 16 bytes each, then a float4), members read through the buffer name,
a dynamic index into a float4 member. Offsets: Params scale 0, count 16, bias 20, offs 24;
Nested items 0 and 16 (b at 4 inside Inner), last 32.''', hlsl)
    t.buf('P', 'Hex32', words(cb_pack(Params, p)), CB, 0)
    t.buf('Q', 'Hex32', words(cb_pack(Params, q)), CB, 1)
    t.buf('N', 'Hex32', words(cb_pack(Nested, nv)), CB, 2)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


GLOBALS_NOTE = ('$Globals: DXC gathers loose (non-static) global variables into a cbuffer named $Globals, laid '
                'out with the cbuffer rules in declaration order, and binds it like a cbuffer without register(): '
                'the lowest free b register of space 0 (b0 when nothing else takes it). The pipeline binds a '
                'buffer named Globals at that register.')


@test
def res_globals():
    hlsl = r'''
// Loose global variables form the implicit cbuffer $Globals (b0 here: Other takes b1).
// static globals are not part of it: they are private to each thread and writable.
float gScale;
uint gCount;
float4 gTint;
int gOffsets[3];
static float sBias = 0.5;
static int sCalls;

cbuffer Other : register(b1) {
  float other;
};

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

float step1(float x) {
  sCalls++;
  return x * gScale + sBias;
}

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  if (i >= gCount)
    return;
  sBias += (float)i;
  float x = step1(In[i]);
  x = step1(x) + other;
  Out[i * 2] = x + gTint[i & 3];
  Out[i * 2 + 1] = (float)(gOffsets[i % 3] * 100 + sCalls);
}
'''
    fields = [('gScale', ('float',)), ('gCount', ('uint',)), ('gTint', vec('float', 4)), ('gOffsets', arr(('int',), 3))]
    assert cb_offsets(fields) == {'gScale': 0, 'gCount': 4, 'gTint': 16, 'gOffsets': 32}
    g = {'gScale': 2.0, 'gCount': 6, 'gTint': [0.25, 0.5, 0.75, 1.0], 'gOffsets': [3, -4, 5]}
    other = 100.0
    r = Rng(12)
    ins = [f32(r.int(-64, 64) / 4) for _ in range(8)]
    init = [-1.0] * 16
    out = list(init)
    for i in range(6):
        bias = fadd(0.5, float(i))
        x = fadd(fmul(ins[i], 2.0), bias)
        x = fadd(fadd(fmul(x, 2.0), bias), other)
        out[i * 2] = fadd(x, g['gTint'][i & 3])
        out[i * 2 + 1] = float(g['gOffsets'][i % 3] * 100 + 2)
    t = T('res_globals', '''Resources: loose globals (float, uint, float4, int[3]) in the implicit $Globals cbuffer at b0
(an explicit cbuffer takes b1); static globals with and without initializer are thread-private
and writable; gCount = 6 makes threads 6 and 7 return early.
$Globals layout: gScale 0, gCount 4, gTint 16, gOffsets 32/48/64.''', hlsl,
          notes=textwrap.wrap(GLOBALS_NOTE, 96))
    t.buf('Globals', 'Hex32', words(cb_pack(fields, g)), CB, 0)
    t.buf('Other', 'Float32', [other, 0.0, 0.0, 0.0], CB, 1)
    t.buf('In', 'Float32', ins, SB, 0)
    t.out('Out', 'Float32', out, RWSB, 0, init=init)
    t.write()


@test
def res_globals_b0_taken():
    hlsl = r'''
// $Globals when b0 is taken by an explicit cbuffer: it gets the next free register, b1.
cbuffer Params : register(b0) {
  int mulv;
};

int addv;
int2 pair;

RWStructuredBuffer<int> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Out[i] = (int)i * mulv + addv + pair[i & 1];
}
'''
    fields = [('addv', ('int',)), ('pair', vec('int', 2))]
    assert cb_offsets(fields) == {'addv': 0, 'pair': 4}
    out = [i * 7 + 1000 + [20, 30][i & 1] for i in range(4)]
    t = T('res_globals_b0_taken', '''Resources: the implicit $Globals cbuffer (int addv; int2 pair: offsets 0 and 4) binds at b1 when
an explicit cbuffer holds b0 (DXC's implicit binding: the lowest free register).''', hlsl)
    t.buf('Params', 'Int32', [7, 0, 0, 0], CB, 0)
    t.buf('Globals', 'Hex32', words(cb_pack(fields, {'addv': 1000, 'pair': [20, 30]})), CB, 1)
    t.out('Out', 'Int32', out, RWSB, 0)
    t.write()


@test
def res_unity_compute():
    hlsl = r'''
// A Unity-style .compute file: #pragma kernel names the entry points, uniforms are loose
// globals ($Globals), resources have no register() and get DXC's implicit bindings.
#pragma kernel CSMain
#pragma kernel CSClear

float _Scale;
uint _Count;
float4 _Offset;

StructuredBuffer<float> _Input;
RWStructuredBuffer<float> _Result;

[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) {
  if (id.x >= _Count)
    return;
  _Result[id.x] = _Input[id.x] * _Scale + _Offset[id.x & 3];
}

[numthreads(64, 1, 1)]
void CSClear(uint3 id : SV_DispatchThreadID) {
  _Result[id.x] = 0;
}
'''
    fields = [('_Scale', ('float',)), ('_Count', ('uint',)), ('_Offset', vec('float', 4))]
    g = {'_Scale': -1.5, '_Count': 100, '_Offset': [1.0, 2.0, 3.0, 4.0]}
    r = Rng(13)
    ins = [f32(r.int(-400, 400) / 8) for _ in range(128)]
    init = [9.0] * 128
    out = [fadd(fmul(ins[i], -1.5), g['_Offset'][i & 3]) if i < 100 else 9.0 for i in range(128)]
    t = T('res_unity_compute', '''Resources: a Unity-style compute file: #pragma kernel CSMain / CSClear, uniforms as loose
globals in $Globals (b0: _Scale 0, _Count 4, _Offset 16), _Input and _Result without register()
(t0 and u0 by implicit binding); -E CSMain picks the kernel.''', hlsl, groups=[2], entry='CSMain',
          run='-T cs_6_0 -E CSMain')
    t.buf('Globals', 'Hex32', words(cb_pack(fields, g)), CB, 0)
    t.buf('Input', 'Float32', ins, SB, 0)
    t.out('Result', 'Float32', out, RWSB, 0, init=init)
    t.write()


@test
def res_unity_kernel_defines():
    hlsl = r'''
// Unity: the words after a kernel's name in #pragma kernel are macros for that kernel only;
// the kernel's function name is built from one of them.
#pragma kernel Scale_x2 FACTOR=2 OFFSET
#pragma kernel Scale_x3 FACTOR=3
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

RWStructuredBuffer<int> _Data;

[numthreads(32, 1, 1)]
void CAT(Scale_x, FACTOR)(uint3 id : SV_DispatchThreadID) {
#ifdef OFFSET
  _Data[id.x] = _Data[id.x] * FACTOR + 1000;
#else
  _Data[id.x] = _Data[id.x] * FACTOR;
#endif
}
'''
    r = Rng(31)
    data = [r.int(-500, 500) for _ in range(32)]
    for name, factor, offset in [('res_unity_kernel_defines_x2', 2, 1000), ('res_unity_kernel_defines_x3', 3, 0)]:
        kernel = 'Scale_x%d' % factor
        t = T(name, '''Resources: Unity `#pragma kernel NAME DEFINES` -- the chosen kernel's defines (FACTOR=%d%s)
apply to its compilation, and its function name comes from a macro; -E %s.''' % (
            factor, ', OFFSET' if offset else '', kernel), hlsl, groups=[1], entry=kernel, run='-T cs_6_0 -E ' + kernel)
        t.out('_Data', 'Int32', [v * factor + offset for v in data], RWSB, 0, init=data)
        t.write()


@test
def res_implicit_binding():
    hlsl = r'''
// Resources without register(): DXC binds them after the explicit ones, in declaration order
// per register class, each to the lowest free register (all of them are used, so none is
// dropped before binding).
StructuredBuffer<int> A;                      // t1 (t0 is taken by C, declared later)
RWStructuredBuffer<int> B : register(u0);
StructuredBuffer<int> C : register(t0);
RWStructuredBuffer<int> D;                    // u1
cbuffer K {                                   // b1 (b0 is taken by J)
  int k;
};
StructuredBuffer<int> E;                      // t2
cbuffer J : register(b0) {
  int j;
};
RWStructuredBuffer<int> F;                    // u2

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  B[i] = A[i] * 2 + C[i];
  D[i] = E[i] * k;
  F[i] = j - (int)i;
}
'''
    A = [1, 2, 3, 4]
    C = [10, 20, 30, 40]
    E = [-1, -2, -3, -4]
    k, j = 5, 100
    t = T('res_implicit_binding', '''Resources: implicit bindings without register(): A -> t1, D -> u1, E -> t2, F -> u2, cbuffer K ->
b1, around explicit C (t0), B (u0), J (b0) declared in between.''', hlsl)
    t.buf('BufA', 'Int32', A, SB, 1)
    t.buf('BufC', 'Int32', C, SB, 0)
    t.buf('BufE', 'Int32', E, SB, 2)
    t.buf('K', 'Int32', [k, 0, 0, 0], CB, 1)
    t.buf('J', 'Int32', [j, 0, 0, 0], CB, 0)
    t.out('BufB', 'Int32', [a * 2 + c for a, c in zip(A, C)], RWSB, 0)
    t.out('BufD', 'Int32', [e * k for e in E], RWSB, 1)
    t.out('BufF', 'Int32', [j - i for i in range(4)], RWSB, 2)
    t.write()


@test
def res_register_space():
    hlsl = r'''
// register(x#, space#): the same register number in different spaces names different resources.
StructuredBuffer<int> A0 : register(t0);
StructuredBuffer<int> A1 : register(t0, space1);
StructuredBuffer<int> A2 : register(t3, space2);
RWStructuredBuffer<int> Out1 : register(u0, space1);
RWStructuredBuffer<int> Out0 : register(u0);
cbuffer C : register(b2, space3) {
  int mulv;
};

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Out0[i] = A0[i] + A1[i] * mulv;
  Out1[i] = A2[i] - A1[i];
}
'''
    A0, A1, A2 = [1, 2, 3, 4], [10, 20, 30, 40], [100, 200, 300, 400]
    t = T('res_register_space', '''Resources: register(t0) and register(t0, space1) are different buffers; register(t3, space2),
register(u0, space1) next to register(u0), a cbuffer at register(b2, space3).''', hlsl)
    t.buf('A0', 'Int32', A0, SB, 0, 0)
    t.buf('A1', 'Int32', A1, SB, 0, 1)
    t.buf('A2', 'Int32', A2, SB, 3, 2)
    t.buf('C', 'Int32', [3, 0, 0, 0], CB, 2, 3)
    t.out('Out0', 'Int32', [a + b * 3 for a, b in zip(A0, A1)], RWSB, 0, 0)
    t.out('Out1', 'Int32', [c - b for b, c in zip(A1, A2)], RWSB, 0, 1)
    t.write()


@test
def res_vk_binding():
    hlsl = r'''
// [[vk::binding(N[, set])]] is a Vulkan attribute: for D3D bindings it changes nothing, and a
// resource with only [[vk::binding]] gets an implicit D3D register.
[[vk::binding(5)]] StructuredBuffer<int> In : register(t0);
[[vk::binding(2, 1)]] RWStructuredBuffer<int> Out : register(u1);
[[vk::binding(0)]] cbuffer Params : register(b0) {
  int addv;
};
[[vk::binding(7)]] RWStructuredBuffer<int> Extra;   // u0 (implicit)

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  Out[i] = In[i] + addv;
  Extra[i] = In[3 - i];
}
'''
    ins = [5, 6, 7, 8]
    t = T('res_vk_binding', '''Resources: [[vk::binding(N)]] and [[vk::binding(N, set)]] on buffers and a cbuffer are accepted
and do not change D3D registers; Extra has only [[vk::binding]] and gets u0 implicitly.''', hlsl)
    t.buf('In', 'Int32', ins, SB, 0)
    t.buf('Params', 'Int32', [50, 0, 0, 0], CB, 0)
    t.out('Out', 'Int32', [x + 50 for x in ins], RWSB, 1)
    t.out('Extra', 'Int32', ins[::-1], RWSB, 0)
    t.write()


@test
def res_getdimensions():
    hlsl = r'''
// GetDimensions: element count and stride of structured buffers (the stride is the element
// type's size), byte size of byte-address buffers, element count of typed buffers.
struct Rec {
  float3 p;
  uint id;
  float w;
};                                             // 20 bytes

StructuredBuffer<float3> S3 : register(t0);
RWStructuredBuffer<Rec> SR : register(u0);
ByteAddressBuffer BA : register(t1);
RWByteAddressBuffer RBA : register(u1);
Buffer<float4> TB : register(t2);
RWBuffer<uint> RTB : register(u2);
RWStructuredBuffer<uint> Dims : register(u3);

[numthreads(1, 1, 1)]
void main() {
  uint n, s;
  S3.GetDimensions(n, s);
  Dims[0] = n;
  Dims[1] = s;
  SR.GetDimensions(n, s);
  Dims[2] = n;
  Dims[3] = s;
  BA.GetDimensions(n);
  Dims[4] = n;
  RBA.GetDimensions(n);
  Dims[5] = n;
  TB.GetDimensions(n);
  Dims[6] = n;
  RTB.GetDimensions(n);
  Dims[7] = n;
  Dims.GetDimensions(n, s);
  Dims[8] = n * 100 + s;
}
'''
    t = T('res_getdimensions', '''Resources: GetDimensions on StructuredBuffer<float3> (3 elements, stride 12), RWStructuredBuffer<Rec>
(5 elements of 20 bytes), ByteAddressBuffer (44 bytes), RWByteAddressBuffer (24 bytes),
Buffer<float4> (6 elements), RWBuffer<uint> (7 elements), and on its own output (9 x 4 bytes).''', hlsl)
    t.buf('S3', 'Float32', [float(k) for k in range(9)], SB, 0, Stride=12)
    t.buf('SR', 'UInt32', list(range(25)), RWSB, 0, Stride=20)
    t.buf('BA', 'UInt32', list(range(11)), BAB, 1)
    t.buf('RBA', 'UInt32', list(range(6)), RWBAB, 1)
    t.buf('TB', 'Float32', [float(k) for k in range(24)], TB, 2, Channels=4)
    t.buf('RTB', 'UInt32', list(range(7)), RWTB, 2, Channels=1)
    t.out('Dims', 'UInt32', [3, 12, 5, 20, 44, 24, 6, 7, 904], RWSB, 3)
    t.write()


@test
def res_buffer_values():
    hlsl = r'''
// Buffers as values: parameters, an `out` parameter, a return value, locals chosen by
// control flow (also inside a loop), a struct field used by a member function, a typed
// buffer and a byte-address buffer (atomics) passed to functions.
StructuredBuffer<uint> EvenSrc : register(t0);
StructuredBuffer<uint> OddSrc : register(t1);
Buffer<float> Scales : register(t2);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Counters : register(u1);

struct View {
  StructuredBuffer<uint> data;
  uint base;
  uint At(uint i) { return data[base + i]; }
};

uint Fetch(StructuredBuffer<uint> b, uint i) { return b[i]; }
void Put(RWStructuredBuffer<uint> o, uint i, uint v) { o[i] = v; }
void Count(RWByteAddressBuffer c, uint slot) { c.InterlockedAdd(slot * 4, 1); }
StructuredBuffer<uint> Choose(uint i) { return (i & 1) ? OddSrc : EvenSrc; }
void Pick(uint i, out StructuredBuffer<uint> b) {
  if (i < 32)
    b = EvenSrc;
  else
    b = OddSrc;
}
float Scale(Buffer<float> s, uint i) { return s[i]; }

[numthreads(64, 1, 1)]
void main(uint i : SV_GroupIndex) {
  StructuredBuffer<uint> src = EvenSrc;
  if (i % 3 == 0)
    src = OddSrc;
  View v;
  v.data = Choose(i);
  v.base = 2;
  StructuredBuffer<uint> p;
  Pick(i, p);
  StructuredBuffer<uint> cur = EvenSrc;
  uint e = 0;
  for (uint k = 0; k < 4; k++) {
    e += cur[i + k];
    cur = (k & 1) ? EvenSrc : OddSrc;
  }
  uint a = Fetch(src, i);
  uint b = v.At(i);
  uint c = p[63 - i];
  uint d = (uint)(Scale(Scales, i) * 4.0);
  Put(Out, i, a + b * 3 + c * 5 + d * 7 + e * 11);
  Count(Counters, i % 4);
}
'''
    r = Rng(123)
    n = 64
    even = [r.int(0, 999) for _ in range(n + 6)]
    odd = [r.int(0, 999) for _ in range(n + 6)]
    scales = [r.int(0, 40) / 4 for _ in range(n)]
    out = []
    for i in range(n):
        src = odd if i % 3 == 0 else even
        chosen = odd if i & 1 else even
        p = even if i < 32 else odd
        e = even[i] + odd[i + 1] + even[i + 2] + odd[i + 3]
        d = int(scales[i] * 4)
        out.append(u32(src[i] + chosen[2 + i] * 3 + p[63 - i] * 5 + d * 7 + e * 11))
    t = T('res_buffer_values', '''Buffers as values: parameters, out parameters, return values, locals chosen by control
flow and in a loop, a struct field with a member function, typed and byte-address buffers
passed to functions (atomics through a parameter).''', hlsl, groups=[1])
    t.buf('EvenSrc', 'UInt32', even, SB, 0)
    t.buf('OddSrc', 'UInt32', odd, SB, 1)
    t.buf('Scales', 'Float32', scales, TB, 2)
    t.out('Out', 'UInt32', out, RWSB, 0)
    t.out('Counters', 'UInt32', [16, 16, 16, 16], RWBAB, 1)
    t.write()


@test
def res_constantbuffer_value():
    hlsl = r'''
// ConstantBuffer<T> as a value is a T (every member read): passed to a function taking a T
// (as FidelityFX's sort helpers take their constants), copied into a local, compared field by field.
struct Inner {
  float a;
  float3 b;
};

struct Params {
  uint count;
  Inner items[2];
  float2x2 m;
  int k;
};

ConstantBuffer<Params> P : register(b0);
RWStructuredBuffer<float> Out : register(u0);

float Use(Params p, uint i) {
  Inner it = p.items[i & 1];
  return it.a * it.b[i % 3] + p.m[i & 1][(i >> 1) & 1] + (float)p.k;
}

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Params local = P;
  local.k += (int)i;
  Out[i * 2] = Use(P, i);
  Out[i * 2 + 1] = i < local.count ? Use(local, i + 1) : -1.0;
}
'''
    Inner = struct(('a', ('float',)), ('b', vec('float', 3)))
    fields = [('count', ('uint',)), ('items', arr(Inner, 2)), ('m', mat('float', 2, 2)), ('k', ('int',))]
    offs = cb_offsets(fields)
    assert offs == {'count': 0, 'items': 16, 'm': 48, 'k': 72}, offs
    v = {'count': 5, 'items': [{'a': 2.0, 'b': [1.0, 2.0, 3.0]}, {'a': -0.5, 'b': [4.0, 8.0, 16.0]}],
         'm': [[1.5, -2.0], [0.25, 8.0]], 'k': -3}

    def use(k, i):
        it = v['items'][i & 1]
        return fadd(fadd(fmul(it['a'], it['b'][i % 3]), v['m'][i & 1][(i >> 1) & 1]), float(k))
    out = []
    for i in range(8):
        out += [use(v['k'], i), use(v['k'] + i, i + 1) if i < v['count'] else -1.0]
    t = T('res_constantbuffer_value', '''ConstantBuffer<T> used as a value of type T: passed to a function, copied to a local
(cbuffer layout with a struct array and a column-major matrix read into registers).''', hlsl, groups=[1])
    t.buf('P', 'Hex32', words(cb_pack(fields, v)), CB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def res_cbuffer_packoffset():
    hlsl = r'''
// packoffset places cbuffer members explicitly: out of declaration order, in the middle of a
// 16-byte register (c0.y, c0.w, c1.z), an array starting at a register.
cbuffer Params : register(b0) {
  float4 tint  : packoffset(c2);
  float scale  : packoffset(c0.y);
  uint count   : packoffset(c0.w);
  float2 off   : packoffset(c1.z);
  int arr[2]   : packoffset(c3);
};
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Out[i] = tint * scale + float4(off, (float)count, (float)arr[i & 1]);
}
'''
    PAD = 0xDEADBEEF  # bytes no member owns
    tint, scale, count, off, arr = [1.5, -2.0, 0.25, 8.0], 3.0, 7, [0.5, -0.75], [-4, 9]
    cb = [PAD] * 20
    cb[1], cb[3] = f32_bits(scale), count
    cb[6], cb[7] = f32_bits(off[0]), f32_bits(off[1])
    cb[8:12] = [f32_bits(x) for x in tint]
    cb[12], cb[16] = u32(arr[0]), u32(arr[1])
    out = []
    for i in range(4):
        extra = [off[0], off[1], float(count), float(arr[i & 1])]
        out += [fadd(fmul(t, scale), e) for t, e in zip(tint, extra)]
    t = T('res_cbuffer_packoffset', '''A cbuffer laid out by packoffset: members out of declaration order, at components inside a
register (c0.y, c0.w, c1.z) and an int[2] at c3 (stride 16); unowned bytes hold 0xDEADBEEF.''', hlsl)
    t.buf('Params', 'Hex32', cb, CB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def res_robust_access():
    hlsl = r'''
// --robust-access (D3D's robust buffer access): out-of-bounds loads of structured, typed and
// byte-address buffers give 0; out-of-bounds stores and atomics are dropped (an atomic's
// original value is then 0). Sixteen threads over buffers of fewer elements, with indices past
// the end, a negative index (a huge uint) and a byte-address load that straddles the end.
StructuredBuffer<float2> In : register(t0);
Buffer<uint> Typed : register(t1);
ByteAddressBuffer Raw : register(t2);
RWStructuredBuffer<float2> Out : register(u0);
RWStructuredBuffer<uint> Cnt : register(u1);
RWByteAddressBuffer RawOut : register(u2);
RWStructuredBuffer<uint> Old : register(u3);

[numthreads(16, 1, 1)]
void main(uint i : SV_GroupIndex) {
  Out[i] = In[i] + In[i - 16] * 100 + Typed[i] + Raw.Load2(i * 4).y;
  uint old;
  InterlockedAdd(Cnt[i + 4], 1, old);
  Old[i] = old + 1;
  RawOut.Store(i * 8, i + 1);
  RawOut.InterlockedOr(i * 8 + 4, 0x100u);
}
'''
    n_in, n_typed, raw_words, n_out, n_cnt, raw_out_bytes = 10, 6, 12, 12, 16, 52
    ins = [[float(k), float(k) + 0.5] for k in range(n_in)]
    typed = [7 * k for k in range(n_typed)]
    raw = [1000 + k for k in range(raw_words)]
    out = [[0.0, 0.0] for _ in range(n_out)]
    cnt = [5] * n_cnt
    old = [0] * 16
    raw_out = [0] * (raw_out_bytes // 4)
    for i in range(16):
        a = ins[i] if i < n_in else [0.0, 0.0]
        t = typed[i] if i < n_typed else 0
        # Load2 at byte i*4 reads words i and i+1: in bounds while (i + 2) * 4 <= size.
        r = raw[i + 1] if (i + 2) * 4 <= raw_words * 4 else 0
        if i < n_out:
            out[i] = [f32(x + t + r) for x in a]
        o = 0
        if i + 4 < n_cnt:
            o = cnt[i + 4]
            cnt[i + 4] += 1
        old[i] = o + 1
        if i * 8 + 4 <= raw_out_bytes:
            raw_out[i * 2] = i + 1
        if i * 8 + 8 <= raw_out_bytes:
            raw_out[i * 2 + 1] |= 0x100
    t = T('res_robust_access', '''Resources: --robust-access gives D3D's robust buffer access: out-of-bounds loads (past the end, or
a negative index) read 0, out-of-bounds stores and atomics are dropped, a straddling Load2 reads
0 for the whole load.''', hlsl, groups=[1], run='-T cs_6_0 --robust-access')
    t.buf('In', 'Float32', [x for v in ins for x in v], SB, 0)
    t.buf('Typed', 'UInt32', typed, TB, 1)
    t.buf('Raw', 'UInt32', raw, BAB, 2)
    t.out('Out', 'Float32', [x for v in out for x in v], RWSB, 0)
    t.out('Cnt', 'UInt32', cnt, RWSB, 1, init=[5] * n_cnt)
    t.out('RawOut', 'UInt32', raw_out, RWBAB, 2)
    t.out('Old', 'UInt32', old, RWSB, 3)
    t.write()
