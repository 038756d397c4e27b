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
