// C = A * B with 8x8 tiles staged in groupshared memory. A is M x K, B is K x N and
// C is M x N, all row-major. Each group computes one 8x8 tile of C; each thread one
// element. Sizes need not be multiples of the tile: loads outside the matrices read
// zero and stores outside C are skipped.
//
// Compile: wavec examples/matmul_tiled.hlsl -O
// Run:     wavec run examples/matmul_tiled.test

#define TILE 8

cbuffer Dims : register(b0) {
    uint M;
    uint N;
    uint K;
};

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> C : register(u0);

groupshared float tileA[TILE][TILE];
groupshared float tileB[TILE][TILE];

[numthreads(TILE, TILE, 1)]
void main(uint3 groupId : SV_GroupID, uint3 localId : SV_GroupThreadID) {
    uint row = groupId.y * TILE + localId.y;
    uint col = groupId.x * TILE + localId.x;
    float acc = 0.0f;

    uint tileCount = (K + TILE - 1) / TILE;
    for (uint t = 0; t < tileCount; ++t) {
        // Each thread loads one element of each tile.
        uint ka = t * TILE + localId.x;
        uint kb = t * TILE + localId.y;
        tileA[localId.y][localId.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        tileB[localId.y][localId.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        GroupMemoryBarrierWithGroupSync();

        [unroll]
        for (uint k = 0; k < TILE; ++k) {
            acc += tileA[localId.y][k] * tileB[k][localId.x];
        }
        GroupMemoryBarrierWithGroupSync();
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}
