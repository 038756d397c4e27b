// saxpy: Y[i] = a * X[i] + Y[i] for i < n.
// Compile: wavec examples/saxpy.hlsl -O --target-occupancy 8
// Run:     wavec run examples/saxpy.test

cbuffer Params : register(b0) {
    float a;
    uint n;
};

StructuredBuffer<float> X : register(t0);
RWStructuredBuffer<float> Y : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    if (i < n) {
        Y[i] = a * X[i] + Y[i];
    }
}
