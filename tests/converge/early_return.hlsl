// converge-waves: an early `return` before a wave operation. The rest of the
// kernel is the divergent `if` that the return leaves; on wave-0.1.2 the
// ballot runs with every lane, the returned lanes voting false.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_GroupIndex) {
    uint lane = WaveGetLaneIndex();
    if (lane > 20)
        return;
    Out[i] = WaveActiveCountBits(true);
}
