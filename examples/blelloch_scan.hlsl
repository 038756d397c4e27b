// Work-efficient exclusive prefix sum (Blelloch) of blocks of 256 uints in groupshared
// memory, 128 threads per block, two elements per thread. Shared-memory indices are padded
// by CONFLICT_FREE_OFFSET to avoid bank conflicts (GPU Gems 3, ch. 39). Each block's total
// goes to BlockSums, which a second pass would scan and add back to get a global scan.
//
// Compile: wavec examples/blelloch_scan.hlsl -O
// Run:     wavec run examples/blelloch_scan.test

#define BLOCK_SIZE 256
#define THREADS (BLOCK_SIZE / 2)
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWStructuredBuffer<uint> BlockSums : register(u1);

groupshared uint s_temp[BLOCK_SIZE + (BLOCK_SIZE >> LOG_NUM_BANKS)];

[numthreads(THREADS, 1, 1)]
void main(uint3 groupId : SV_GroupID, uint tid : SV_GroupIndex) {
    uint blockStart = groupId.x * BLOCK_SIZE;
    uint ai = tid;
    uint bi = tid + BLOCK_SIZE / 2;
    uint bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    uint bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    s_temp[ai + bankOffsetA] = Input[blockStart + ai];
    s_temp[bi + bankOffsetB] = Input[blockStart + bi];

    // Up-sweep: build partial sums in place up the tree.
    uint offset = 1;
    [unroll]
    for (uint d = BLOCK_SIZE >> 1; d > 0; d >>= 1) {
        GroupMemoryBarrierWithGroupSync();
        if (tid < d) {
            uint a = offset * (2 * tid + 1) - 1;
            uint b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            s_temp[b] += s_temp[a];
        }
        offset <<= 1;
    }

    // The root holds the block total: save it and clear it for the down-sweep.
    if (tid == 0) {
        uint last = BLOCK_SIZE - 1 + CONFLICT_FREE_OFFSET(BLOCK_SIZE - 1);
        BlockSums[groupId.x] = s_temp[last];
        s_temp[last] = 0;
    }

    // Down-sweep: push prefixes back down the tree.
    [unroll]
    for (uint d2 = 1; d2 < BLOCK_SIZE; d2 <<= 1) {
        offset >>= 1;
        GroupMemoryBarrierWithGroupSync();
        if (tid < d2) {
            uint a = offset * (2 * tid + 1) - 1;
            uint b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            uint t = s_temp[a];
            s_temp[a] = s_temp[b];
            s_temp[b] += t;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    Output[blockStart + ai] = s_temp[ai + bankOffsetA];
    Output[blockStart + bi] = s_temp[bi + bankOffsetB];
}
