// Group-wide exclusive prefix sum and totals built from wave intrinsics: WavePrefixSum
// within each wave, the wave totals (WaveActiveSum) scanned by the first wave, and the grand
// total gathered with one InterlockedAdd per wave (WaveIsFirstLane). The results do not
// depend on the wave width (32 on the generic target, 64 on gcn), as long as the lanes of a
// wave are consecutive SV_GroupIndex values, as on every D3D12 driver, and a group holds at
// most as many waves as a wave has lanes (GROUP_SIZE <= W * W: 16 lanes and up here).
//
// Compile: wavec examples/wave_reduce.hlsl -O
// Run:     wavec run examples/wave_reduce.test

#define GROUP_SIZE 256
#define MAX_WAVES (GROUP_SIZE / 4)      // D3D waves have at least 4 lanes

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> GroupPrefix : register(u0);   // exclusive prefix sum within the group
RWStructuredBuffer<uint> GroupTotals : register(u1);
RWStructuredBuffer<uint> GrandTotal : register(u2);

groupshared uint s_waveTotals[MAX_WAVES];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID, uint3 groupId : SV_GroupID,
          uint groupIndex : SV_GroupIndex) {
    uint v = Input[dispatchId.x];
    uint laneCount = WaveGetLaneCount();
    uint waveIndex = groupIndex / laneCount;
    uint numWaves = (GROUP_SIZE + laneCount - 1) / laneCount;

    uint lanePrefix = WavePrefixSum(v);
    uint waveTotal = WaveActiveSum(v);
    if (WaveIsFirstLane()) {
        s_waveTotals[waveIndex] = waveTotal;
        InterlockedAdd(GrandTotal[0], waveTotal);
    }
    GroupMemoryBarrierWithGroupSync();

    // The first wave turns the wave totals into their exclusive prefix sums.
    if (waveIndex == 0) {
        uint t = groupIndex < numWaves ? s_waveTotals[groupIndex] : 0;
        uint tPrefix = WavePrefixSum(t);
        uint groupTotal = WaveActiveSum(t);
        if (groupIndex < numWaves) {
            s_waveTotals[groupIndex] = tPrefix;
        }
        if (groupIndex == 0) {
            GroupTotals[groupId.x] = groupTotal;
        }
    }
    GroupMemoryBarrierWithGroupSync();

    GroupPrefix[dispatchId.x] = s_waveTotals[waveIndex] + lanePrefix;
}
