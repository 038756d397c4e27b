// wavec: --target-occupancy 30
// 384 threads are 12 waves of 32 on `generic`, resident a whole workgroup at a time: 24 waves
// per core fit (32 wave slots), so no register count reaches 30, and W0402 says so.
RWStructuredBuffer<float> B : register(u0);
[numthreads(384,1,1)]
void main(uint i : SV_DispatchThreadID) {
    float a0 = B[i*28+0];
    float a1 = B[i*28+1];
    float a2 = B[i*28+2];
    float a3 = B[i*28+3];
    float a4 = B[i*28+4];
    float a5 = B[i*28+5];
    float a6 = B[i*28+6];
    float a7 = B[i*28+7];
    float a8 = B[i*28+8];
    float a9 = B[i*28+9];
    float a10 = B[i*28+10];
    float a11 = B[i*28+11];
    float a12 = B[i*28+12];
    float a13 = B[i*28+13];
    float a14 = B[i*28+14];
    float a15 = B[i*28+15];
    float a16 = B[i*28+16];
    float a17 = B[i*28+17];
    float a18 = B[i*28+18];
    float a19 = B[i*28+19];
    float a20 = B[i*28+20];
    float a21 = B[i*28+21];
    float a22 = B[i*28+22];
    float a23 = B[i*28+23];
    float a24 = B[i*28+24];
    float a25 = B[i*28+25];
    float a26 = B[i*28+26];
    float a27 = B[i*28+27];
    float s = 0;
    s += a0 * a3;
    s += a1 * a10;
    s += a2 * a17;
    s += a3 * a24;
    s += a4 * a3;
    s += a5 * a10;
    s += a6 * a17;
    s += a7 * a24;
    s += a8 * a3;
    s += a9 * a10;
    s += a10 * a17;
    s += a11 * a24;
    s += a12 * a3;
    s += a13 * a10;
    s += a14 * a17;
    s += a15 * a24;
    s += a16 * a3;
    s += a17 * a10;
    s += a18 * a17;
    s += a19 * a24;
    s += a20 * a3;
    s += a21 * a10;
    s += a22 * a17;
    s += a23 * a24;
    s += a24 * a3;
    s += a25 * a10;
    s += a26 * a17;
    s += a27 * a24;
    B[i] = s;
}
