// Vertex transform with matrices from a cbuffer. g_world is declared with the default
// (column_major) packing and applied as mul(M, v) (column vectors); g_viewProj is declared
// row_major and applied as mul(v, M) (row vectors, the DirectXMath convention).
//
// Compile: wavec examples/transform4x4.hlsl -O
// Run:     wavec run examples/transform4x4.test

cbuffer Transforms : register(b0) {
    float4x4 g_world;
    row_major float4x4 g_viewProj;
    uint g_vertexCount;
};

StructuredBuffer<float4> Positions : register(t0);        // w is ignored
RWStructuredBuffer<float4> WorldPositions : register(u0);
RWStructuredBuffer<float4> ClipPositions : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    if (i >= g_vertexCount) {
        return;
    }
    float4 p = float4(Positions[i].xyz, 1.0f);
    float4 world = mul(g_world, p);
    float4 clip = mul(world, g_viewProj);
    WorldPositions[i] = world;
    ClipPositions[i] = clip;
}
