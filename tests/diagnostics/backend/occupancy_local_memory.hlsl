// wavec: --target-occupancy 8
// 12 KiB of groupshared memory per group: 64 KiB per compute unit holds five groups,
// which is less than the 8 waves per core asked for. Registers are not the limit.
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Big[3072];

[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID, uint t : SV_GroupIndex) {
    Big[t] = Out[i];
    GroupMemoryBarrierWithGroupSync();
    Out[i] = Big[3071 - t];
}
