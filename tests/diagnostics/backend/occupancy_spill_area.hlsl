// wavec: --target-occupancy 32
// Twenty values carried around a loop; 32 waves per core on `generic` leave 16 registers.
// Spilling reaches 16; slots past the local memory that keeps 32 waves go to device memory (W0403).
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    float a0 = Out[i * 20 + 0];
    float a1 = Out[i * 20 + 1];
    float a2 = Out[i * 20 + 2];
    float a3 = Out[i * 20 + 3];
    float a4 = Out[i * 20 + 4];
    float a5 = Out[i * 20 + 5];
    float a6 = Out[i * 20 + 6];
    float a7 = Out[i * 20 + 7];
    float a8 = Out[i * 20 + 8];
    float a9 = Out[i * 20 + 9];
    float a10 = Out[i * 20 + 10];
    float a11 = Out[i * 20 + 11];
    float a12 = Out[i * 20 + 12];
    float a13 = Out[i * 20 + 13];
    float a14 = Out[i * 20 + 14];
    float a15 = Out[i * 20 + 15];
    float a16 = Out[i * 20 + 16];
    float a17 = Out[i * 20 + 17];
    float a18 = Out[i * 20 + 18];
    float a19 = Out[i * 20 + 19];
    for (uint j = 0; j < 8; j++) {
        a0 = a1 * 0.5f + a0;
        a1 = a2 * 0.5f + a1;
        a2 = a3 * 0.5f + a2;
        a3 = a4 * 0.5f + a3;
        a4 = a5 * 0.5f + a4;
        a5 = a6 * 0.5f + a5;
        a6 = a7 * 0.5f + a6;
        a7 = a8 * 0.5f + a7;
        a8 = a9 * 0.5f + a8;
        a9 = a10 * 0.5f + a9;
        a10 = a11 * 0.5f + a10;
        a11 = a12 * 0.5f + a11;
        a12 = a13 * 0.5f + a12;
        a13 = a14 * 0.5f + a13;
        a14 = a15 * 0.5f + a14;
        a15 = a16 * 0.5f + a15;
        a16 = a17 * 0.5f + a16;
        a17 = a18 * 0.5f + a17;
        a18 = a19 * 0.5f + a18;
        a19 = a0 * 0.5f + a19;
    }
    Out[i * 20 + 0] = a0;
    Out[i * 20 + 1] = a1;
    Out[i * 20 + 2] = a2;
    Out[i * 20 + 3] = a3;
    Out[i * 20 + 4] = a4;
    Out[i * 20 + 5] = a5;
    Out[i * 20 + 6] = a6;
    Out[i * 20 + 7] = a7;
    Out[i * 20 + 8] = a8;
    Out[i * 20 + 9] = a9;
    Out[i * 20 + 10] = a10;
    Out[i * 20 + 11] = a11;
    Out[i * 20 + 12] = a12;
    Out[i * 20 + 13] = a13;
    Out[i * 20 + 14] = a14;
    Out[i * 20 + 15] = a15;
    Out[i * 20 + 16] = a16;
    Out[i * 20 + 17] = a17;
    Out[i * 20 + 18] = a18;
    Out[i * 20 + 19] = a19;
}
