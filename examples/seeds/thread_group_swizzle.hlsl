// "Optimizing Compute Shaders for L2 Locality using Thread-Group ID Swizzling":
// a wide vertical filter over an image 2048 pixels wide. Groups launch in row-major
// order, so the groups that run together span whole rows of groups, and a group's
// neighbour below (which reads mostly the same rows) starts a full row of groups
// later, after the L2 has moved on. Tiling remaps SV_GroupID so that consecutive
// groups walk down columns 16 groups wide; their footprints overlap in the L2.
//
// Like the article's denoiser the pass is memory-latency bound, here by running it
// as if it used 128 registers (2 waves per SIMD):
//   wavec run examples/seeds/thread_group_swizzle.test --target gcn -O --registers 128 --stats
//       (row-major: L2 hit rate 50%)
//   wavec run examples/seeds/thread_group_swizzle.test --target gcn -O --registers 128 -D SWIZZLE=1 --stats
//       (tiled: 78%, and 1.25 times as fast; the article saw 63% -> 86% and 47% faster)

#ifndef SWIZZLE
#define SWIZZLE 0
#endif

#define WIDTH 2048
#define HEIGHT 128
#define PAD 32                  // rows of padding above and below the image
#define GRID_X (WIDTH / 8)      // groups per row
#define GRID_Y (HEIGHT / 8)     // rows of groups
#define TILE 16                 // groups per tile row (GRID_X is a multiple of it)

StructuredBuffer<float> Image : register(t0);   // (HEIGHT + 2 * PAD) rows of WIDTH
RWStructuredBuffer<float> Out : register(u0);   // HEIGHT rows of WIDTH

[numthreads(8, 8, 1)]
void main(uint3 groupId : SV_GroupID, uint3 tid : SV_GroupThreadID) {
#if SWIZZLE
    // Thread-group tiling, direction X: tiles TILE groups wide and GRID_Y tall,
    // launched one after another, each walked row by row.
    uint linear = groupId.y * GRID_X + groupId.x;
    uint tile = linear / (TILE * GRID_Y);
    uint inTile = linear % (TILE * GRID_Y);
    uint2 g = uint2(tile * TILE + inTile % TILE, inTile / TILE);
#else
    uint2 g = groupId.xy;
#endif
    uint x = g.x * 8 + tid.x;
    uint y = g.y * 8 + tid.y;
    uint at = (y + PAD) * WIDTH + x;
    float sum = 0.0f;
    [unroll]
    for (int k = -4; k <= 4; k++) {
        sum += Image[at + k * 8 * WIDTH];
    }
    Out[y * WIDTH + x] = sum;
}
