// converge-waves: a wave operation in a loop that lanes leave at different
// iterations. On wave-0.1.2 the loop runs until no lane of the wave is left
// (`wave_any` of the per-lane activity); finished lanes add 0.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint i : SV_GroupIndex) {
    uint lane = WaveGetLaneIndex();
    uint acc = 0;
    for (uint k = 0; k <= lane % 4; ++k)
        acc += WaveActiveSum(k + 1);
    Out[i] = acc;
}
