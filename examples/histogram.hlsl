// 64-bin histogram of 8-bit values packed four to a uint. Each group counts into a
// groupshared histogram with InterlockedAdd, then adds its non-zero bins to the global
// histogram. Stats (a byte-address buffer) collects the number of values counted and the
// largest bin count any single group saw.
//
// Compile: wavec examples/histogram.hlsl -O
// Run:     wavec run examples/histogram.test

#define NUM_BINS 64
#define GROUP_SIZE 256
#define WORDS_PER_THREAD 4

cbuffer Params : register(b0) {
    uint g_numWords;       // number of packed uints in Pixels
};

StructuredBuffer<uint> Pixels : register(t0);
RWStructuredBuffer<uint> Histogram : register(u0);
RWByteAddressBuffer Stats : register(u1);    // 0: values counted, 4: largest per-group bin

groupshared uint s_bins[NUM_BINS];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint groupIndex : SV_GroupIndex) {
    if (groupIndex < NUM_BINS) {
        s_bins[groupIndex] = 0;
    }
    GroupMemoryBarrierWithGroupSync();

    uint first = groupId.x * GROUP_SIZE * WORDS_PER_THREAD;
    uint counted = 0;
    [unroll]
    for (uint k = 0; k < WORDS_PER_THREAD; ++k) {
        // Consecutive threads read consecutive words.
        uint w = first + k * GROUP_SIZE + groupIndex;
        if (w < g_numWords) {
            uint packed = Pixels[w];
            [unroll]
            for (uint b = 0; b < 4; ++b) {
                uint value = (packed >> (8 * b)) & 0xFF;
                InterlockedAdd(s_bins[value >> 2], 1);
            }
            counted += 4;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    if (groupIndex < NUM_BINS) {
        uint c = s_bins[groupIndex];
        if (c != 0) {
            InterlockedAdd(Histogram[groupIndex], c);
        }
        Stats.InterlockedMax(4, c);
    }
    if (counted != 0) {
        Stats.InterlockedAdd(0, counted);
    }
}
