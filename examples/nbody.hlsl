// One time step of an all-pairs n-body simulation (gravitational constant 1). Positions
// are staged through groupshared memory one tile of GROUP_SIZE bodies at a time; each
// thread accumulates the acceleration of its body, then integrates velocity and position.
//
// Compile: wavec examples/nbody.hlsl -O
// Run:     wavec run examples/nbody.test

#define GROUP_SIZE 64
#define SOFTENING_SQUARED 0.01f

cbuffer SimParams : register(b0) {
    float g_dt;
    float g_damping;
    uint g_numBodies;       // a multiple of GROUP_SIZE
};

StructuredBuffer<float4> PosIn : register(t0);      // xyz: position, w: mass
StructuredBuffer<float4> VelIn : register(t1);      // xyz: velocity
RWStructuredBuffer<float4> PosOut : register(u0);
RWStructuredBuffer<float4> VelOut : register(u1);

groupshared float4 s_pos[GROUP_SIZE];

// Acceleration on body bi from body bj, added to ai. The softening term keeps the
// self-interaction (r = 0) and close encounters finite.
float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai) {
    float3 r = bj.xyz - bi.xyz;
    float distSqr = dot(r, r) + SOFTENING_SQUARED;
    float invDist = rsqrt(distSqr);
    float invDistCube = invDist * invDist * invDist;
    float s = bj.w * invDistCube;
    return ai + r * s;
}

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID, uint groupIndex : SV_GroupIndex) {
    float4 pos = PosIn[dispatchId.x];
    float4 vel = VelIn[dispatchId.x];
    float3 accel = 0;

    for (uint tile = 0; tile < g_numBodies / GROUP_SIZE; ++tile) {
        s_pos[groupIndex] = PosIn[tile * GROUP_SIZE + groupIndex];
        GroupMemoryBarrierWithGroupSync();
        [unroll(8)]
        for (uint j = 0; j < GROUP_SIZE; ++j) {
            accel = bodyBodyInteraction(pos, s_pos[j], accel);
        }
        GroupMemoryBarrierWithGroupSync();
    }

    vel.xyz = (vel.xyz + accel * g_dt) * g_damping;
    pos.xyz += vel.xyz * g_dt;
    PosOut[dispatchId.x] = pos;
    VelOut[dispatchId.x] = vel;
}
