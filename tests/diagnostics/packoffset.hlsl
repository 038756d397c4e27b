// packoffset on some members only, a vector crossing a register, and overlapping members.
cbuffer Mixed : register(b0) {
    float scale : packoffset(c0.y);
    float bias;
};
cbuffer Crossing : register(b1) {
    float3 dir : packoffset(c0.z);
};
cbuffer Overlap : register(b2) {
    float4 a : packoffset(c0);
    float b : packoffset(c0.w);
};
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = scale + bias + a.x + b; }
