// wavec: --isa wave-0.1.2
// E0411: a double computed from a wave operation in a loop that lanes leave at
// different iterations, read after the loop: predication carries only 32-bit values.
RWStructuredBuffer<double> Out : register(u0);
[numthreads(32, 1, 1)]
void main(uint i : SV_GroupIndex) {
    double x = 0;
    for (uint k = 0; ; ++k) {
        x = (double)WaveActiveSum(k) * 1.5;
        if (k >= i % 4)
            break;
    }
    Out[i] = x;
}
