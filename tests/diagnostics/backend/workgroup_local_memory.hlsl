// wavec: --target generic
// 64 KiB of groupshared memory: more than the 16 KiB a workgroup may have on
// `generic`. W0401 names local memory as the cause (not the workgroup size:
// 64 threads fit any target).
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Tile[16384];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Tile[id.x] = id.x;
    GroupMemoryBarrierWithGroupSync();
    Out[id.x] = Tile[63 - id.x];
}
