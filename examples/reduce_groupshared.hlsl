// Parallel sum: each group of 256 threads reduces 512 floats in groupshared memory
// (two per thread, added while loading), halving the active threads at each step,
// and writes one partial sum per group. A second pass (or the host) adds the partials.
//
// Compile: wavec examples/reduce_groupshared.hlsl -O
// Run:     wavec run examples/reduce_groupshared.test

#define GROUP_SIZE 256

cbuffer Params : register(b0) {
    uint g_count;      // number of valid elements in Input
};

StructuredBuffer<float> Input : register(t0);
RWStructuredBuffer<float> PartialSums : register(u0);

groupshared float s_data[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint groupIndex : SV_GroupIndex) {
    // Load two elements per thread; elements past the end count as zero.
    uint i = groupId.x * GROUP_SIZE * 2 + groupIndex;
    float a = i < g_count ? Input[i] : 0.0f;
    float b = i + GROUP_SIZE < g_count ? Input[i + GROUP_SIZE] : 0.0f;
    s_data[groupIndex] = a + b;
    GroupMemoryBarrierWithGroupSync();

    // Tree reduction: the lower half adds the upper half into itself.
    [unroll]
    for (uint stride = GROUP_SIZE / 2; stride > 0; stride >>= 1) {
        if (groupIndex < stride) {
            s_data[groupIndex] += s_data[groupIndex + stride];
        }
        GroupMemoryBarrierWithGroupSync();
    }

    if (groupIndex == 0) {
        PartialSums[groupId.x] = s_data[0];
    }
}
