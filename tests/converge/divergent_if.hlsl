// converge-waves: a wave operation in a divergent `if`. On wave-0.1.2 the `if`
// is split around WaveActiveSum, which runs with every lane; the lanes where
// the condition is false add 0.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_GroupIndex) {
    uint lane = WaveGetLaneIndex();
    uint r = 0;
    if (lane & 1)
        r = WaveActiveSum(lane) + 3;
    Out[i] = r;
}
