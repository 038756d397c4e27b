// pad-warps: a 6x2 group (12 threads, one partial warp) with wave operations.
// On wave-0.1.2 it runs in groups of 32 threads (`.workgroup_size 32, 1, 1`);
// the thread ids come from the linear index with the real sizes, and threads
// 12..31 are inert: the store and the groupshared write run under
// `if t < 12`, the loads at per-thread addresses read address 0 in them,
// the sum and the count take no part from them, they skip the loop whose
// trip count differs per thread, and they reach the barrier with the others.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Shared[12];

[numthreads(6, 2, 1)]
void main(uint3 t : SV_GroupThreadID, uint i : SV_GroupIndex) {
    uint v = In[i];
    Shared[i] = v;
    GroupMemoryBarrierWithGroupSync();
    uint s = WaveActiveSum(Shared[11 - i]);
    uint n = 0;
    for (uint k = 0; k < t.x; ++k)
        n += WaveActiveCountBits(v > k);
    Out[t.y * 6 + t.x] = s + n;
}
