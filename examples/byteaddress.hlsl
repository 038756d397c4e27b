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
