// wavec: --max-registers 6
// Twelve values live across a loop with six registers, 1024 threads per group:
// the spill slots (4 bytes per thread each) need more local memory than a group
// may have, so the ones that do not fit go to a scratch buffer in device memory (W0403).
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Tile[3500];

[numthreads(1024, 1, 1)]
void main(uint i : SV_DispatchThreadID, uint t : SV_GroupIndex) {
    uint a0 = Out[i * 12 + 0];
    uint a1 = Out[i * 12 + 1];
    uint a2 = Out[i * 12 + 2];
    uint a3 = Out[i * 12 + 3];
    uint a4 = Out[i * 12 + 4];
    uint a5 = Out[i * 12 + 5];
    uint a6 = Out[i * 12 + 6];
    uint a7 = Out[i * 12 + 7];
    uint a8 = Out[i * 12 + 8];
    uint a9 = Out[i * 12 + 9];
    uint a10 = Out[i * 12 + 10];
    uint a11 = Out[i * 12 + 11];
    Tile[t] = a0;
    for (uint j = 0; j < Out[0]; j++) {
        Out[j] = Out[j + 1] * Out[j + 2] + Out[j + 3];
    }
    Out[i * 12 + 0] = a0 + Tile[t ^ 0];
    Out[i * 12 + 1] = a1 + Tile[t ^ 1];
    Out[i * 12 + 2] = a2 + Tile[t ^ 2];
    Out[i * 12 + 3] = a3 + Tile[t ^ 3];
    Out[i * 12 + 4] = a4 + Tile[t ^ 4];
    Out[i * 12 + 5] = a5 + Tile[t ^ 5];
    Out[i * 12 + 6] = a6 + Tile[t ^ 6];
    Out[i * 12 + 7] = a7 + Tile[t ^ 7];
    Out[i * 12 + 8] = a8 + Tile[t ^ 8];
    Out[i * 12 + 9] = a9 + Tile[t ^ 9];
    Out[i * 12 + 10] = a10 + Tile[t ^ 10];
    Out[i * 12 + 11] = a11 + Tile[t ^ 11];
}
