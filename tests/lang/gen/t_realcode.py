"""Constructs met in public compute shaders (issue 5 measured on real kernels) that DXC accepts,
each in a small kernel written for these tests in the style of the real ones.

The semantics modelled here (DXC's and D3D's):
- A `static` variable inside a cbuffer is an ordinary static global (not a member: it takes no
  room in the cbuffer), initialized when the kernel starts, here from the cbuffer's members.
- A semantic on a resource (`StructuredBuffer<float> In : t0;`) means nothing: the resource keeps
  its implicit binding (the lowest free register of its class, in declaration order).
- Textures, samplers and functions taking them may be declared as long as the kernel does not
  use them (DXC drops them).
- D3D's robust buffer access: a load past the end of a structured buffer gives 0, which tiled
  kernels rely on for their last tile (the DirectX SDK n-body sample says so). `wavec run`
  keeps a zero guard after each buffer, so such a load reads 0, not the next buffer.
"""
from lib import T, SB, RWSB, CB, f32, f32_bits, Rng, cb_pack, cb_offsets, words, vec, arr, scalar

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def real_cbuffer_statics():
    hlsl = r'''
// A 1D blur in the style of DX11 tutorial code: a static inside the cbuffer holds the weights
// as floats, initialized from the cbuffer's float4 array through an array cast (DXC makes it an
// ordinary static global); the buffers carry semantics spelled like registers, which bind
// nothing; a legacy `sampler`, a multisampled texture and a texture helper are declared but
// unused.
cbuffer Blur : register(b0) {
  int g_radius;
  float4 g_weights[2];
  static float s_weights[8] = (float[8]) g_weights;
  static const float s_bias = 0.5;
};

sampler g_sampler : register(s0);
Texture2DMS<float4, 4> g_msaa : register(t3);

float4 SampleIt(Texture2D t, float2 uv) {
  return t.SampleLevel(g_sampler, uv, 0);
}

StructuredBuffer<float> Input : t2;       // a semantic: Input is bound implicitly, to t0
RWStructuredBuffer<float> Output : u5;    // likewise u0

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float acc = s_bias;
  for (int k = -g_radius; k <= g_radius; k++) {
    int i = clamp((int)id.x + k, 0, 63);
    acc += Input[i] * s_weights[abs(k)];
  }
  Output[id.x] = acc;
}
'''
    r = Rng(41)
    radius = 3
    weights = [f32(r.int(1, 40) / 64) for _ in range(8)]
    inp = [f32(r.int(-200, 200) / 16) for _ in range(64)]
    fields = [('g_radius', scalar('int')), ('g_weights', arr(vec('float', 4), 2))]
    assert cb_offsets(fields) == {'g_radius': 0, 'g_weights': 16}
    data = words(cb_pack(fields, {'g_radius': radius, 'g_weights': [weights[0:4], weights[4:8]]}))
    out = []
    for x in range(64):
        acc = f32(0.5)
        for k in range(-radius, radius + 1):
            i = min(max(x + k, 0), 63)
            acc = f32(acc + f32(inp[i] * weights[abs(k)]))
        out.append(acc)
    t = T('real_cbuffer_statics', '''Real code: a static array inside a cbuffer, initialized from the cbuffer's float4 array by an
array cast (an ordinary static global, as DXC makes it), semantics on buffers (ignored: implicit
bindings t0 and u0), and an unused sampler, Texture2DMS and texture-taking helper.''', hlsl)
    t.buf('Blur', 'Hex32', data, CB, 0)
    t.buf('Input', 'Float32', inp, SB, 0)
    t.out('Output', 'Float32', out, RWSB, 0)
    t.write()


@test
def real_tile_past_end():
    hlsl = r'''
// The tiling of the DirectX SDK n-body sample: every group copies 64-element tiles of Pos into
// groupshared memory and each thread walks the whole tile; the last tile reads past the end of
// Pos, which D3D answers with zeros, and zero elements add nothing. Weight lies right after Pos
// in memory and must not be read in their place.
cbuffer Params : register(b0) {
  uint g_count;
  uint g_tiles;
};
StructuredBuffer<float4> Pos : register(t0);
StructuredBuffer<float> Weight : register(t1);
RWStructuredBuffer<float> Out : register(u0);

groupshared float4 tile[64];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
  float4 me = Pos[min(dtid.x, g_count - 1)];
  float acc = 0;
  for (uint t = 0; t < g_tiles; t++) {
    tile[gi] = Pos[t * 64 + gi];
    GroupMemoryBarrierWithGroupSync();
    for (uint k = 0; k < 64; k++)
      acc += dot(tile[k], me) * (tile[k].w + 1);
    GroupMemoryBarrierWithGroupSync();
  }
  if (dtid.x < g_count)
    Out[dtid.x] = acc * Weight[dtid.x];
}
'''
    r = Rng(43)
    n, tiles = 100, 2
    pos = [[f32(r.int(-64, 64) / 32) for _ in range(4)] for _ in range(n)]
    weight = [f32(r.int(1, 64) / 16) for _ in range(n)]
    out = []
    for i in range(n):
        me = pos[i]
        acc = 0.0
        for j in range(tiles * 64):
            p = pos[j] if j < n else [0.0] * 4
            d = 0.0
            for c in range(4):
                d = f32(d + f32(p[c] * me[c])) if c else f32(p[0] * me[0])
            acc = f32(acc + f32(d * f32(p[3] + 1)))
        out.append(f32(acc * weight[i]))
    out += [0.0] * (tiles * 64 - n)
    t = T('real_tile_past_end', '''Real code: n-body style tiles of a StructuredBuffer<float4> copied to groupshared memory, the
last tile reading past the end of the buffer (D3D's robust access gives 0; the next buffer in
memory, Weight, must not be read instead).''', hlsl, groups=(tiles, 1, 1))
    t.buf('Params', 'UInt32', [n, tiles, 0, 0], CB, 0)
    t.buf('Pos', 'Float32', [x for p in pos for x in p], SB, 0, Stride=16)
    t.buf('Weight', 'Float32', weight, SB, 1)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.write()


@test
def real_enums_members():
    hlsl = r'''
// Code in the style of kajiya's headers: enums (plain, with values, and `enum class` with an
// underlying type), a struct declared ahead and defined later, member functions declared in
// their struct and defined outside it (`GbufferData::pack`), a field-less struct of static
// helpers, `uint const` parameters, and an overload set where DXC picks int2 for a uint2
// argument (a signedness change ranks before a conversion to float).
enum Channel { ChannelRed, ChannelGreen = 4, ChannelBlue };
enum class Flags : uint { None = 0, Scale = 1 << 0, Bias = 1 << 1, Both = Scale | Bias };

struct Packed;

struct Data {
  float value;
  uint channel;
  static Data create(float v, uint c);
  Packed pack();
};

struct Packed {
  uint2 bits;
  Data unpack();
};

Data Data::create(float v, uint c) {
  Data d;
  d.value = v;
  d.channel = c;
  return d;
}

Packed Data::pack() {
  Packed p;
  p.bits = uint2(asuint(value), channel);
  return p;
}

Data Packed::unpack() {
  return Data::create(asfloat(bits.x), bits.y);
}

struct Remap {
  static float apply(float v, uint const flags, float const scale) {
    if (flags & (uint)Flags::Scale) v *= scale;
    if (flags & (uint)Flags::Bias) v += 1;
    return v;
  }
};

float weight(int2 px) { return px.x * 2 + px.y; }
float weight(float2 px) { return -1; }

cbuffer Params : register(b0) {
  uint g_flags;
  float g_scale;
};
RWStructuredBuffer<float> Out : register(u0);
RWStructuredBuffer<uint> OutBits : register(u1);

static const uint kOrder[ChannelBlue + 1] = { 0, 1, 2, 3, 4, 5 };

[numthreads(8, 1, 1)]
void main(uint2 px : SV_DispatchThreadID) {
  Channel c = (px.x & 1) ? ChannelGreen : ChannelRed;
  Data d = Data::create(Remap::apply((float)px.x, g_flags, g_scale), c + kOrder[ChannelBlue]);
  Packed p = d.pack();
  Data back = p.unpack();
  Out[px.x] = back.value + weight(px);
  OutBits[px.x] = p.bits.y + (uint)Channel::ChannelBlue * 100;
}
'''
    flags, scale = 3, f32(1.5)
    out, bits = [], []
    for x in range(8):
        c = 4 if x & 1 else 0
        v = f32(x)
        if flags & 1:
            v = f32(v * scale)
        if flags & 2:
            v = f32(v + 1)
        out.append(f32(v + float(x * 2 + 0)))
        bits.append(c + 5 + 5 * 100)
    t = T('real_enums_members', '''Real code: enums (values, `enum class` with an underlying type, `E::A`, enumerators in array
sizes and constants), a struct declared ahead, member functions defined outside their struct
(static and not), a field-less struct of static helpers, `uint const` parameters, and DXC's
overload ranking (a uint2 argument picks the int2 overload over float2).''', hlsl)
    t.buf('Params', 'UInt32', [flags, f32_bits(scale), 0, 0], CB, 0)
    t.out('Out', 'Float32', out, RWSB, 0)
    t.out('OutBits', 'UInt32', bits, RWSB, 1)
    t.write()
