// 2D dispatch: transpose-like indexing with vector locals.
cbuffer Dims : register(b0)
{
    uint width;
    uint height;
    float scale;
}

StructuredBuffer<float> Src : register(t0);
RWStructuredBuffer<float> Dst : register(u1);

[numthreads(8, 8, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint2 gtid : SV_GroupThreadID)
{
    if (dtid.x >= width || dtid.y >= height) { return; }
    float3 v = float3(dtid.x, dtid.y, 1.0f);
    v.z = v.x * scale - v.y;
    vector<int, 2> p = int2(dtid.x, dtid.y);
    p.x += 1;
    bool3 m = bool3(true, false, p.y > 0);
    float r = m.z ? v.z : -v.z;
    Dst[dtid.y * width + dtid.x] = r + Src[dtid.x * height + dtid.y] + (float)gtid.x;
}
